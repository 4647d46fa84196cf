#include "trace/schema.h"

#include <set>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "support/error.h"

namespace loupe::trace_schema {

namespace {

struct Table {
  const char* name;
  const char* ddl;                   // CREATE TABLE (and its indexes)
  std::vector<const char*> columns;  // what a reader needs to find
  bool optional = false;             // added later within the version: a trace without it reads no rows
};

// The graph and its rewrites: UOps, rules, contexts, passes and matches.
std::vector<Table> graph_tables() {
  return {
    {"meta", "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)", {"key", "value"}},
    {"run_info", "CREATE TABLE run_info(key TEXT PRIMARY KEY, value TEXT NOT NULL)", {"key", "value"}},
    {"uops",
     "CREATE TABLE uops(id INTEGER PRIMARY KEY, op TEXT NOT NULL, dtype TEXT NOT NULL, src TEXT NOT NULL,"
     " arg TEXT NOT NULL, arg_code TEXT NOT NULL, key TEXT NOT NULL)",
     {"id", "op", "dtype", "src", "arg", "arg_code", "key"}},
    {"rules",
     "CREATE TABLE rules(id INTEGER PRIMARY KEY, name TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,"
     " matches INTEGER NOT NULL DEFAULT 0, match_ns INTEGER NOT NULL DEFAULT 0,"
     " attempts INTEGER NOT NULL DEFAULT 0, attempt_ns INTEGER NOT NULL DEFAULT 0)",
     {"id", "name", "file", "line", "matches", "match_ns", "attempts", "attempt_ns"}},
    {"contexts",
     "CREATE TABLE contexts(id INTEGER PRIMARY KEY, parent_id INTEGER, kind TEXT NOT NULL, name TEXT NOT NULL,"
     " start_ns INTEGER NOT NULL, end_ns INTEGER)",
     {"id", "parent_id", "kind", "name", "start_ns", "end_ns"}},
    {"passes",
     "CREATE TABLE passes(id INTEGER PRIMARY KEY, context_id INTEGER NOT NULL, parent_id INTEGER,"
     " name TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, bottom_up INTEGER NOT NULL,"
     " depth INTEGER NOT NULL, input_id INTEGER NOT NULL, result_id INTEGER, match_count INTEGER,"
     " start_ns INTEGER NOT NULL, end_ns INTEGER);"
     "CREATE INDEX passes_by_context ON passes(context_id, id)",
     {"id", "context_id", "parent_id", "name", "file", "line", "bottom_up", "depth", "input_id", "result_id",
      "match_count", "start_ns", "end_ns"}},
    {"matches",
     "CREATE TABLE matches(pass_id INTEGER NOT NULL, idx INTEGER NOT NULL, before_id INTEGER NOT NULL,"
     " after_id INTEGER NOT NULL, rule_id INTEGER NOT NULL, ns INTEGER NOT NULL, PRIMARY KEY(pass_id, idx))"
     " WITHOUT ROWID",
     {"pass_id", "idx", "before_id", "after_id", "rule_id", "ns"}},
  };
}

// Kernels, their sources and buffers, their timings and runs.
std::vector<Table> kernel_tables() {
  return {
    {"kernels",
     "CREATE TABLE kernels(id INTEGER PRIMARY KEY, context_id INTEGER, name TEXT NOT NULL, device TEXT NOT NULL,"
     " ast_id INTEGER, opts TEXT NOT NULL, global_size TEXT NOT NULL, local_size TEXT NOT NULL,"
     " flops INTEGER NOT NULL, lds INTEGER NOT NULL, mem INTEGER NOT NULL);"
     "CREATE INDEX kernels_by_name ON kernels(name)",
     {"id", "context_id", "name", "device", "ast_id", "opts", "global_size", "local_size", "flops", "lds", "mem"}},
    {"kernel_sources",
     "CREATE TABLE kernel_sources(kernel_id INTEGER NOT NULL, variant TEXT NOT NULL, backend TEXT NOT NULL,"
     " source TEXT NOT NULL, PRIMARY KEY(kernel_id, variant, backend)) WITHOUT ROWID",
     {"kernel_id", "variant", "backend", "source"}},
    {"kernel_buffers",
     "CREATE TABLE kernel_buffers(kernel_id INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL,"
     " access TEXT NOT NULL, dtype TEXT NOT NULL, st TEXT NOT NULL, st_kind TEXT NOT NULL,"
     " st_code TEXT NOT NULL, PRIMARY KEY(kernel_id, idx)) WITHOUT ROWID",
     {"kernel_id", "idx", "name", "access", "dtype", "st", "st_kind", "st_code"}},
    {"profile",
     "CREATE TABLE profile(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, device TEXT NOT NULL, name TEXT NOT NULL,"
     " kernel_id INTEGER, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, flops INTEGER NOT NULL,"
     " mem INTEGER NOT NULL, lds INTEGER NOT NULL, bytes INTEGER NOT NULL, buffer INTEGER NOT NULL,"
     " peer TEXT NOT NULL, args INTEGER NOT NULL)",
     {"id", "kind", "device", "name", "kernel_id", "start_ns", "duration_ns", "flops", "mem", "lds", "bytes",
      "buffer", "peer", "args"}},
    {"peaks",
     "CREATE TABLE peaks(device TEXT PRIMARY KEY, peak_gflops REAL NOT NULL, bandwidth_gbs REAL NOT NULL)",
     {"device", "peak_gflops", "bandwidth_gbs"}},
    {"kernel_provenance",
     "CREATE TABLE kernel_provenance(kernel_id INTEGER NOT NULL, idx INTEGER NOT NULL, op TEXT NOT NULL,"
     " file TEXT NOT NULL, line INTEGER NOT NULL, function TEXT NOT NULL, PRIMARY KEY(kernel_id, idx)) WITHOUT ROWID",
     {"kernel_id", "idx", "op", "file", "line", "function"}, true},
    {"kernel_info",
     "CREATE TABLE kernel_info(kernel_id INTEGER PRIMARY KEY, axis_kinds TEXT NOT NULL, dont_use_locals INTEGER NOT NULL,"
     " ast_key TEXT NOT NULL)",
     {"kernel_id", "axis_kinds", "dont_use_locals", "ast_key"}, true},
    {"run_buffers",
     "CREATE TABLE run_buffers(event_id INTEGER NOT NULL, buffer INTEGER NOT NULL, writes INTEGER NOT NULL);"
     "CREATE INDEX run_buffers_by_buffer ON run_buffers(buffer)",
     {"event_id", "buffer", "writes"}, true},
    {"run_vars",
     "CREATE TABLE run_vars(event_id INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL,"
     " PRIMARY KEY(event_id, idx)) WITHOUT ROWID",
     {"event_id", "idx", "name", "value"}, true},
  };
}

// Added within the version (all optional): rule provenance, kernel inputs, BEAM, memory plan,
// tensor metadata, hot spots.
std::vector<Table> tables_added_later() {
  return {
    {"rule_sources",
     "CREATE TABLE rule_sources(rule_id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
     {"rule_id", "text"}, true},
    {"rule_patterns", "CREATE TABLE rule_patterns(rule_id INTEGER PRIMARY KEY, pattern TEXT NOT NULL)",
     {"rule_id", "pattern"}, true},
    {"rule_sets", "CREATE TABLE rule_sets(id INTEGER PRIMARY KEY, rules TEXT NOT NULL)", {"id", "rules"}, true},
    {"pass_rule_sets", "CREATE TABLE pass_rule_sets(pass_id INTEGER PRIMARY KEY, rule_set_id INTEGER NOT NULL)",
     {"pass_id", "rule_set_id"}, true},
    {"kernel_asts", "CREATE TABLE kernel_asts(kernel_id INTEGER PRIMARY KEY, scheduled_ast_id INTEGER NOT NULL)",
     {"kernel_id", "scheduled_ast_id"}, true},
    {"kernel_inputs",
     "CREATE TABLE kernel_inputs(kernel_id INTEGER NOT NULL, idx INTEGER NOT NULL, bytes BLOB NOT NULL,"
     " PRIMARY KEY(kernel_id, idx)) WITHOUT ROWID",
     {"kernel_id", "idx", "bytes"}, true},
    {"schedule_roots",
     "CREATE TABLE schedule_roots(context_id INTEGER NOT NULL, idx INTEGER NOT NULL, node_id INTEGER NOT NULL,"
     " ast_key TEXT NOT NULL, PRIMARY KEY(context_id, idx)) WITHOUT ROWID",
     {"context_id", "idx", "node_id", "ast_key"}, true},
    {"kernel_input_digests",
     "CREATE TABLE kernel_input_digests(kernel_id INTEGER PRIMARY KEY, bytes INTEGER NOT NULL, digest TEXT NOT NULL)",
     {"kernel_id", "bytes", "digest"}, true},
    {"beam_candidates",
     "CREATE TABLE beam_candidates(kernel_id INTEGER NOT NULL, idx INTEGER NOT NULL, round INTEGER NOT NULL,"
     " opts TEXT NOT NULL, seconds REAL, wall_seconds REAL NOT NULL, status TEXT NOT NULL, chosen INTEGER NOT NULL,"
     " PRIMARY KEY(kernel_id, idx)) WITHOUT ROWID",
     {"kernel_id", "idx", "round", "opts", "seconds", "wall_seconds", "status", "chosen"}, true},
    {"memory_plan",
     "CREATE TABLE memory_plan(event_id INTEGER NOT NULL, buffer INTEGER NOT NULL, shared INTEGER NOT NULL,"
     " first_kernel INTEGER NOT NULL, last_kernel INTEGER NOT NULL)",
     {"event_id", "buffer", "shared", "first_kernel", "last_kernel"}, true},
    {"metadata_records",
     "CREATE TABLE metadata_records(id INTEGER PRIMARY KEY, op TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,"
     " function TEXT NOT NULL)",
     {"id", "op", "file", "line", "function"}, true},
    {"uop_metadata",
     "CREATE TABLE uop_metadata(uop_id INTEGER PRIMARY KEY, metadata_id INTEGER NOT NULL);"
     "CREATE INDEX uop_metadata_by_record ON uop_metadata(metadata_id)",
     {"uop_id", "metadata_id"}, true},
    {"kernel_samples",
     "CREATE TABLE kernel_samples(kernel_id INTEGER PRIMARY KEY, clock TEXT NOT NULL, period INTEGER NOT NULL,"
     " runs INTEGER NOT NULL, lost INTEGER NOT NULL, cycles INTEGER, instructions INTEGER, cache_misses INTEGER,"
     " branch_misses INTEGER, functions TEXT NOT NULL)",
     {"kernel_id", "clock", "period", "runs", "lost", "cycles", "instructions", "cache_misses", "branch_misses",
      "functions"}, true},
    {"kernel_sample_sites",
     "CREATE TABLE kernel_sample_sites(kernel_id INTEGER NOT NULL, function TEXT NOT NULL, offset INTEGER NOT NULL,"
     " samples INTEGER NOT NULL, PRIMARY KEY(kernel_id, function, offset)) WITHOUT ROWID",
     {"kernel_id", "function", "offset", "samples"}, true},
    {"kernel_sample_stalls",
     "CREATE TABLE kernel_sample_stalls(kernel_id INTEGER NOT NULL, function TEXT NOT NULL, offset INTEGER NOT NULL,"
     " reason TEXT NOT NULL, samples INTEGER NOT NULL, PRIMARY KEY(kernel_id, function, offset, reason)) WITHOUT ROWID",
     {"kernel_id", "function", "offset", "reason", "samples"}, true},
    {"kernel_listings",
     "CREATE TABLE kernel_listings(kernel_id INTEGER NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL, how TEXT NOT NULL,"
     " lines TEXT NOT NULL, PRIMARY KEY(kernel_id, kind)) WITHOUT ROWID",
     {"kernel_id", "kind", "title", "how", "lines"}, true},
    {"kernel_metrics",
     "CREATE TABLE kernel_metrics(kernel_id INTEGER PRIMARY KEY, source TEXT NOT NULL, metrics TEXT NOT NULL,"
     " unavailable TEXT NOT NULL)",
     {"kernel_id", "source", "metrics", "unavailable"}, true},
    {"tensor_calls",
     "CREATE TABLE tensor_calls(id INTEGER PRIMARY KEY, metadata_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,"
     " end_ns INTEGER NOT NULL)",
     {"id", "metadata_id", "start_ns", "end_ns"}, true},
  };
}

// The tables of version 2 (the same as version 1's). Any change to a table here is a new version (and a SCHEMA.md entry).
const std::vector<Table>& tables() {
  static const std::vector<Table> t = [] {
    std::vector<Table> all = graph_tables();
    for (auto part : {kernel_tables(), tables_added_later()}) all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return t;
}

} // namespace

bool has_table(SqliteDb& db, const std::string& name) {
  SqliteStmt st = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
  st.bind(1, name);
  return st.step();
}

void create(SqliteDb& db) {
  db.begin();
  for (const Table& t : tables()) db.exec(t.ddl);
  db.exec(cat("PRAGMA application_id=", kApplicationId));
  db.exec(cat("PRAGMA user_version=", kVersion));
  db.exec(cat("INSERT INTO meta(key, value) VALUES ('format', 'loupe-trace'), ('schema_version', '", kVersion,
              "'), ('uop_key_scheme', '", UOp::kKeyScheme, "')"));
  db.commit();
}

void check(SqliteDb& db, bool deep) {
  const std::string& path = db.path();
  // The header fields come first: they are readable even when the rest of the file is damaged.
  int64_t app = db.query_int("PRAGMA application_id");
  int64_t version = db.query_int("PRAGMA user_version");
  std::set<std::string> present;
  {
    SqliteStmt st = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'");
    while (st.step()) present.insert(st.text(0));
  }
  if (app != kApplicationId) {
    if (present.empty()) throw Error(cat(path, ": not a Loupe trace (an empty SQLite database)"));
    throw Error(cat(path, ": not a Loupe trace (a SQLite database without Loupe's application id)"));
  }
  if (version < kOldestReadable || version > kVersion)
    throw Error(cat(path, ": trace schema version ", version, ", but this build of Loupe reads versions ", kOldestReadable, " to ",
                    kVersion, version > kVersion ? " (written by a newer Loupe)" : " (not a version Loupe ever wrote)"));
  for (const Table& t : tables()) {
    if (!present.count(t.name)) {
      if (t.optional) continue;
      throw Error(cat(path, ": not a valid trace: table '", t.name, "' is missing"));
    }
    std::set<std::string> cols;
    SqliteStmt st = db.prepare(cat("SELECT name FROM pragma_table_info('", t.name, "')"));
    while (st.step()) cols.insert(st.text(0));
    for (const char* c : t.columns)
      if (!cols.count(c))
        throw Error(cat(path, ": not a valid trace: table '", t.name, "' has no column '", c, "'"));
  }
  if (deep) {
    std::string problems;
    try {
      SqliteStmt st = db.prepare("PRAGMA quick_check(5)");
      while (st.step()) {
        std::string line = st.text(0);
        if (line == "ok") continue;
        problems += (problems.empty() ? "" : "; ") + line;
      }
    } catch (const Error&) {
      problems = "a page cannot be read";
    }
    if (!problems.empty()) throw Error(cat(path, ": the database is corrupt (damaged or truncated file): ", problems));
  }
}

} // namespace loupe::trace_schema
