#include "rewrite/graph_rewrite.h"

#include <chrono>
#include <filesystem>
#include <unordered_map>

#include "ir/metadata.h"
#include "rewrite/listener.h"
#include "rewrite/runaway_rewrite.h"
#include "support/deep_stack.h"
#include "support/error.h"

namespace loupe {

namespace {
bool constant_node(const UOp& u) { return u.op == Ops::CONST || u.op == Ops::VCONST; }
} // namespace


namespace {

thread_local int rewrite_depth = 0;

class Rewriter {
public:
  Rewriter(const PatternMatcher& pm, const RewriteOptions& opts, PassInfo pass)
      : pm_(pm), opts_(opts), pass_(std::move(pass)), observed_(any_listener()) {
    memo_.reserve(opts.expected_nodes);
  }

  UOpPtr top_down(const UOpPtr& n) {
    if (opts_.settled && opts_.settled->contains(n.get())) return n;
    if (const UOpPtr* done = find(n.get())) return *done;
    Nesting nest(*this, n);
    // the new sources are copied out only once one of them changed (most nodes keep theirs)
    UOpList new_src;
    for (size_t i = 0; i < n->src.size(); i++) {
      UOpPtr s = top_down(n->src[i]);
      if (new_src.empty()) {
        if (s == n->src[i]) continue;
        new_src.reserve(n->src.size());
        new_src.assign(n->src.begin(), n->src.begin() + static_cast<std::ptrdiff_t>(i));
      }
      new_src.push_back(std::move(s));
    }
    bool changed = !new_src.empty();
    const bool quiet = !changed && opts_.quiet && opts_.quiet->contains(n.get());
    UOpPtr next = changed ? rebuilt(*n, std::move(new_src)) : quiet ? nullptr : apply(n);
    UOpPtr result = next ? top_down(next) : n;
    remember(n, result);
    return result;
  }

  UOpPtr bottom_up(const UOpPtr& n) {
    if (const UOpPtr* done = find(n.get())) return *done;
    Nesting nest(*this, n);
    UOpPtr last = n;
    while (UOpPtr next = apply(last)) last = next;
    UOpList new_src;
    new_src.reserve(last->src.size());
    bool changed = false;
    for (const UOpPtr& s : last->src) {
      new_src.push_back(bottom_up(s));
      changed = changed || new_src.back() != s;
    }
    UOpPtr result = changed ? bottom_up(rebuilt(*last, std::move(new_src))) : last;
    remember(n, result);
    return result;
  }

  UOpPtr run(const UOpPtr& root) { return opts_.bottom_up ? bottom_up(root) : top_down(root); }
  UOpPtr run_at_root(const UOpPtr& root) {
    UOpPtr next = apply(root);
    return next ? next : root;
  }
  const UOpPtr* find(const UOp* n) const {
    const auto* entry = memo_.find(n);
    return entry ? &entry->second : nullptr;
  }

private:
  // One level of the walk's recursion. Past the limit the pass cannot be settling (runaway_rewrite.h).
  // A deep stack (support/deep_stack.h: 1 GiB) takes far more levels than a thread's default 8 MiB.
  struct Nesting {
    Rewriter& r;
    Nesting(Rewriter& rw, const UOpPtr& n) : r(rw) {
      if (++r.nesting_ > r.nesting_limit_) {
        --r.nesting_;
        throw RunawayRewrite(cat("rewrite pass '", r.pass_.name, "' nested ", r.nesting_, " levels deep at a ", op_name(n->op),
                                 " (last rule: ", r.last_rule_ ? r.last_rule_->name : std::string("none"), "): a rule whose result contains what it rewrote never settles"));
      }
    }
    ~Nesting() { --r.nesting_; }
  };

  // Keyed by address (no reference counting per lookup); the key node is kept alive with its entry so
  // an address is never reused during the pass.
  void remember(const UOpPtr& n, const UOpPtr& result) {
    auto [entry, fresh] = memo_.try_emplace(n.get());
    if (fresh) *entry = {n, result};
  }

  // The node again over new sources, keeping its provenance (ir/metadata.h).
  static UOpPtr rebuilt(const UOp& n, UOpList new_src) {
    UOpPtr r = UOp::make(n.op, n.dtype, std::move(new_src), n.arg);
    if (!constant_node(*r)) r->set_metadata_once(n.metadata());
    return r;
  }

  UOpPtr apply(const UOpPtr& n) {
    auto start = observed_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    // what the rule builds traces back to the node it rewrites (ir/metadata.h)
    CreationProvenance made_for(n->metadata());
    PatternMatcher::Result r = pm_.rewrite(n, opts_.ctx);
    if (!r.replacement) return nullptr;
    last_rule_ = r.rule;
    // provenance survives the rewrite (ir/metadata.h), except on a constant it folds to: that node is
    // shared by every later graph, where the provenance would name this op
    if (!constant_node(*r.replacement)) r.replacement->set_metadata_once(n->metadata());
    if (++steps_ > opts_.step_limit)
      raise_internal(__FILE__, __LINE__,
                     cat("rewrite pass '", pass_.name, "' exceeded ", opts_.step_limit,
                         " rule applications (last rule: ", r.rule->name, ") — a rule set that never settles"));
    if (observed_) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (RewriteListener* l : active_listeners()) l->match(n, r.replacement, *r.rule, secs);
    }
    return r.replacement;
  }

  const PatternMatcher& pm_;
  const RewriteOptions& opts_;
  PassInfo pass_;
  bool observed_;
  size_t steps_ = 0;
  int nesting_ = 0;
  const int nesting_limit_ = on_deep_stack() ? 400'000 : 20'000;  // levels this pass's stack holds with room to spare
  const Rule* last_rule_ = nullptr;
  FlatPtrMap<const UOp*, std::pair<UOpPtr, UOpPtr>> memo_;
};

PassInfo make_pass(const RewriteOptions& opts, const std::source_location& loc) {
  std::string name = opts.name;
  if (name.empty()) name = std::filesystem::path(loc.file_name()).filename().string() + ":" + std::to_string(loc.line());
  return PassInfo{name, loc, opts.bottom_up, rewrite_depth};
}

struct DepthGuard {
  DepthGuard() { rewrite_depth++; }
  ~DepthGuard() { rewrite_depth--; }
};

template <typename F> auto observed_pass(const PassInfo& pass, const UOpPtr& sink, F&& body) {
  bool observed = any_listener();
  if (observed)
    for (RewriteListener* l : active_listeners()) l->pass_begin(pass, sink);
  DepthGuard depth;
  auto result = body();
  if (observed)
    for (RewriteListener* l : active_listeners()) l->pass_end(pass, result.first);
  return result;
}

} // namespace

UOpPtr graph_rewrite(const UOpPtr& sink, const PatternMatcher& pm, const RewriteOptions& opts,
                     std::source_location loc) {
  PassInfo pass = make_pass(opts, loc);
  return observed_pass(pass, sink, [&] {
           Rewriter rw(pm, opts, pass);
           return std::pair<UOpPtr, int>{rw.run(sink), 0};
         })
      .first;
}

UOpPtr rewrite_root(const UOpPtr& root, const PatternMatcher& pm, const RewriteOptions& opts, std::source_location loc) {
  PassInfo pass = make_pass(opts, loc);
  return observed_pass(pass, root, [&] {
           Rewriter rw(pm, opts, pass);
           return std::pair<UOpPtr, int>{rw.run_at_root(root), 0};
         })
      .first;
}

TracedStage::TracedStage(std::string name, const UOpPtr& input, std::source_location loc)
    : pass_{std::move(name), loc, false, rewrite_depth}, observed_(any_listener()) {
  rewrite_depth++;  // rewrites run inside the stage nest under it, as under a rule
  if (!observed_) return;
  for (RewriteListener* l : active_listeners()) l->pass_begin(pass_, input);
  last_ = std::chrono::steady_clock::now();
}

TracedStage::~TracedStage() {
  if (!finished_) rewrite_depth--;  // unwound by an exception: the pass stays open, as a failed rewrite's does
}

void TracedStage::step(const UOpPtr& before, const UOpPtr& after, const Rule& rule) {
  if (!observed_ || before == after) return;
  auto now = std::chrono::steady_clock::now();
  double secs = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  for (RewriteListener* l : active_listeners()) l->match(before, after, rule, secs);
}

UOpPtr TracedStage::finish(const UOpPtr& result) {
  LOUPE_ASSERT(!finished_, "a traced stage finished twice");
  finished_ = true;
  rewrite_depth--;
  if (observed_)
    for (RewriteListener* l : active_listeners()) l->pass_end(pass_, result);
  return result;
}

UOpMap<UOpPtr> graph_rewrite_map(const UOpPtr& sink, const PatternMatcher& pm, const RewriteOptions& opts,
                                 std::source_location loc) {
  PassInfo pass = make_pass(opts, loc);
  UOpMap<UOpPtr> out;
  observed_pass(pass, sink, [&] {
    Rewriter rw(pm, opts, pass);
    UOpPtr result = rw.run(sink);
    for (const UOp* n : sink->toposort()) {
      UOpPtr p = n->ptr();
      const UOpPtr* done = rw.find(n);
      out[p] = done ? *done : rw.run(p);
    }
    return std::pair<UOpPtr, int>{result, 0};
  });
  return out;
}

UOpPtr substitute(const UOpPtr& root, const UOpMap<UOpPtr>& replacements, const Rebuild& rebuild, const Enter& enter) {
  if (enter && !enter(root.get())) return root;
  // every node of root's graph stays alive through root, so addresses are stable keys
  std::vector<const UOp*> order = enter ? root->toposort([&](const UOp* n, size_t i) { return enter(n->src[i].get()); })
                                        : root->toposort();
  FlatPtrMap<const UOp*, UOpPtr> memo(order.size());
  for (const UOp* n : order) {
    if (!replacements.empty())
      if (auto it = replacements.find(n->ptr()); it != replacements.end()) {
        memo[n] = it->second;
        continue;
      }
    bool changed = false;
    UOpList src;
    src.reserve(n->src.size());
    for (const UOpPtr& s : n->src) {
      const UOpPtr* done = memo.find(s.get());  // null: a source `enter` refused, kept as it is
      src.push_back(done ? *done : s);
      changed = changed || src.back() != s;
    }
    if (!changed) memo[n] = n->ptr();
    else memo[n] = rebuild ? rebuild(*n, std::move(src)) : n->replace_src(std::move(src));
  }
  return *memo.find(root.get());
}

} // namespace loupe
