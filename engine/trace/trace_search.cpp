#include "trace/trace_search.h"

#include <unordered_set>

#include "support/error.h"
#include "support/source_path.h"
#include "trace/sqlite_db.h"
#include "trace/trace_reader.h"

namespace loupe {

namespace {

// A LIKE pattern matching `text` anywhere, with LIKE's own wildcards taken literally (ESCAPE '\').
std::string like_anywhere(const std::string& text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "%";
}

using Kind = TraceSearchHit::Kind;

// Runs a query whose rows are (context_id, context name, pass_id, pass name, step, kernel_id,
// label, detail[, source file, line]: appended to the label), binding the pattern to ?1 and the
// limit + 1 to ?2.
void collect(SqliteDb& db, Kind kind, const char* sql, const std::string& pattern, int limit, TraceSearchResult& out) {
  SqliteStmt st = db.prepare(sql);
  st.bind(1, pattern).bind(2, int64_t(limit) + 1);
  int n = 0;
  while (st.step()) {
    if (++n > limit) {
      out.truncated = true;
      break;
    }
    TraceSearchHit h;
    h.kind = kind;
    h.context_id = st.is_null(0) ? -1 : st.int64(0);
    h.context_name = st.is_null(1) ? std::string() : st.text(1);
    h.pass_id = st.is_null(2) ? -1 : st.int64(2);
    h.pass_name = st.is_null(3) ? std::string() : st.text(3);
    h.step = st.is_null(4) ? 0 : st.int64(4);
    h.kernel_id = st.is_null(5) ? -1 : st.int64(5);
    h.label = st.text(6);
    h.detail = st.is_null(7) ? std::string() : st.text(7);
    if (st.columns() > 9 && !st.is_null(8)) h.label += " (" + repo_relative_path(st.text(8)) + ":" + std::to_string(st.int64(9)) + ")";
    out.hits.push_back(std::move(h));
  }
}

} // namespace

const char* search_kind_name(Kind kind) {
  switch (kind) {
  case Kind::Kernel: return "kernel";
  case Kind::Pass: return "pass";
  case Kind::Rule: return "rule";
  case Kind::Node: return "node";
  }
  return "?";
}

TraceSearchResult search_trace(TraceReader& reader, const std::string& text, int limit) {
  TraceSearchResult out;
  if (text.empty()) return out;
  SqliteDb& db = reader.db();
  const std::string pattern = like_anywhere(text);
  collect(db, Kind::Kernel,
          "SELECT k.context_id, c.name, NULL, NULL, 0, k.id, k.name, k.device || ' · ' || k.opts"
          " FROM kernels k LEFT JOIN contexts c ON c.id = k.context_id"
          " WHERE k.name LIKE ?1 ESCAPE '\\' ORDER BY k.id LIMIT ?2",
          pattern, limit, out);
  collect(db, Kind::Pass,
          "SELECT p.context_id, c.name, p.id, p.name, 0, NULL, p.name,"
          " COALESCE(p.match_count, 0) || ' matches', p.file, p.line"
          " FROM passes p JOIN contexts c ON c.id = p.context_id"
          " WHERE p.name LIKE ?1 ESCAPE '\\' ORDER BY p.id LIMIT ?2",
          pattern, limit, out);
  // A rule leads to its first firing (one scan of the matches for all the rules found).
  collect(db, Kind::Rule,
          "WITH hit AS (SELECT id FROM rules WHERE name LIKE ?1 ESCAPE '\\' OR (file || ':' || line) LIKE ?1 ESCAPE '\\'),"
          " first AS (SELECT rule_id, MIN(pass_id * 4294967296 + idx) AS k FROM matches"
          "           WHERE rule_id IN (SELECT id FROM hit) GROUP BY rule_id)"
          " SELECT p.context_id, c.name, p.id, p.name, f.k % 4294967296 + 1, NULL,"
          " r.name,"
          " CASE WHEN f.k IS NULL THEN 'never fired' ELSE r.matches || ' matches; the first one' END, r.file, r.line"
          " FROM rules r LEFT JOIN first f ON f.rule_id = r.id LEFT JOIN passes p ON p.id = f.k / 4294967296"
          " LEFT JOIN contexts c ON c.id = p.context_id"
          " WHERE r.id IN (SELECT id FROM hit) ORDER BY r.id LIMIT ?2",
          pattern, limit, out);
  // Nodes, where a rewrite first made them and where one first replaced them.
  for (const char* side : {"after_id", "before_id"}) {
    const std::string sql = cat(
        "WITH first AS (SELECT m.", side, " AS node, MIN(m.pass_id * 4294967296 + m.idx) AS k FROM matches m"
        "               JOIN uops u ON u.id = m.", side,
        "               WHERE u.op LIKE ?1 ESCAPE '\\' OR u.dtype LIKE ?1 ESCAPE '\\' OR u.arg LIKE ?1 ESCAPE '\\'"
        "               GROUP BY m.", side, " ORDER BY k LIMIT ?2)"
        " SELECT p.context_id, c.name, p.id, p.name, f.k % 4294967296 + 1, NULL,"
        " u.op || ' ' || u.dtype || CASE WHEN u.arg = 'None' THEN '' ELSE ' ' || u.arg END,",
        std::string(side) == "after_id" ? "'made by '" : "'replaced by '", " || r.name"
        " FROM first f JOIN uops u ON u.id = f.node JOIN passes p ON p.id = f.k / 4294967296"
        " JOIN contexts c ON c.id = p.context_id"
        " JOIN matches m ON m.pass_id = p.id AND m.idx = f.k % 4294967296 JOIN rules r ON r.id = m.rule_id"
        " ORDER BY f.k");
    collect(db, Kind::Node, sql.c_str(), pattern, limit, out);
  }
  return out;
}

} // namespace loupe
