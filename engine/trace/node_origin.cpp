#include "trace/node_origin.h"

#include <unordered_map>
#include <vector>

#include "trace/arg_codec.h"
#include "trace/sqlite_db.h"
#include "trace/trace_reader.h"

namespace loupe {

namespace {

// Whether `target` is in the graph under `root`, walking only nodes at least as new as the target
// (older nodes cannot contain it). `known` remembers the answer for every node walked, across calls.
bool contains(TraceReader& reader, int64_t root, int64_t target, std::unordered_map<int64_t, bool>& known) {
  if (root < target) return false;
  std::vector<std::pair<int64_t, bool>> stack{{root, false}};  // (node, sources pushed)
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    if (n == target) return true;
    if (known.count(n)) {
      stack.pop_back();
      continue;
    }
    std::vector<int64_t> src = decode_ids(reader.node_row(n).src);
    if (!expanded) {
      stack.back().second = true;
      for (int64_t s : src) {
        if (s == target) return true;
        if (s > target && !known.count(s)) stack.push_back({s, false});
      }
      continue;
    }
    known[n] = false;  // every source was walked without meeting the target
    stack.pop_back();
  }
  return false;
}

} // namespace

std::optional<NodeOrigin> node_origin(TraceReader& reader, int64_t node_id, int64_t context_id) {
  SqliteDb& db = reader.db();
  // Candidates in recording order: pass inputs (step 0) and the matches that may hold the node.
  SqliteStmt st = db.prepare(
      "SELECT p.id, p.context_id, p.name, -1, p.input_id, NULL, NULL, NULL, NULL FROM passes p"
      " WHERE p.input_id >= ?1 AND (?2 < 0 OR p.context_id = ?2)"
      " UNION ALL"
      " SELECT p.id, p.context_id, p.name, m.idx, m.after_id, r.name, r.file, r.line, m.before_id FROM matches m"
      " JOIN passes p ON p.id = m.pass_id LEFT JOIN rules r ON r.id = m.rule_id"
      " WHERE m.after_id >= ?1 AND (?2 < 0 OR p.context_id = ?2)"
      " ORDER BY 1, 4");
  st.bind(1, node_id).bind(2, context_id);
  std::unordered_map<int64_t, bool> known;
  while (st.step()) {
    if (!contains(reader, st.int64(4), node_id, known)) continue;
    NodeOrigin o;
    o.pass_id = st.int64(0);
    o.context_id = st.int64(1);
    o.pass_name = st.text(2);
    int64_t idx = st.int64(3);
    o.by_rewrite = idx >= 0;
    o.step = o.by_rewrite ? idx + 1 : 0;
    if (o.by_rewrite) {
      o.rule_name = st.is_null(5) ? std::string() : st.text(5);
      o.rule_file = st.is_null(6) ? std::string() : st.text(6);
      o.rule_line = st.is_null(7) ? 0 : st.int64(7);
      o.replaced_id = st.int64(8);
    }
    return o;
  }
  return std::nullopt;
}

std::optional<int64_t> node_id_by_key(TraceReader& reader, const std::string& key_hex) {
  auto ids = node_ids_by_keys(reader, {key_hex});
  if (ids.empty()) return std::nullopt;
  return ids.begin()->second;
}

std::unordered_map<std::string, int64_t> node_ids_by_keys(TraceReader& reader, const std::vector<std::string>& keys_hex) {
  std::unordered_map<std::string, int64_t> out;
  if (keys_hex.empty()) return out;
  // uops has no index on key (a trace is written once and read by id): one scan finds them all
  std::string sql = "SELECT key, id FROM uops WHERE key IN (";
  for (size_t i = 0; i < keys_hex.size(); i++) sql += i ? ",?" : "?";
  SqliteStmt st = reader.db().prepare(sql + ")");
  for (size_t i = 0; i < keys_hex.size(); i++) st.bind(int(i + 1), keys_hex[i]);
  while (st.step()) out.emplace(st.text(0), st.int64(1));
  return out;
}

} // namespace loupe
