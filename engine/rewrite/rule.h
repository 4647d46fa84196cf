// A rewrite rule is data: a pattern, a callback, a name and the source location where it was
// written. The callback returns the replacement, or null to decline.
#pragma once
#include <functional>
#include <source_location>
#include <string>

#include "rewrite/upat.h"

namespace loupe {

// What a rule's callback sees: the matched root, the named captures and the pass's context object.
class Match {
public:
  Match(const UOpPtr& root, const Captures& caps, void* ctx) : root_(root), caps_(caps), ctx_(ctx) {}
  const UOpPtr& root() const { return root_; }
  const UOpPtr& operator[](std::string_view name) const;
  bool has(std::string_view name) const { return caps_.find(name) != nullptr; }
  template <typename T> T& ctx() const { return *static_cast<T*>(ctx_); }
  void* raw_ctx() const { return ctx_; }

private:
  const UOpPtr& root_;
  const Captures& caps_;
  void* ctx_;
};

using RuleFn = std::function<UOpPtr(const Match&)>;

struct Rule {
  UPat pattern;
  RuleFn fn;
  std::string name;
  std::source_location location;
  int id = -1;  // index in the global rule registry (for statistics and traces)
};

Rule rule(std::string name, UPat pattern, RuleFn fn, std::source_location loc = std::source_location::current());

// Every rule ever built gets an id; traces and statistics refer to rules by it.
const Rule* rule_by_id(int id);
int rule_count();

} // namespace loupe
