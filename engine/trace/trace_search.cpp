#include "trace/trace_search.h"

#include <cctype>
#include <unordered_set>

#include "support/error.h"
#include "support/source_path.h"
#include "trace/schema.h"
#include "trace/sqlite_db.h"
#include "trace/trace_reader.h"

namespace loupe {

namespace {

// `text` for a LIKE pattern, its own wildcards taken literally (with ESCAPE backslash).
std::string like_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// A LIKE pattern matching `text` anywhere.
std::string like_anywhere(const std::string& text) { return "%" + like_literal(text) + "%"; }

using Kind = TraceSearchHit::Kind;

// The rows of a query, (context_id, context name, pass_id, pass name, step, kernel_id, label,
// detail[, source file, line]: appended to the label), as hits; at most `limit` (the query asks for one
// more, to tell that there were more).
void read_hits(SqliteStmt& st, Kind kind, int limit, TraceSearchResult& out) {
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

// A query binding the pattern to ?1 and the limit + 1 to ?2.
void collect(SqliteDb& db, Kind kind, const char* sql, const std::string& pattern, int limit, TraceSearchResult& out) {
  SqliteStmt st = db.prepare(sql);
  st.bind(1, pattern).bind(2, int64_t(limit) + 1);
  read_hits(st, kind, limit, out);
}

} // namespace

const char* search_kind_name(Kind kind) {
  switch (kind) {
  case Kind::Kernel: return "kernel";
  case Kind::Pass: return "pass";
  case Kind::Rule: return "rule";
  case Kind::Node: return "node";
  case Kind::Source: return "from line";
  }
  return "?";
}

std::optional<SourceLineSpec> parse_source_line(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= text.size() || text.size() - colon > 8) return std::nullopt;
  for (size_t i = colon + 1; i < text.size(); i++)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  std::string file = text.substr(0, colon);
  if (file.find_first_of(" \t") != std::string::npos) return std::nullopt;
  return SourceLineSpec{file, std::stoi(text.substr(colon + 1))};
}

namespace {

// What a line of the user's program ended up in: the kernels computing its tensor ops, and per context
// the first rewrite that built a node from it (with how many rewrites did).
void search_source_line(TraceReader& reader, const SourceLineSpec& spec, int limit, TraceSearchResult& out) {
  SqliteDb& db = reader.db();
  // the file as typed ends the stored path: "model.py" finds "/home/u/model.py", not "mymodel.py"
  const std::string any_dir = "%/" + like_literal(spec.file);
  auto run = [&](const char* sql, Kind kind) {
    SqliteStmt st = db.prepare(sql);
    st.bind(1, spec.file).bind(2, any_dir).bind(3, int64_t(spec.line)).bind(4, int64_t(limit) + 1);
    read_hits(st, kind, limit, out);
  };
  if (trace_schema::has_table(db, "kernel_provenance"))
    run("SELECT k.context_id, " LOUPE_SQL_CONTEXT_NAME ", NULL, NULL, 0, k.id, k.name, 'computes ' || group_concat(DISTINCT kp.op)"
        " FROM kernel_provenance kp JOIN kernels k ON k.id = kp.kernel_id LEFT JOIN contexts c ON c.id = k.context_id " LOUPE_SQL_KERNEL_NAMES
        " WHERE (kp.file = ?1 OR kp.file LIKE ?2 ESCAPE '\\') AND kp.line = ?3"
        " GROUP BY k.id ORDER BY k.id LIMIT ?4",
        Kind::Source);
  if (trace_schema::has_table(db, "uop_metadata"))
    run("WITH hit AS (SELECT um.uop_id AS node, m.op AS op FROM uop_metadata um JOIN metadata_records m ON m.id = um.metadata_id"
        "             WHERE (m.file = ?1 OR m.file LIKE ?2 ESCAPE '\\') AND m.line = ?3),"
        " made AS (SELECT p.context_id AS ctx, MIN(m.pass_id * 4294967296 + m.idx) AS k, COUNT(*) AS n FROM matches m"
        "          JOIN passes p ON p.id = m.pass_id WHERE m.after_id IN (SELECT node FROM hit) GROUP BY p.context_id)"
        " SELECT f.ctx, " LOUPE_SQL_CONTEXT_NAME ", p.id, p.name, f.k % 4294967296 + 1, NULL,"
        " " LOUPE_SQL_CONTEXT_NAME " || ': ' || f.n || (CASE WHEN f.n = 1 THEN ' rewrite' ELSE ' rewrites' END) || ' built its nodes',"
        " 'the first by ' || r.name || ' in ' || p.name"
        " FROM made f JOIN contexts c ON c.id = f.ctx " LOUPE_SQL_KERNEL_NAMES " JOIN passes p ON p.id = f.k / 4294967296"
        " JOIN matches m ON m.pass_id = p.id AND m.idx = f.k % 4294967296 JOIN rules r ON r.id = m.rule_id"
        " ORDER BY f.k LIMIT ?4",
        Kind::Source);
}

} // namespace

TraceSearchResult search_trace(TraceReader& reader, const std::string& text, int limit) {
  TraceSearchResult out;
  if (text.empty()) return out;
  SqliteDb& db = reader.db();
  if (auto spec = parse_source_line(text)) search_source_line(reader, *spec, limit, out);
  const std::string pattern = like_anywhere(text);
  collect(db, Kind::Kernel,
          "SELECT k.context_id, " LOUPE_SQL_CONTEXT_NAME ", NULL, NULL, 0, k.id, k.name,"
          " k.device || ' · ' || k.opts || CASE WHEN c.name <> k.name THEN ' · planned as ' || c.name ELSE '' END"
          " FROM kernels k LEFT JOIN contexts c ON c.id = k.context_id " LOUPE_SQL_KERNEL_NAMES
          " WHERE k.name LIKE ?1 ESCAPE '\\' OR c.name LIKE ?1 ESCAPE '\\' ORDER BY k.id LIMIT ?2",
          pattern, limit, out);
  collect(db, Kind::Pass,
          "SELECT p.context_id, " LOUPE_SQL_CONTEXT_NAME ", p.id, p.name, 0, NULL, p.name,"
          " COALESCE(p.match_count, 0) || ' matches', p.file, p.line"
          " FROM passes p JOIN contexts c ON c.id = p.context_id " LOUPE_SQL_KERNEL_NAMES
          " WHERE p.name LIKE ?1 ESCAPE '\\' ORDER BY p.id LIMIT ?2",
          pattern, limit, out);
  // A rule leads to its first firing (one scan of the matches for all the rules found).
  collect(db, Kind::Rule,
          "WITH hit AS (SELECT id FROM rules WHERE name LIKE ?1 ESCAPE '\\' OR (file || ':' || line) LIKE ?1 ESCAPE '\\'),"
          " first AS (SELECT rule_id, MIN(pass_id * 4294967296 + idx) AS k FROM matches"
          "           WHERE rule_id IN (SELECT id FROM hit) GROUP BY rule_id)"
          " SELECT p.context_id, " LOUPE_SQL_CONTEXT_NAME ", p.id, p.name, f.k % 4294967296 + 1, NULL,"
          " r.name,"
          " CASE WHEN f.k IS NULL THEN 'never fired' ELSE r.matches || ' matches; the first one' END, r.file, r.line"
          " FROM rules r LEFT JOIN first f ON f.rule_id = r.id LEFT JOIN passes p ON p.id = f.k / 4294967296"
          " LEFT JOIN contexts c ON c.id = p.context_id " LOUPE_SQL_KERNEL_NAMES
          " WHERE r.id IN (SELECT id FROM hit) ORDER BY r.id LIMIT ?2",
          pattern, limit, out);
  // Nodes, where a rewrite first made them and where one first replaced them.
  for (const char* side : {"after_id", "before_id"}) {
    const std::string sql = cat(
        "WITH first AS (SELECT m.", side, " AS node, MIN(m.pass_id * 4294967296 + m.idx) AS k FROM matches m"
        "               JOIN uops u ON u.id = m.", side,
        "               WHERE u.op LIKE ?1 ESCAPE '\\' OR u.dtype LIKE ?1 ESCAPE '\\' OR u.arg LIKE ?1 ESCAPE '\\'"
        "               GROUP BY m.", side, " ORDER BY k LIMIT ?2)"
        " SELECT p.context_id, " LOUPE_SQL_CONTEXT_NAME ", p.id, p.name, f.k % 4294967296 + 1, NULL,"
        " u.op || ' ' || u.dtype || CASE WHEN u.arg = 'None' THEN '' ELSE ' ' || u.arg END,",
        std::string(side) == "after_id" ? "'made by '" : "'replaced by '", " || r.name"
        " FROM first f JOIN uops u ON u.id = f.node JOIN passes p ON p.id = f.k / 4294967296"
        " JOIN contexts c ON c.id = p.context_id " LOUPE_SQL_KERNEL_NAMES
        " JOIN matches m ON m.pass_id = p.id AND m.idx = f.k % 4294967296 JOIN rules r ON r.id = m.rule_id"
        " ORDER BY f.k");
    collect(db, Kind::Node, sql.c_str(), pattern, limit, out);
  }
  return out;
}

} // namespace loupe
