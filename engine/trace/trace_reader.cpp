#include "trace/trace_reader.h"

#include "ir/buffer_ref.h"
#include "shape/shapetracker.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_map>

#include "support/error.h"
#include "support/json.h"
#include "trace/arg_codec.h"
#include "trace/schema.h"
#include "trace/trace_lock.h"

namespace loupe {

namespace {

const char* kPassColumns =
    "p.id, p.context_id, p.parent_id, p.name, p.file, p.line, p.bottom_up, p.depth, p.input_id, p.result_id,"
    " COALESCE(p.match_count, (SELECT COUNT(*) FROM matches m WHERE m.pass_id = p.id)), p.start_ns, p.end_ns";

// Rewrites nest a few levels deep (a rule's callback rewriting a subgraph); far more is damage.
constexpr int64_t kMaxPassDepth = 4096;

const char* kMatchColumns =
    "m.pass_id, m.idx, m.before_id, m.after_id, m.rule_id, COALESCE(r.name, '?'), COALESCE(r.file, '?'),"
    " COALESCE(r.line, 0), m.ns";

// A cached statement in use; resetting it on scope exit ends its read snapshot, so later queries
// see what the writer committed since.
class Query {
public:
  explicit Query(SqliteStmt& s) : s_(s) {}
  ~Query() { s_.reset(); }
  template <typename T> Query& bind(int i, const T& v) {
    s_.bind(i, v);
    return *this;
  }
  bool step() { return s_.step(); }
  bool is_null(int c) const { return s_.is_null(c); }
  int64_t int64(int c) const { return s_.int64(c); }
  double real(int c) const { return s_.real(c); }
  std::string text(int c) const { return s_.text(c); }
  SqliteStmt& stmt() { return s_; }

private:
  SqliteStmt& s_;
};

TraceMatch read_match(Query& st) {
  TraceMatch m;
  m.pass_id = st.int64(0);
  m.index = st.int64(1);
  m.before_id = st.int64(2);
  m.after_id = st.int64(3);
  m.rule_id = st.int64(4);
  m.rule_name = st.text(5);
  m.rule_file = st.text(6);
  m.rule_line = st.int64(7);
  m.ns = st.int64(8);
  return m;
}

// What UOp::make and the printers read from src/arg without checking: a damaged or crafted row must
// be refused here instead of reaching them.
std::string unbuildable(Ops op, const UOpList& src, const Arg& arg) {
  auto need = [&](size_t n, bool exact) -> std::string {
    if (exact ? src.size() == n : src.size() >= n) return "";
    return cat(op_name(op), " needs ", exact ? "" : "at least ", n, " source(s), has ", src.size());
  };
  if (op_in(op, kUnary)) return need(1, true);
  if (op_in(op, kBinary)) return need(2, true);
  if (op_in(op, kTernary)) return need(3, true);
  switch (op) {
  case Ops::CAST:
  case Ops::BITCAST:
  case Ops::BIND: return need(1, false);
  case Ops::DEFINE_VAR: {
    if (!arg.is_tuple() || arg.as_tuple().size() < 3) return "DEFINE_VAR needs an arg (name, min, max)";
    const auto& t = arg.as_tuple();
    if (!t[0].is_string() || !t[1].is_int() || !t[2].is_int()) return "DEFINE_VAR needs an arg (name, min, max)";
    return "";
  }
  case Ops::SPECIAL:
    if (arg.is_string() || (arg.is_tuple() && !arg.as_tuple().empty() && arg.as_tuple()[0].is_string())) return "";
    return "SPECIAL needs a name in its arg";
  case Ops::VCONST:
    if (!arg.is_tuple()) return "VCONST needs a tuple arg";
    for (const Arg& a : arg.as_tuple())
      if (!a.is_number()) return "VCONST needs numbers in its arg";
    return "";
  default: return "";
  }
}

// SQLite's own header, read before SQLite sees the file: names the common problems plainly. Returns
// whether the file can be opened immutable: a WAL-mode file with no -wal beside it has every committed
// page in itself and no writer (a writer keeps its -wal while it lives); a rollback-journal file (how a
// finished trace is left) with no -journal has nothing to roll back. Either opens without locks or side
// files, from a read-only folder too; one that a writer may still change never is.
bool check_header(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(cat(path, ": no such file"));
  if (fs::is_directory(path, ec)) throw Error(cat(path, ": is a directory, not a trace file"));
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error(cat(path, ": cannot read the file (", ec.message(), ")"));
  if (size == 0) throw Error(cat(path, ": the file is empty (not a Loupe trace)"));
  std::ifstream in(path, std::ios::binary);
  unsigned char h[100] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  size_t got = size_t(in.gcount());
  if (got < 16 || std::memcmp(h, "SQLite format 3", 16) != 0)
    throw Error(cat(path, ": not a SQLite database (wrong file type), so not a Loupe trace"));
  if (got < 100) throw Error(cat(path, ": the file is truncated (", size, " bytes, shorter than SQLite's header)"));
  auto be32 = [&](int o) { return uint32_t(h[o]) << 24 | uint32_t(h[o + 1]) << 16 | uint32_t(h[o + 2]) << 8 | h[o + 3]; };
  uint64_t page = uint64_t(h[16]) << 8 | h[17];
  if (page == 1) page = 65536;
  uint64_t pages = be32(28);
  // The page count is trustworthy only when its "valid for" counter matches, and only without a WAL
  // (committed pages may still live in the -wal file).
  bool counted = pages != 0 && be32(92) == be32(24);
  uint64_t wal_size = fs::exists(path + "-wal", ec) ? fs::file_size(path + "-wal", ec) : 0;
  if (counted && wal_size == 0 && size < pages * page)
    throw Error(cat(path, ": the file is truncated (", size, " bytes, but its header says ", pages * page, ")"));
  const bool wal_mode = h[18] == 2 && h[19] == 2;
  const bool wal_file = fs::exists(path + "-wal", ec), journal = fs::exists(path + "-journal", ec);
  if (wal_mode) return !wal_file && !TraceFileLock::is_being_written(path);
  return !journal && !TraceFileLock::is_being_written(path);
}

} // namespace

const KernelSource* TraceKernel::source(const std::string& variant, const std::string& backend) const {
  for (const KernelSource& s : sources)
    if (s.variant == variant && (backend.empty() || s.backend == backend)) return &s;
  return nullptr;
}

int64_t TraceReader::committed_contexts(const std::string& path) noexcept {
  try {
    SqliteDb db(path, SqliteDb::Mode::read_only);
    if (!trace_schema::has_table(db, "contexts")) return 0;
    return db.query_int("SELECT count(*) FROM contexts");
  } catch (const std::exception&) {
    return 0;
  }
}

TraceReader::TraceReader(const std::string& path, TraceReaderOptions opts) {
  // decoders of engine objects carried as args; called explicitly so a reader-only program links them
  register_shapetracker_arg();
  register_buffer_ref_arg();
  const bool settled = check_header(path);
  db_ = std::make_unique<SqliteDb>(path, settled ? SqliteDb::Mode::read_only_immutable : SqliteDb::Mode::read_only);
  trace_schema::check(*db_, opts.quick_check);
  has_provenance_ = trace_schema::has_table(*db_, "kernel_provenance");
  has_beam_ = trace_schema::has_table(*db_, "beam_candidates");
  has_inputs_ = trace_schema::has_table(*db_, "kernel_inputs");
  has_digests_ = trace_schema::has_table(*db_, "kernel_input_digests");
  has_samples_ = trace_schema::has_table(*db_, "kernel_samples") && trace_schema::has_table(*db_, "kernel_sample_sites");
  has_stalls_ = trace_schema::has_table(*db_, "kernel_sample_stalls");
  has_metrics_ = trace_schema::has_table(*db_, "kernel_metrics");
  has_listings_ = trace_schema::has_table(*db_, "kernel_listings");
  has_roots_ = trace_schema::has_table(*db_, "schedule_roots");
  has_asts_ = trace_schema::has_table(*db_, "kernel_asts");
  has_info_ = trace_schema::has_table(*db_, "kernel_info");
  has_run_buffers_ = trace_schema::has_table(*db_, "run_buffers");
  has_run_vars_ = trace_schema::has_table(*db_, "run_vars");
  has_memory_plan_ = trace_schema::has_table(*db_, "memory_plan");
  has_rule_sources_ = trace_schema::has_table(*db_, "rule_sources");
  has_node_metadata_ = trace_schema::has_table(*db_, "uop_metadata") && trace_schema::has_table(*db_, "metadata_records");
  node_stmt_ = std::make_unique<SqliteStmt>(db_->prepare(
      has_node_metadata_ ? "SELECT u.id, u.op, u.dtype, u.src, u.arg, u.arg_code, u.key, m.op, m.file, m.line, m.function, m.id FROM uops u"
                           " LEFT JOIN uop_metadata um ON um.uop_id = u.id LEFT JOIN metadata_records m ON m.id = um.metadata_id"
                           " WHERE u.id = ?"
                         : "SELECT id, op, dtype, src, arg, arg_code, key, NULL, NULL, NULL, NULL, NULL FROM uops WHERE id = ?"));
  // a trace from before key schemes were recorded (or from another scheme) has keys this engine
  // does not make: its nodes are rebuilt and checked in every other way
  same_key_scheme_ = meta()["uop_key_scheme"] == std::to_string(UOp::kKeyScheme);
}

TraceReader::~TraceReader() = default;

TraceReader::ReadBatch::ReadBatch(TraceReader& r) {
  if (r.db_->in_transaction()) return;
  r.db_->begin();
  db_ = r.db_.get();
}

TraceReader::ReadBatch::~ReadBatch() {
  if (!db_) return;
  try {
    db_->commit();
  } catch (const std::exception&) {
    // ending a read-only transaction cannot lose anything
  }
}

// Statements are prepared once per reader (listing thousands of contexts reuses them).
SqliteStmt& TraceReader::cached(const std::string& sql) {
  std::unique_ptr<SqliteStmt>& st = stmts_[sql];
  if (!st) st = std::make_unique<SqliteStmt>(db_->prepare(sql));
  st->reset();
  return *st;
}

void TraceReader::bad(const std::string& where, const std::string& problem) const {
  throw Error(cat(path(), ": ", where, ": ", problem));
}

std::map<std::string, std::string> TraceReader::meta() {
  std::map<std::string, std::string> m;
  Query st(cached("SELECT key, value FROM meta"));
  while (st.step()) m[st.text(0)] = st.text(1);
  return m;
}

std::map<std::string, std::string> TraceReader::run_info() {
  std::map<std::string, std::string> m;
  Query st(cached("SELECT key, value FROM run_info"));
  while (st.step()) m[st.text(0)] = st.text(1);
  return m;
}

bool TraceReader::finished() { return meta()["finished"] == "1"; }

std::vector<TraceContext> TraceReader::contexts() {
  std::vector<TraceContext> out;
  Query st(cached(
      "SELECT c.id, c.parent_id, c.kind, " LOUPE_SQL_CONTEXT_NAME ", c.start_ns, c.end_ns,"
      " (SELECT COUNT(*) FROM passes p WHERE p.context_id = c.id),"
      " (SELECT COALESCE(SUM(COALESCE(p.match_count, (SELECT COUNT(*) FROM matches m WHERE m.pass_id = p.id))), 0)"
      "  FROM passes p WHERE p.context_id = c.id), c.name"
      " FROM contexts c" LOUPE_SQL_KERNEL_NAMES "ORDER BY c.id"));
  while (st.step()) {
    TraceContext c;
    c.id = st.int64(0);
    c.parent_id = st.is_null(1) ? -1 : st.int64(1);
    // parents are recorded before their children: a later (or its own) parent is a damaged or crafted row
    // that would make the tree a cycle
    if (!st.is_null(1) && (c.parent_id <= 0 || c.parent_id >= c.id))
      bad(cat("table contexts, context ", c.id), cat("its parent ", st.int64(1), " is not an earlier context"));
    c.kind = st.text(2);
    c.name = st.text(3);
    c.start_ns = st.int64(4);
    c.end_ns = st.is_null(5) ? -1 : st.int64(5);
    c.pass_count = st.int64(6);
    c.match_count = st.int64(7);
    if (std::string recorded = st.text(8); recorded != c.name) c.planned_name = std::move(recorded);
    out.push_back(std::move(c));
  }
  return out;
}

TracePass TraceReader::read_pass(SqliteStmt& st, int64_t index) {
  TracePass p;
  p.id = st.int64(0);
  p.context_id = st.int64(1);
  p.parent_id = st.is_null(2) ? -1 : st.int64(2);
  p.index = index;
  p.name = st.text(3);
  p.file = st.text(4);
  p.line = st.int64(5);
  p.bottom_up = st.int64(6) != 0;
  if (!st.is_null(2) && (p.parent_id <= 0 || p.parent_id >= p.id))
    bad(cat("table passes, pass ", p.id), cat("its parent ", st.int64(2), " is not an earlier pass"));
  if (st.int64(7) < 0 || st.int64(7) > kMaxPassDepth)
    bad(cat("table passes, pass ", p.id), cat("nesting depth ", st.int64(7), " is out of range (0..", kMaxPassDepth, ")"));
  p.depth = int(st.int64(7));
  p.input_id = st.int64(8);
  p.result_id = st.is_null(9) ? -1 : st.int64(9);
  p.match_count = st.int64(10);
  p.start_ns = st.int64(11);
  p.end_ns = st.is_null(12) ? -1 : st.int64(12);
  return p;
}

std::vector<TracePass> TraceReader::passes(int64_t context_id) {
  std::vector<TracePass> out;
  Query st(cached(cat("SELECT ", kPassColumns, " FROM passes p WHERE p.context_id = ? ORDER BY p.id")));
  st.bind(1, context_id);
  while (st.step()) out.push_back(read_pass(st.stmt(), int64_t(out.size())));
  return out;
}

TracePass TraceReader::pass(int64_t pass_id) {
  Query st(cached(cat("SELECT ", kPassColumns, ", (SELECT COUNT(*) FROM passes q WHERE",
                                   " q.context_id = p.context_id AND q.id < p.id) FROM passes p WHERE p.id = ?")));
  st.bind(1, pass_id);
  if (!st.step()) bad("table passes", cat("no pass with id ", pass_id));
  return read_pass(st.stmt(), st.int64(13));
}

TracePass TraceReader::pass_at(int64_t context_id, int64_t index) {
  Query st(cached(
      cat("SELECT ", kPassColumns, " FROM passes p WHERE p.context_id = ? ORDER BY p.id LIMIT 1 OFFSET ?")));
  st.bind(1, context_id).bind(2, index);
  if (index < 0 || !st.step()) {
    int64_t n = 0;
    Query cnt(cached("SELECT COUNT(*) FROM passes WHERE context_id = ?"));
    cnt.bind(1, context_id);
    if (cnt.step()) n = cnt.int64(0);
    bad(cat("context ", context_id), n == 0 ? std::string("no such context, or it has no passes")
                                            : cat("no pass ", index, " (it has passes 0..", n - 1, ")"));
  }
  return read_pass(st.stmt(), index);
}

std::vector<TraceMatch> TraceReader::matches(int64_t pass_id, int64_t first, int64_t count) {
  std::vector<TraceMatch> out;
  Query st(cached(cat("SELECT ", kMatchColumns,
                                   " FROM matches m LEFT JOIN rules r ON r.id = m.rule_id"
                                   " WHERE m.pass_id = ? AND m.idx >= ? ORDER BY m.idx LIMIT ?")));
  st.bind(1, pass_id).bind(2, first).bind(3, count);
  while (st.step()) {
    out.push_back(read_match(st));
    if (out.back().index != first + int64_t(out.size()) - 1)
      bad(cat("table matches, pass ", pass_id), cat("match ", first + int64_t(out.size()) - 1, " is missing"));
  }
  return out;
}

TraceMatch TraceReader::match(int64_t pass_id, int64_t index) {
  Query st(cached(cat("SELECT ", kMatchColumns,
                                   " FROM matches m LEFT JOIN rules r ON r.id = m.rule_id"
                                   " WHERE m.pass_id = ? AND m.idx = ?")));
  st.bind(1, pass_id).bind(2, index);
  if (!st.step()) bad(cat("pass ", pass_id), cat("no match ", index));
  return read_match(st);
}

std::vector<TraceRule> TraceReader::rules() {
  std::vector<TraceRule> out;
  SqliteStmt st = db_->prepare(has_rule_sources_
                                   ? "SELECT r.id, name, file, line, matches, match_ns, attempts, attempt_ns, s.text FROM rules r"
                                     " LEFT JOIN rule_sources s ON s.rule_id = r.id ORDER BY r.id"
                                   : "SELECT id, name, file, line, matches, match_ns, attempts, attempt_ns, NULL FROM rules ORDER BY id");
  while (st.step()) {
    TraceRule r;
    r.id = st.int64(0);
    r.name = st.text(1);
    r.file = st.text(2);
    r.line = st.int64(3);
    r.matches = st.int64(4);
    r.match_ns = st.int64(5);
    r.attempts = st.int64(6);
    r.attempt_ns = st.int64(7);
    if (!st.is_null(8)) r.source = st.text(8);
    out.push_back(std::move(r));
  }
  return out;
}

int64_t TraceReader::node_count() { return db_->query_int("SELECT COUNT(*) FROM uops"); }

void TraceReader::load_node_row(int64_t id, TraceNodeRow& row) {
  SqliteStmt& st = *node_stmt_;
  st.bind(1, id);
  if (!st.step()) {
    st.reset();
    bad("table uops", cat("node ", id, " is missing"));
  }
  row.id = st.int64(0);
  row.op = st.text(1);
  row.dtype = st.text(2);
  row.src = st.text(3);
  row.arg = st.text(4);
  row.arg_code = st.text(5);
  row.key = st.text(6);
  row.metadata = {};
  row.metadata_id = -1;
  if (!st.is_null(7)) {
    row.metadata = {st.text(7), st.text(8), int(st.int64(9)), st.text(10)};
    row.metadata_id = st.int64(11);
  }
  st.reset();
}

TraceNodeRow TraceReader::node_row(int64_t id) {
  TraceNodeRow row;
  load_node_row(id, row);
  return row;
}

// Iterative (graphs can be deep chains): sources are built before the node. Stored sources always
// have smaller ids than their node, which also rules out cycles in a damaged file.
UOpPtr TraceReader::node(int64_t root_id) {
  if (auto it = nodes_.find(root_id); it != nodes_.end()) return it->second;
  ReadBatch batch(*this);
  struct Pending {
    TraceNodeRow row;
    std::vector<int64_t> src;
    size_t next = 0;
  };
  std::vector<Pending> stack;
  auto push = [&](int64_t id) {
    Pending p;
    load_node_row(id, p.row);
    auto where = [&] { return cat("table uops, node ", id); };  // built only for an error
    try {
      p.src = decode_ids(p.row.src);
    } catch (const Error& e) {
      bad(where(), e.what());
    }
    for (int64_t s : p.src)
      if (s <= 0 || s >= id) bad(where(), cat("source ", s, " is not an earlier node"));
    stack.push_back(std::move(p));
  };
  push(root_id);
  while (!stack.empty()) {
    Pending& p = stack.back();
    if (p.next < p.src.size()) {
      int64_t s = p.src[p.next++];
      if (!nodes_.count(s)) push(s);
      continue;
    }
    auto where = [&] { return cat("table uops, node ", p.row.id, " (", p.row.op, ")"); };
    auto op = op_from_name(p.row.op);
    if (!op) bad(where(), cat("unknown op '", p.row.op, "'"));
    UOpList src;
    for (int64_t s : p.src) src.push_back(nodes_.at(s));
    UOpPtr built;
    try {
      DType dtype = decode_dtype(p.row.dtype);
      Arg arg = decode_arg(p.row.arg_code);
      if (std::string why = unbuildable(*op, src, arg); !why.empty()) bad(where(), why);
      built = UOp::make(*op, dtype, std::move(src), std::move(arg));
    } catch (const Error& e) {
      if (std::string(e.what()).rfind(path(), 0) == 0) throw;
      bad(where(), e.what());
    } catch (const std::exception& e) {
      bad(where(), cat("cannot rebuild: ", e.what()));
    }
    if (same_key_scheme_ && built->key().hex() != p.row.key)
      bad(where(), cat("rebuilt key ", built->key().hex(), " differs from the stored key ", p.row.key,
                     " (written by an engine that hashes differently, or the row is damaged)"));
    if (p.row.metadata_id >= 0) {  // interned once per record, not per node
      auto [meta, fresh] = metadata_ids_.try_emplace(p.row.metadata_id, 0);
      if (fresh) meta->second = intern_metadata(p.row.metadata);
      built->set_metadata_once(meta->second);
    }
    nodes_.emplace(p.row.id, built);
    stack.pop_back();
  }
  return nodes_.at(root_id);
}

std::vector<TraceKernel> TraceReader::kernels() { return read_kernels(-1); }

std::vector<TraceKernel> TraceReader::read_kernels(int64_t only) {
  std::vector<TraceKernel> out;
  const std::string columns = "SELECT id, context_id, name, device, ast_id, opts, global_size, local_size, flops, lds, mem FROM kernels";
  Query st(cached(only < 0 ? columns + " ORDER BY id" : columns + " WHERE id = ?"));
  if (only >= 0) st.bind(1, only);
  while (st.step()) {
    TraceKernel k;
    k.id = st.int64(0);
    k.context_id = st.is_null(1) ? -1 : st.int64(1);
    k.name = st.text(2);
    k.device = st.text(3);
    k.ast_id = st.is_null(4) ? -1 : st.int64(4);
    auto where = [&] { return cat("table kernels, kernel ", k.id); };
    try {
      json::Value opts = json::parse(st.text(5));
      for (const json::Value& v : opts.as_array("opts")) k.opts.push_back(v.as_string("an opt"));
      k.global_size = json::parse(st.text(6)).as_ints("global_size");
      k.local_size = json::parse(st.text(7)).as_ints("local_size");
    } catch (const Error& e) {
      bad(where(), e.what());
    }
    k.flops = st.int64(8);
    k.lds = st.int64(9);
    k.mem = st.int64(10);
    out.push_back(std::move(k));
  }
  if (has_info_ && !out.empty()) {
    std::unordered_map<int64_t, size_t> at;
    for (size_t i = 0; i < out.size(); i++) at[out[i].id] = i;
    const std::string info = "SELECT kernel_id, axis_kinds, dont_use_locals, ast_key FROM kernel_info";
    Query ax(cached(only < 0 ? info : info + " WHERE kernel_id = ?"));
    if (only >= 0) ax.bind(1, only);
    while (ax.step()) {
      auto it = at.find(ax.int64(0));
      if (it == at.end()) continue;
      TraceKernel& k = out[it->second];
      try {
        json::Value kinds = json::parse(ax.text(1));  // kept alive: the loop reads into it
        for (const json::Value& v : kinds.as_array("kinds")) k.axis_kinds.push_back(v.as_string("an axis kind"));
      } catch (const Error& e) {
        bad(cat("table kernel_info, kernel ", k.id), e.what());
      }
      k.dont_use_locals = ax.int64(2) != 0;
      k.ast_key = ax.text(3);
    }
  }
  return out;
}

TraceKernel TraceReader::kernel(int64_t id) {
  // one row, not the whole table: callers ask kernel by kernel (the app's panels, trace --diff)
  std::vector<TraceKernel> one = read_kernels(id);
  const bool found = !one.empty();
  TraceKernel k = found ? std::move(one.front()) : TraceKernel{};
  if (!found) bad("table kernels", cat("no kernel with id ", id));
  Query src(cached("SELECT variant, backend, source FROM kernel_sources WHERE kernel_id = ? ORDER BY variant, backend"));
  src.bind(1, id);
  while (src.step()) k.sources.push_back({src.text(1), src.text(0), src.text(2)});
  Query buf(cached(
      "SELECT idx, name, access, dtype, st, st_kind, st_code FROM kernel_buffers WHERE kernel_id = ? ORDER BY idx"));
  buf.bind(1, id);
  while (buf.step()) {
    BufferAccess b;
    b.index = int(buf.int64(0));
    b.name = buf.text(1);
    b.access = buf.text(2);
    b.dtype = buf.text(3);
    b.st_text = buf.text(4);
    b.st_kind = buf.text(5);
    b.st_code = buf.text(6);
    k.buffers.push_back(std::move(b));
  }
  if (has_provenance_) {
    Query prov(cached("SELECT op, file, line, function FROM kernel_provenance WHERE kernel_id = ? ORDER BY idx"));
    prov.bind(1, id);
    while (prov.step()) k.provenance.push_back({prov.text(0), prov.text(1), int(prov.int64(2)), prov.text(3)});
  }
  if (has_asts_) {
    Query a(cached("SELECT scheduled_ast_id FROM kernel_asts WHERE kernel_id = ?"));
    a.bind(1, id);
    if (a.step()) k.scheduled_ast_id = a.int64(0);
  }
  if (has_beam_) {
    Query beam(cached("SELECT round, opts, seconds, wall_seconds, status, chosen FROM beam_candidates WHERE kernel_id = ? ORDER BY idx"));
    beam.bind(1, id);
    while (beam.step()) {
      BeamCandidate c;
      c.round = int(beam.int64(0));
      try {
        const json::Value opts = json::parse(beam.text(1));
        for (const json::Value& v : opts.as_array("opts")) c.opts.push_back(v.as_string("an opt"));
      } catch (const Error& e) {
        bad(cat("table beam_candidates, kernel ", id), e.what());
      }
      c.seconds = beam.is_null(2) ? std::numeric_limits<double>::infinity() : beam.real(2);
      c.wall_seconds = beam.real(3);
      c.status = beam.text(4);
      c.chosen = beam.int64(5) != 0;
      k.beam.push_back(std::move(c));
    }
  }
  return k;
}

std::vector<std::string> TraceReader::kernel_inputs(int64_t id) {
  std::vector<std::string> out;
  if (!has_inputs_) return out;
  Query q(cached("SELECT bytes FROM kernel_inputs WHERE kernel_id = ? ORDER BY idx"));
  q.bind(1, id);
  while (q.step()) out.push_back(q.text(0));
  return out;
}

std::vector<std::pair<int64_t, std::string>> TraceReader::schedule_roots(int64_t context_id) {
  std::vector<std::pair<int64_t, std::string>> out;
  if (!has_roots_) return out;
  Query q(cached("SELECT node_id, ast_key FROM schedule_roots WHERE context_id = ? ORDER BY idx"));
  q.bind(1, context_id);
  while (q.step()) out.emplace_back(q.int64(0), q.text(1));
  return out;
}

bool TraceReader::has_kernel_inputs(int64_t id) {
  if (!has_inputs_) return false;
  Query q(cached("SELECT 1 FROM kernel_inputs WHERE kernel_id = ? LIMIT 1"));
  q.bind(1, id);
  return q.step();
}

std::optional<TraceReader::InputDigestRow> TraceReader::kernel_input_digest(int64_t id) {
  if (!has_digests_) return std::nullopt;
  Query q(cached("SELECT bytes, digest FROM kernel_input_digests WHERE kernel_id = ?"));
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return InputDigestRow{q.int64(0), q.text(1)};
}

std::optional<KernelSamples> TraceReader::kernel_samples(int64_t kernel_id) {
  if (!has_samples_) return std::nullopt;
  Query q(cached("SELECT clock, period, runs, lost, cycles, instructions, cache_misses, branch_misses, functions"
                 " FROM kernel_samples WHERE kernel_id = ?"));
  q.bind(1, kernel_id);
  if (!q.step()) return std::nullopt;
  KernelSamples k;
  k.clock = q.text(0);
  k.period = q.int64(1), k.runs = q.int64(2), k.lost = q.int64(3);
  std::optional<int64_t>* counters[4] = {&k.counters.cycles, &k.counters.instructions, &k.counters.cache_misses,
                                         &k.counters.branch_misses};
  for (int i = 0; i < 4; i++)
    if (!q.is_null(4 + i)) *counters[i] = q.int64(4 + i);
  try {
    const json::Value functions = json::parse(q.text(8));
    for (const auto& [name, size] : functions.as_object("kernel_samples.functions"))
      k.function_sizes[name] = size.as_int(cat("the size of function ", name));
  } catch (const Error& e) {
    throw Error(cat(db_->path(), ": kernel ", kernel_id, "'s samples: ", e.what()));
  }
  Query sites(cached("SELECT function, offset, samples FROM kernel_sample_sites WHERE kernel_id = ?"));
  sites.bind(1, kernel_id);
  while (sites.step()) {
    const int64_t offset = sites.int64(1), n = sites.int64(2);
    if (offset >= 0) k.in_code[{sites.text(0), offset}] += n;
    else k.outside[sites.text(0)] += n;
  }
  if (has_stalls_) {
    Query stalls(cached("SELECT function, offset, reason, samples FROM kernel_sample_stalls WHERE kernel_id = ?"));
    stalls.bind(1, kernel_id);
    while (stalls.step()) k.stalls[{stalls.text(0), stalls.int64(1)}][stalls.text(2)] += stalls.int64(3);
  }
  return k;
}

std::optional<KernelMetrics> TraceReader::kernel_metrics(int64_t kernel_id) {
  if (!has_metrics_) return std::nullopt;
  Query q(cached("SELECT source, metrics, unavailable FROM kernel_metrics WHERE kernel_id = ?"));
  q.bind(1, kernel_id);
  if (!q.step()) return std::nullopt;
  KernelMetrics m;
  m.source = q.text(0);
  try {
    const json::Value values = json::parse(q.text(1)), unavailable = json::parse(q.text(2));
    for (const json::Value& pair : values.as_array("kernel_metrics.metrics")) {
      const json::Array& kv = pair.as_array("a metric");
      if (kv.size() != 2) throw Error("a metric is not a [key, value] pair");
      m.values.emplace_back(kv[0].as_string("a metric's key"), kv[1].number_or_nonfinite("a metric's value"));
    }
    for (const json::Value& why : unavailable.as_array("kernel_metrics.unavailable"))
      m.unavailable.push_back(why.as_string("an unavailable metric"));
  } catch (const Error& e) {
    throw Error(cat(db_->path(), ": kernel ", kernel_id, "'s metrics: ", e.what()));
  }
  return m;
}

std::vector<RecordedListing> TraceReader::kernel_listings(int64_t kernel_id) {
  std::vector<RecordedListing> out;
  if (!has_listings_) return out;
  Query q(cached("SELECT kind, title, how, lines FROM kernel_listings WHERE kernel_id = ? ORDER BY kind"));
  q.bind(1, kernel_id);
  while (q.step()) {
    RecordedListing l;
    l.kind = q.text(0), l.title = q.text(1), l.how = q.text(2);
    try {
      const json::Value rows = json::parse(q.text(3));
      for (const json::Value& row : rows.as_array("kernel_listings.lines")) {
        const json::Array& r = row.as_array("a listing row");
        if (r.size() != 2) throw Error("a listing row is not a [text, source line] pair");
        l.lines.push_back(r[0].as_string("a listing row's text"));
        l.source_lines.push_back(static_cast<int>(r[1].as_int("a listing row's source line")));
      }
    } catch (const Error& e) {
      throw Error(cat(db_->path(), ": kernel ", kernel_id, "'s ", l.kind, " listing: ", e.what()));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<int64_t> TraceReader::measured_kernels() {
  std::vector<int64_t> out;
  if (!has_metrics_) return out;
  Query q(cached("SELECT kernel_id FROM kernel_metrics ORDER BY kernel_id"));
  while (q.step()) out.push_back(q.int64(0));
  return out;
}

std::vector<int64_t> TraceReader::sampled_kernels() {
  std::vector<int64_t> out;
  if (!has_samples_) return out;
  Query q(cached("SELECT kernel_id FROM kernel_samples ORDER BY kernel_id"));
  while (q.step()) out.push_back(q.int64(0));
  return out;
}

std::vector<int64_t> TraceReader::kernels_named(const std::string& name) {
  std::vector<int64_t> out;
  // the name it ran under, or the one it was planned under (its context's)
  Query st(cached("SELECT k.id FROM kernels k LEFT JOIN contexts c ON c.id = k.context_id"
                  " WHERE k.name = ?1 OR c.name = ?1 ORDER BY k.id"));
  st.bind(1, name);
  while (st.step()) out.push_back(st.int64(0));
  return out;
}

std::vector<TraceEvent> TraceReader::profile() {
  std::vector<TraceEvent> out;
  Query st(cached(
      "SELECT id, kind, device, name, kernel_id, start_ns, duration_ns, flops, mem, lds, bytes, buffer, peer, args"
      " FROM profile ORDER BY start_ns, id"));
  while (st.step()) {
    TraceEvent e;
    e.id = st.int64(0);
    e.kind = st.text(1);
    e.device = st.text(2);
    e.name = st.text(3);
    e.kernel_id = st.is_null(4) ? -1 : st.int64(4);
    e.start_ns = st.int64(5);
    e.duration_ns = st.int64(6);
    e.flops = st.int64(7);
    e.mem = st.int64(8);
    e.lds = st.int64(9);
    e.bytes = st.int64(10);
    e.buffer = st.int64(11);
    e.peer = st.text(12);
    e.args = st.int64(13);
    out.push_back(std::move(e));
  }
  if (out.empty()) return out;
  std::unordered_map<int64_t, size_t> at;
  for (size_t i = 0; i < out.size(); i++) at[out[i].id] = i;
  if (has_run_buffers_) {
    Query rb(cached("SELECT event_id, buffer, writes FROM run_buffers ORDER BY rowid"));
    while (rb.step()) {
      auto it = at.find(rb.int64(0));
      if (it == at.end()) continue;
      (rb.int64(2) ? out[it->second].writes : out[it->second].reads).push_back(rb.int64(1));
    }
  }
  if (has_run_vars_) {
    Query rv(cached("SELECT event_id, name, value FROM run_vars ORDER BY event_id, idx"));
    while (rv.step())
      if (auto it = at.find(rv.int64(0)); it != at.end()) out[it->second].var_vals.emplace_back(rv.text(1), rv.int64(2));
  }
  if (has_memory_plan_) {
    Query mp(cached("SELECT event_id, buffer, shared, first_kernel, last_kernel FROM memory_plan ORDER BY rowid"));
    while (mp.step())
      if (auto it = at.find(mp.int64(0)); it != at.end())
        out[it->second].plan.push_back({mp.int64(1), mp.int64(2), mp.int64(3), mp.int64(4)});
  }
  return out;
}

std::vector<TraceTensorCall> TraceReader::tensor_calls() {
  std::vector<TraceTensorCall> out;
  if (!trace_schema::has_table(*db_, "tensor_calls")) return out;
  Query st(cached("SELECT m.op, m.file, m.line, m.function, c.start_ns, c.end_ns FROM tensor_calls c"
                  " JOIN metadata_records m ON m.id = c.metadata_id ORDER BY c.start_ns, c.id"));
  while (st.step()) out.push_back({{st.text(0), st.text(1), int(st.int64(2)), st.text(3)}, st.int64(4), st.int64(5)});
  return out;
}

std::vector<DevicePeaks> TraceReader::peaks() {
  std::vector<DevicePeaks> out;
  Query st(cached("SELECT device, peak_gflops, bandwidth_gbs FROM peaks ORDER BY device"));
  while (st.step()) out.push_back({st.text(0), st.real(1), st.real(2)});
  return out;
}

} // namespace loupe
