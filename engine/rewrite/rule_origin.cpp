#include "rewrite/rule_origin.h"

#include <mutex>
#include <unordered_map>

namespace loupe {

namespace {
struct Origins {
  std::mutex mutex;
  std::unordered_map<int, RuleOrigin> by_id;
};
Origins& origins() {
  static auto* o = new Origins();  // never destroyed: rules outlive static destruction
  return *o;
}
} // namespace

void set_rule_origin(int rule_id, RuleOrigin origin) {
  Origins& o = origins();
  std::lock_guard lock(o.mutex);
  o.by_id[rule_id] = std::move(origin);
}

std::optional<RuleOrigin> rule_origin(int rule_id) {
  if (rule_id < 0) return std::nullopt;
  Origins& o = origins();
  std::lock_guard lock(o.mutex);
  auto it = o.by_id.find(rule_id);
  if (it == o.by_id.end()) return std::nullopt;
  return it->second;
}

std::string rule_file(const Rule& r) {
  if (auto o = rule_origin(r.id)) return o->file;
  return r.location.file_name();
}

int64_t rule_line(const Rule& r) {
  if (auto o = rule_origin(r.id)) return o->line;
  return r.location.line();
}

namespace {
struct CallSite {
  std::string pass_name;
  RuleOrigin where;
  const PatternMatcher* matcher;
};
thread_local std::vector<CallSite> call_sites;  // innermost last
} // namespace

PassCallSite::PassCallSite(std::string pass_name, std::string file, int64_t line, const PatternMatcher* matcher) {
  call_sites.push_back({std::move(pass_name), RuleOrigin{std::move(file), line, ""}, matcher});
}

PassCallSite::~PassCallSite() { call_sites.pop_back(); }

const RuleOrigin* PassCallSite::find(const std::string& pass_name) {
  for (auto it = call_sites.rbegin(); it != call_sites.rend(); ++it)
    if (it->pass_name == pass_name) return &it->where;
  return nullptr;
}

const PatternMatcher* PassCallSite::matcher(const std::string& pass_name) {
  for (auto it = call_sites.rbegin(); it != call_sites.rend(); ++it)
    if (it->pass_name == pass_name) return it->matcher;
  return nullptr;
}

} // namespace loupe
