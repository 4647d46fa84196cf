#include "rewrite/pattern_matcher.h"

#include <bit>
#include <chrono>

#include "rewrite/listener.h"

namespace loupe {

PatternMatcher::PatternMatcher(std::vector<Rule> rules) : rules_(std::move(rules)) {
  for (int i = 0; i < static_cast<int>(rules_.size()); i++) {
    uint8_t classes = rules_[i].pattern.root_classes();
    auto add = [&](std::array<std::vector<int>, 4>& lists) {
      for (size_t c = 0; c < 4; c++)
        if (classes & (1u << c)) lists[c].push_back(i);
    };
    if (const OpSet* ops = rules_[i].pattern.root_ops())
      ops->for_each([&](Ops o) { add(by_op_[static_cast<size_t>(o)]); });
    else
      for (auto& lists : by_op_) add(lists);
  }
}

PatternMatcher PatternMatcher::operator+(const PatternMatcher& o) const {
  std::vector<Rule> all = rules_;
  all.insert(all.end(), o.rules_.begin(), o.rules_.end());
  return PatternMatcher(std::move(all));
}

const std::vector<int>& PatternMatcher::candidates(Ops op, DType dtype) const {
  return by_op_[static_cast<size_t>(op)][static_cast<size_t>(std::countr_zero(dtype_class(dtype)))];
}

PatternMatcher::Result PatternMatcher::rewrite(const UOpPtr& u, void* ctx) const {
  const auto& candidates = this->candidates(u->op, u->dtype);
  if (candidates.empty()) return {};
  OpSet src_ops;
  for (const UOpPtr& s : u->src) src_ops.add(s->op);
  const bool timed = any_attempt_listener();
  Captures caps;
  for (int i : candidates) {
    const Rule& r = rules_[i];
    if (!r.pattern.early_reject().subset_of(src_ops)) continue;
    if (const OpSet* within = r.pattern.sources_within(); within && !src_ops.subset_of(*within)) continue;
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
