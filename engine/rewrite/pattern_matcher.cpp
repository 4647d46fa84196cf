#include "rewrite/pattern_matcher.h"

#include <chrono>

#include "rewrite/listener.h"

namespace loupe {

PatternMatcher::PatternMatcher(std::vector<Rule> rules) : rules_(std::move(rules)) {
  for (int i = 0; i < static_cast<int>(rules_.size()); i++) {
    if (const OpSet* ops = rules_[i].pattern.root_ops())
      ops->for_each([&](Ops o) { by_op_[static_cast<size_t>(o)].push_back(i); });
    else
      for (auto& list : by_op_) list.push_back(i);
  }
}

PatternMatcher PatternMatcher::operator+(const PatternMatcher& o) const {
  std::vector<Rule> all = rules_;
  all.insert(all.end(), o.rules_.begin(), o.rules_.end());
  return PatternMatcher(std::move(all));
}

PatternMatcher::Result PatternMatcher::rewrite(const UOpPtr& u, void* ctx) const {
  const auto& candidates = by_op_[static_cast<size_t>(u->op)];
  if (candidates.empty()) return {};
  OpSet src_ops;
  for (const UOpPtr& s : u->src) src_ops.add(s->op);
  const bool timed = any_attempt_listener();
  Captures caps;
  for (int i : candidates) {
    const Rule& r = rules_[i];
    if (!r.pattern.early_reject().subset_of(src_ops)) continue;
    auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    UOpPtr out;
    caps.truncate(0);
    r.pattern.match(u, caps, [&] {
      Match m(u, caps, ctx);
      out = r.fn(m);
      return out != nullptr;
    });
    if (timed) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (RewriteListener* l : active_listeners())
        if (l->wants_attempts()) l->attempt(r, out != nullptr, secs);
    }
    if (out) return {out, &r};
  }
  return {};
}

} // namespace loupe
