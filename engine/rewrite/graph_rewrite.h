// graph_rewrite: apply a PatternMatcher over a whole graph, with tinygrad's semantics.
//  - default (post-order): rewrite the sources first; if none changed, try the rules on the node; if
//    sources changed, rebuild the node and rewrite the rebuilt node. Every replacement is rewritten
//    again until no rule applies (a fixed point). Results are memoized per call.
//  - bottom_up (pre-order): apply the rules at the node to a fixed point first, then rewrite the
//    sources of the result, rebuild and repeat if they changed.
#pragma once
#include <chrono>
#include <functional>
#include <source_location>
#include <string>

#include "rewrite/listener.h"
#include "rewrite/pattern_matcher.h"

namespace loupe {

struct RewriteOptions {
  void* ctx = nullptr;      // passed to every rule (Match::ctx<T>())
  bool bottom_up = false;
  std::string name;         // the pass's name in traces; defaults to the call site
  size_t step_limit = 2'000'000;  // rule applications before the pass is declared runaway
  // Nodes the caller knows are at this matcher's fixed point, with everything below them (a previous
  // pass left them so and no rule of this one can apply there): kept as they are without a visit.
  const FlatPtrSet<const UOp*>* settled = nullptr;
  // Nodes the caller knows are at this matcher's fixed point as long as their sources stay as they
  // are: their sources are visited, and the rules are tried on them only once one of those changed.
  // (The caller keeps them alive for the pass: an address must not come back as another node.)
  const FlatPtrSet<const UOp*>* quiet = nullptr;
  size_t expected_nodes = 0;  // about how many nodes the pass will visit, if the caller knows (sizes its memo)
};

UOpPtr graph_rewrite(const UOpPtr& sink, const PatternMatcher& pm, const RewriteOptions& opts = {},
                     std::source_location loc = std::source_location::current());

// The first rule that applies at the root itself, once: no traversal, and the result is not rewritten
// further (a pass of one step, reported to listeners like any other). The root when no rule applies.
UOpPtr rewrite_root(const UOpPtr& root, const PatternMatcher& pm, const RewriteOptions& opts = {},
                    std::source_location loc = std::source_location::current());

// A transform that is not a pattern rewrite (the lane expansion, the vectorizer's joining of stores,
// the contracted-constant fold) reported to listeners as one: a named pass whose steps are the changes
// the transform made, each under the rule that names that kind of change. A step replaces `before`
// by `after` as a trace replays it (by substitution into the pass's input). Costs one check of the
// listeners when none is attached; `observed()` tells a transform whether to build its steps at all.
class TracedStage {
public:
  TracedStage(std::string name, const UOpPtr& input, std::source_location loc = std::source_location::current());
  TracedStage(const TracedStage&) = delete;
  TracedStage& operator=(const TracedStage&) = delete;
  ~TracedStage();

  bool observed() const { return observed_; }
  void step(const UOpPtr& before, const UOpPtr& after, const Rule& rule);
  // Ends the pass with its result (returned for chaining).
  UOpPtr finish(const UOpPtr& result);

private:
  PassInfo pass_;
  bool observed_ = false, finished_ = false;
  std::chrono::steady_clock::time_point last_;
};

// Same rewrite; returns, for every node of the input graph, what it became.
UOpMap<UOpPtr> graph_rewrite_map(const UOpPtr& sink, const PatternMatcher& pm, const RewriteOptions& opts = {},
                                 std::source_location loc = std::source_location::current());

// Replace nodes by a lookup table (one bottom-up pass, no rules): `substitute(x, {{a, b}})`. A node
// whose sources changed is rebuilt by `rebuild(node, new_sources)` when given (a builder that folds as
// it builds), else with the same op, dtype and arg. When `enter` is given, a node it refuses is kept as
// it is without a visit below it (the caller knows no replaced node lies there).
using Rebuild = std::function<UOpPtr(const UOp&, UOpList)>;
using Enter = std::function<bool(const UOp*)>;
UOpPtr substitute(const UOpPtr& root, const UOpMap<UOpPtr>& replacements, const Rebuild& rebuild = {},
                  const Enter& enter = {});

} // namespace loupe
