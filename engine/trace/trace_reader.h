// TraceReader: opens a *.loupe file read-only and answers questions about it. Opening validates the
// file (SQLite, Loupe's application id, schema version, tables and columns, optionally a page-level
// quick_check); every problem is a loupe::Error naming the file and what is wrong. Nothing stored in
// the file is ever executed (see SqliteDb's read_only mode). Each query sees everything committed so
// far, so a trace that is still being written can be re-queried as it grows.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/uop.h"
#include "observe/kernel_metrics.h"
#include "observe/kernel_samples.h"
#include "observe/records.h"
#include "trace/sqlite_db.h"

namespace loupe {

// SQL for the name a context is shown under (the contexts table as `c`): a kernel's context by the name
// the kernel ran under (its opts applied), every other by its recorded name. One kernel, one name, in
// every listing, search and panel; the name it was planned under stays findable. A query that selects
// LOUPE_SQL_CONTEXT_NAME joins LOUPE_SQL_KERNEL_NAMES right after `contexts c`: the kernels are grouped
// once (the kernels table has no index by context, so a lookup per context row would scan it each time).
#define LOUPE_SQL_KERNEL_NAMES \
  " LEFT JOIN (SELECT context_id AS kn_context, name AS kn_name, MIN(id) FROM kernels GROUP BY context_id) kn" \
  " ON kn.kn_context = c.id "
#define LOUPE_SQL_CONTEXT_NAME "COALESCE(kn.kn_name, c.name)"

struct TraceContext {
  int64_t id = 0;
  int64_t parent_id = -1;
  std::string kind, name;  // name: LOUPE_SQL_CONTEXT_NAME
  std::string planned_name;  // a kernel's name before its opts, when that differs from `name` ("" otherwise)
  int64_t start_ns = 0, end_ns = -1;  // -1: still open (or the writer died)
  int64_t pass_count = 0, match_count = 0;
};

struct TracePass {
  int64_t id = 0, context_id = 0, parent_id = -1;
  int64_t index = 0;          // position within its context (as listed)
  std::string name, file;     // file:line of the graph_rewrite call
  int64_t line = 0;
  bool bottom_up = false;
  int depth = 0;
  int64_t input_id = 0;
  int64_t result_id = -1;     // -1: the pass never ended (an exception, or the writer was killed)
  int64_t match_count = 0;
  int64_t start_ns = 0, end_ns = -1;
  bool finished() const { return result_id >= 0; }
};

struct TraceMatch {
  int64_t pass_id = 0, index = 0;
  int64_t before_id = 0, after_id = 0;
  int64_t rule_id = 0;
  std::string rule_name, rule_file;
  int64_t rule_line = 0;
  int64_t ns = 0;             // time the rule took
};

struct TraceRule {
  int64_t id = 0;
  std::string name, file;
  int64_t line = 0;
  std::string source;  // the rule's text as written (empty in traces from before it was recorded)
  int64_t matches = 0, match_ns = 0, attempts = 0, attempt_ns = 0;
};

struct TraceKernel {
  int64_t id = 0, context_id = -1;
  std::string name, device;
  int64_t ast_id = -1;            // with the opts' views (what the Kernel panels show)
  int64_t scheduled_ast_id = -1;  // as scheduled, before any opt (kernel(id) only; -1 in older traces)
  std::vector<std::string> opts;
  std::vector<int64_t> global_size, local_size;
  int64_t flops = 0, lds = 0, mem = 0;
  std::vector<KernelSource> sources;
  std::vector<BufferAccess> buffers;
  std::vector<Metadata> provenance;  // the tensor ops it computes and the user's lines (empty in older traces)
  std::vector<std::string> axis_kinds;  // KernelRecord::axis_kinds (empty in older traces)
  bool dont_use_locals = false;
  std::string ast_key;  // KernelRecord::ast_key ("" in older traces)
  std::vector<BeamCandidate> beam;  // BEAM's candidates, in the order timed (kernel(id) only; empty without a search)
  const KernelSource* source(const std::string& variant, const std::string& backend = "") const;
};

struct TraceEvent {
  int64_t id = 0;
  std::string kind;           // "kernel", "copy", "alloc", "free"
  std::string device, name;
  int64_t kernel_id = -1;
  int64_t start_ns = 0, duration_ns = 0;
  int64_t flops = 0, mem = 0, lds = 0, bytes = 0, buffer = -1;
  std::string peer;           // copies: the source device
  int64_t args = 0;
  std::vector<int64_t> writes, reads;  // kernel runs: the buffers (Buffer ids) written and read
  std::vector<MemoryShare> plan;       // jit_capture: the memory planner's sharing
  // kernel runs of a kernel with symbolic shapes: its variables' values in this run, in parameter
  // order (empty for other kernels and in traces from before run_vars)
  std::vector<std::pair<std::string, int64_t>> var_vals;
};

// The stored form of a node, for display when it cannot be rebuilt.
struct TraceNodeRow {
  int64_t id = 0;
  std::string op, dtype, src, arg, arg_code, key;
  Metadata metadata;  // the tensor op and user line the node came from (all empty: none, or an older trace)
  int64_t metadata_id = -1;  // its metadata_records row, -1 for none
};

// A Tensor op the program called (TensorCall), with its provenance.
struct TraceTensorCall {
  Metadata call;
  int64_t start_ns = 0, end_ns = 0;
};

struct TraceReaderOptions {
  bool quick_check = true;  // read every page once at open to report corruption up front
};

class TraceReader {
public:
  // While one lives, all queries share one read transaction: one snapshot of the file and no
  // locking per query (decoding a large graph makes a query per node). Nests; keep it short-lived
  // so a growing trace's new commits become visible.
  class ReadBatch {
  public:
    explicit ReadBatch(TraceReader& r);
    ~ReadBatch();
    ReadBatch(const ReadBatch&) = delete;
    ReadBatch& operator=(const ReadBatch&) = delete;

  private:
    SqliteDb* db_ = nullptr;  // set when this batch opened the transaction
  };

  explicit TraceReader(const std::string& path, TraceReaderOptions opts = {});
  // How many contexts a trace (maybe still being written) holds so far; 0 when it cannot be read yet.
  // Cheap: no checks beyond opening it, for a viewer deciding whether a growing trace has anything to show.
  static int64_t committed_contexts(const std::string& path) noexcept;
  ~TraceReader();
  const std::string& path() const { return db_->path(); }

  std::map<std::string, std::string> meta();
  std::map<std::string, std::string> run_info();
  bool finished();  // the writer closed the trace cleanly

  std::vector<TraceContext> contexts();
  std::vector<TracePass> passes(int64_t context_id);
  TracePass pass(int64_t pass_id);
  TracePass pass_at(int64_t context_id, int64_t index);  // Error naming the context if out of range
  std::vector<TraceMatch> matches(int64_t pass_id, int64_t first = 0, int64_t count = -1);
  TraceMatch match(int64_t pass_id, int64_t index);
  std::vector<TraceRule> rules();

  // A stored node rebuilt through UOp::make with its decoded arg (memoized). Its key is checked
  // against the stored key; it carries its stored provenance (UOp::metadata) unless it had one already.
  // Throws loupe::Error naming the file, the node and the problem.
  UOpPtr node(int64_t id);
  TraceNodeRow node_row(int64_t id);
  int64_t node_count();

  std::vector<TraceKernel> kernels();  // without sources and buffers (cheap)
  TraceKernel kernel(int64_t id);      // with sources and buffers
  // The bytes of the kernel's buffers before its first run (parameter order), empty when the trace did
  // not keep them (TRACE_INPUTS limit, or an older trace).
  std::vector<std::string> kernel_inputs(int64_t id);
  bool has_kernel_inputs(int64_t id);  // without reading them
  // For a kernel whose buffers were too large to keep: their size and digest (InputDigest), when kept.
  struct InputDigestRow {
    int64_t bytes = 0;
    std::string digest;
  };
  std::optional<InputDigestRow> kernel_input_digest(int64_t id);
  // The nodes of a schedule context's graph that became kernels (ScheduleRoot), in schedule order:
  // (node id, AST key; "" for a copy). Empty for other contexts and older traces.
  std::vector<std::pair<int64_t, std::string>> schedule_roots(int64_t context_id);
  std::vector<int64_t> kernels_named(const std::string& name);
  // A kernel's hot-spot samples summed over its sampled runs (HOTSPOTS), or nothing when it was not
  // sampled (and in traces from before them). sampled_kernels(): the ids of those that were.
  std::optional<KernelSamples> kernel_samples(int64_t kernel_id);
  // A GPU kernel's hardware metrics (GPU_METRICS), or nothing when it was not measured.
  std::optional<KernelMetrics> kernel_metrics(int64_t kernel_id);
  std::vector<int64_t> measured_kernels();  // the kernels with metrics, by id
  // Disassemblies of a GPU kernel made where it ran (its SASS, beside its samples); none for most kernels.
  std::vector<RecordedListing> kernel_listings(int64_t kernel_id);
  std::vector<int64_t> sampled_kernels();
  std::vector<TraceEvent> profile();   // ordered by start time
  std::vector<DevicePeaks> peaks();
  std::vector<TraceTensorCall> tensor_calls();  // by start time; empty in traces without them

  SqliteDb& db() { return *db_; }

private:
  bool has_provenance_ = false;
  bool has_inputs_ = false;      // kernel_inputs (optional)
  bool has_digests_ = false;     // kernel_input_digests (optional)
  bool has_samples_ = false;     // kernel_samples and kernel_sample_sites (optional)
  bool has_stalls_ = false;      // kernel_sample_stalls (optional)
  bool has_metrics_ = false;     // kernel_metrics (optional)
  bool has_listings_ = false;    // kernel_listings (optional)
  bool has_roots_ = false;       // schedule_roots (optional)
  bool has_asts_ = false;        // kernel_asts (optional)
  bool has_beam_ = false;        // beam_candidates (optional)  // kernel_provenance (optional: traces from before it have none)
  // The kernels table with kernel_info's columns: every kernel, or only the one with id `only` (>= 0).
  std::vector<TraceKernel> read_kernels(int64_t only);
  bool has_info_ = false;        // kernel_info (optional, as above)
  bool has_run_vars_ = false;     // run_vars (optional)
  bool has_run_buffers_ = false;  // run_buffers (optional, likewise)
  bool has_memory_plan_ = false;  // memory_plan (optional, likewise)
  bool has_rule_sources_ = false;  // rule_sources (optional, likewise)
  bool has_node_metadata_ = false;  // uop_metadata and metadata_records (optional, likewise)
  [[noreturn]] void bad(const std::string& where, const std::string& problem) const;
  TracePass read_pass(SqliteStmt& st, int64_t index);
  void load_node_row(int64_t id, TraceNodeRow& row);
  SqliteStmt& cached(const std::string& sql);

  std::unique_ptr<SqliteDb> db_;
  bool same_key_scheme_ = true;  // the stored keys were made as UOp::key() makes them
  std::unordered_map<int64_t, UOpPtr> nodes_;
  std::unordered_map<int64_t, uint32_t> metadata_ids_;  // metadata_records id -> this process's interned id
  std::unique_ptr<SqliteStmt> node_stmt_;
  std::unordered_map<std::string, std::unique_ptr<SqliteStmt>> stmts_;
};

} // namespace loupe
