#include "inspect/recorded_rules.h"

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "rewrite/rule_origin.h"
#include "support/error.h"
#include "symbolic/symbolic.h"
#include "trace/arg_codec.h"
#include "trace/schema.h"
#include "trace/upat_codec.h"

namespace loupe {

namespace {

struct RecordedRule {
  std::string name, file, source, pattern;
  int64_t line = 0;
};

// This build's rules whose callbacks may run outside their pass, by identity (name@file:line).
const std::unordered_map<std::string, const Rule*>& runnable_rules() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, const Rule*>();
    for (const PatternMatcher* pm : {&symbolic_simple(), &symbolic(), &symbolic_flat()})
      for (const Rule& r : pm->rules()) t->emplace(rule_identity(r), &r);
    return t;
  }();
  return *table;
}

std::vector<RecordedRule> read_rule_set(TraceReader& reader, int64_t pass_id) {
  SqliteDb& db = reader.db();
  std::vector<RecordedRule> out;
  if (!trace_schema::has_table(db, "pass_rule_sets") || !trace_schema::has_table(db, "rule_sets") ||
      !trace_schema::has_table(db, "rule_patterns"))
    return out;
  SqliteStmt set = db.prepare("SELECT s.rules FROM pass_rule_sets p JOIN rule_sets s ON s.id = p.rule_set_id WHERE p.pass_id = ?");
  set.bind(1, pass_id);
  if (!set.step()) return out;
  std::vector<int64_t> ids = decode_ids(set.text(0));
  bool sources = trace_schema::has_table(db, "rule_sources");
  SqliteStmt rule = db.prepare(sources ? "SELECT r.name, r.file, r.line, p.pattern, s.text FROM rules r LEFT JOIN rule_patterns p ON p.rule_id = r.id"
                                         " LEFT JOIN rule_sources s ON s.rule_id = r.id WHERE r.id = ?"
                                       : "SELECT r.name, r.file, r.line, p.pattern, NULL FROM rules r LEFT JOIN rule_patterns p ON p.rule_id = r.id"
                                         " WHERE r.id = ?");
  for (int64_t id : ids) {
    rule.reset();
    rule.bind(1, id);
    if (!rule.step()) throw Error(cat("pass ", pass_id, ": its rule set names rule ", id, ", which the trace's rules table lacks"));
    RecordedRule r{rule.text(0), rule.text(1), rule.is_null(4) ? std::string() : rule.text(4), rule.is_null(3) ? std::string() : rule.text(3),
                   rule.int64(2)};
    if (r.pattern.empty()) throw Error(cat("pass ", pass_id, ": rule '", r.name, "' (", r.file, ":", r.line, ") has no recorded pattern"));
    out.push_back(std::move(r));
  }
  return out;
}

// One rebuilt set per distinct record (a trace reopened, or Why not? asked again, reuses it): rules are
// registered for good (rule ids are global), so the sets are never freed.
struct Built {
  std::unique_ptr<PatternMatcher> matcher;
  size_t python_rules = 0;
};

} // namespace

std::optional<PassRules> recorded_pass_rules(TraceReader& reader, int64_t pass_id) {
  std::vector<RecordedRule> recorded = read_rule_set(reader, pass_id);
  if (recorded.empty()) return std::nullopt;
  std::string key;
  for (const RecordedRule& r : recorded) key += cat(rule_identity(r.name, r.file, r.line), "\n", r.pattern, "\n", r.source, "\n\n");

  static std::mutex mutex;
  static auto* built = new std::map<std::string, Built>();
  std::lock_guard lock(mutex);
  auto it = built->find(key);
  if (it == built->end()) {
    std::vector<Rule> rules;
    size_t python = 0;
    for (const RecordedRule& r : recorded) {
      auto own = runnable_rules().find(rule_identity(r.name, r.file, r.line));
      if (own != runnable_rules().end()) {
        rules.push_back(*own->second);
        continue;
      }
      UPat pattern;
      try {
        pattern = decode_upat(r.pattern);
      } catch (const Error& e) {
        throw Error(cat("rule '", r.name, "' (", r.file, ":", r.line, "): ", e.what()));
      }
      rules.push_back(rule(r.name, std::move(pattern), nullptr));  // no callback: the user's code is not in the trace
      set_rule_origin(rules.back().id, RuleOrigin{r.file, r.line, r.source});
      python += r.file.size() > 3 && r.file.compare(r.file.size() - 3, 3, ".py") == 0;
    }
    it = built->emplace(key, Built{std::make_unique<PatternMatcher>(std::move(rules)), python}).first;
  }
  PassRules out;
  out.matcher = it->second.matcher.get();
  out.callbacks_runnable = true;  // the engine's symbolic rules run; rules without a callback say so
  out.rule_set = cat("a PatternMatcher from Python (", recorded.size(), " rules, ", it->second.python_rules, " written in Python)");
  return out;
}

} // namespace loupe
