#include "rewrite/rule.h"

#include <deque>
#include <mutex>

#include "support/error.h"

namespace loupe {

namespace {
struct Registry {
  std::mutex mutex;
  std::deque<Rule> rules;  // deque: stable addresses
};
Registry& registry() {
  static auto* r = new Registry();
  return *r;
}
} // namespace

const UOpPtr& Match::operator[](std::string_view name) const {
  const UOpPtr* u = caps_.find(name);
  LOUPE_ASSERT(u != nullptr, "rule asked for capture '", std::string(name), "' that the pattern does not bind");
  return *u;
}

Rule rule(std::string name, UPat pattern, RuleFn fn, std::source_location loc) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  Rule made{std::move(pattern), std::move(fn), std::move(name), loc, static_cast<int>(r.rules.size())};
  r.rules.push_back(made);
  return made;
}

const Rule* rule_by_id(int id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (id < 0 || id >= static_cast<int>(r.rules.size())) return nullptr;
  return &r.rules[id];
}

int rule_count() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return static_cast<int>(r.rules.size());
}

} // namespace loupe
