// TraceWriter: records a run into a *.loupe file (SQLite, WAL). It is a RewriteListener (every pass
// and match), plus calls for contexts, kernels, profile events, peaks and run settings.
//
// One writer per path (trace/trace_lock.h): a second writer to a path being written stops with an
// Error. Committed data is checkpointed into the main file about every second, so a writer killed or
// stopped by a full disk leaves a file that holds what was committed; a clean close leaves a single
// file in rollback-journal mode (no -wal/-shm beside it; it opens from a read-only folder).
//
// The calling thread only encodes records (ids, text forms) and queues them; a storage thread
// inserts them into SQLite and commits: at the end of every top-level pass (at most every
// min_commit_ms), after kernels and other rare records, and at least every commit_interval_ms. So a
// reader sees the trace grow and a killed writer loses at most the last interval. flush() returns
// when everything recorded before it is committed. A failure to write (disk full, ...) never throws
// into the engine: the writer stops recording, keeps what was committed, and reports it by error().
//
// Thread safety: all calls may come from any thread; passes are tracked per thread (nested
// graph_rewrite calls are nested passes).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "rewrite/listener.h"
#include "observe/observer.h"
#include "observe/records.h"
#include "trace/sqlite_db.h"
#include "trace/trace_lock.h"

namespace loupe {

class PatternMatcher;

struct TraceWriterOptions {
  int commit_interval_ms = 100;  // background commit period (bounds what a crash can lose)
  int min_commit_ms = 10;        // pass-end commits are skipped if the last one is more recent
  bool count_attempts = false;   // also time every rule attempt (rule profiler); slows rewriting
  int64_t max_bytes = 0;         // stop recording (keeping what is committed) past this size; 0: no cap
  int checkpoint_interval_ms = 1000;  // committed pages reach the main file at least this often
};

class TraceWriter : public RewriteListener, public ExecutionObserver {
public:
  // Creates (or replaces) the trace at path. Refuses to overwrite a file that is not a SQLite
  // database, so a mistyped path cannot destroy a script.
  explicit TraceWriter(const std::string& path, TraceWriterOptions opts = {});
  ~TraceWriter() override;  // commits everything and marks the trace finished
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Contexts group passes: "schedule", "kernel", ... Passes outside any context go to an implicit
  // context of kind "top". Returns the context id.
  int64_t begin_context(std::string_view kind, std::string_view name) override;
  void end_context() override;  // ends the innermost open context
  int64_t current_context() const;

  // RewriteListener
  void pass_begin(const PassInfo& pass, const UOpPtr& root) override;
  void match(const UOpPtr& before, const UOpPtr& after, const Rule& rule, double seconds) override;
  void pass_end(const PassInfo& pass, const UOpPtr& result) override;
  bool wants_attempts() const override { return opts_.count_attempts; }
  void attempt(const Rule& rule, bool matched, double seconds) override;

  // Stores a node and everything below it (each node once per trace); returns its trace id.
  int64_t node_id(const UOpPtr& node);

  int64_t record_kernel(const KernelRecord& k) override;  // returns the kernel id
  void add_kernel_source(int64_t kernel_id, const KernelSource& src);
  void record_kernel_run(const KernelRun& run) override;
  void record_alloc(const BufferAlloc& a) override;
  void record_free(const BufferFree& f) override;
  void record_copy(const BufferCopy& c) override;
  void record_peaks(const DevicePeaks& p);
  // Keeps the buffers of each kernel's first run while they fit Options::trace_inputs (TRACE_INPUTS).
  InputCapture input_capture(int64_t kernel_id, int64_t bytes) override;
  void record_inputs(const KernelInputs& inputs) override;
  void record_input_digest(int64_t kernel_id, int64_t bytes, const std::string& digest) override;
  void record_schedule_roots(const std::vector<ScheduleRoot>& roots) override;
  void record_tensor_call(const TensorCall& call) override;
  void record_kernel_samples(int64_t kernel_id, const KernelSamples& samples) override;
  void record_kernel_metrics(int64_t kernel_id, const KernelMetrics& metrics) override;
  void record_kernel_listing(int64_t kernel_id, const RecordedListing& listing) override;
  // The GPU kernels sampled so far whose listing is not recorded yet: id, name and the source that ran.
  struct KernelToList {
    int64_t id = 0;
    std::string name;
    KernelSource source;
  };
  std::vector<KernelToList> sampled_without_listing();
  // The devices kernels ran on so far, and those whose peaks were recorded (a trace's roofline needs
  // the peaks of each device it shows).
  std::vector<std::string> devices_with_kernel_runs() const;
  std::vector<std::string> devices_with_peaks() const;
  void record_run_info(const RunInfo& info);
  void set_run_setting(std::string_view key, std::string_view value);

  void flush();                          // commit now
  int64_t now_ns() const override;       // the trace's clock: ns since the writer opened
  const std::string& path() const { return path_; }
  std::string error() const;             // the first write failure, "" if none
  int64_t nodes_written() const;         // statistics
  int64_t matches_written() const;

private:
  struct OpenPass {
    int64_t id;
    int depth;
    int64_t matches = 0;
  };
  struct RuleStats {
    int64_t id;
    int64_t matches = 0, match_ns = 0, attempts = 0, attempt_ns = 0;
    bool dirty = false;
  };
  struct KeyHash {
    size_t operator()(const Hash128& h) const { return size_t(h.lo); }
  };

  // A node to store. Most are encoded to text on the storage thread (the node is immutable), but a
  // node that reaches an object arg (a BUFFER's, which owns the runtime storage) is encoded at once and
  // not held: holding it would keep the program's buffers alive until the next commit, and the trace's
  // own memory picture would show them living longer than they do.
  struct NodeRow {
    int64_t id;
    UOpPtr node;  // null when encoded already
    std::string src;
    std::string op = {}, dtype = {}, arg = {}, arg_code = {}, key = {};
    uint32_t metadata = 0;  // the node's provenance when stored (ir/metadata.h), 0 when none
  };
  using Task = std::function<void()>;  // runs on the storage thread, statements bound there
  struct ProfileRow {
    std::string kind, device, name;
    int64_t kernel_id, start_ns, duration_ns, flops, mem, lds, bytes, buffer;
    std::string peer;
    int64_t args;
    std::vector<int64_t> writes = {}, reads = {};  // run_buffers rows
    std::vector<MemoryShare> plan = {};            // memory_plan rows
    std::vector<std::pair<std::string, int64_t>> var_vals = {};  // run_vars rows
  };
  static constexpr size_t kMaxQueued = size_t(1) << 18;  // queued rows before producers wait

  template <typename F> void guarded(F&& body);
  int64_t ensure_node(const UOp* n);
  int64_t context_for_pass();
  RuleStats& rule_stats(const Rule& rule);
  void enqueue(Task t);
  void enqueue_profile(ProfileRow row);
  void request_commit();
  void store_loop();
  std::string checkpoint_now_and_then();  // storage thread; "" or the failure
  void store_batch(std::vector<NodeRow>& nodes, std::vector<Task>& tasks);

  std::string path_;
  TraceWriterOptions opts_;
  std::unique_ptr<TraceFileLock> lock_;  // this writer's claim on path_ (declared first: released last)
  std::unique_ptr<SqliteDb> db_;  // used by the storage thread only (after construction)
  std::map<std::string, std::string> identity_;  // meta's trace_id, machine_id, writer_uid
  std::chrono::steady_clock::time_point last_checkpoint_;  // storage thread
  bool uncheckpointed_ = false;  // commits since the last checkpoint (storage thread)
  std::chrono::steady_clock::time_point t0_;

  // Recording state, on the callers' threads.
  mutable std::mutex mutex_;
  struct StoredNode {
    int64_t id;
    bool reaches_object;  // it or a source has an object arg (see NodeRow)
  };
  std::unordered_map<Hash128, StoredNode, KeyHash> node_ids_;
  std::set<uint32_t> stored_metadata_;  // metadata_records written (storage thread)
  void store_metadata_record(uint32_t id);  // once per record (storage thread)
  int64_t next_node_id_ = 1, next_context_id_ = 1, next_pass_id_ = 1, next_kernel_id_ = 1, next_rule_id_ = 1;
  int64_t matches_written_ = 0;
  std::vector<int64_t> contexts_;  // open contexts, innermost last
  int64_t implicit_context_ = -1;
  std::unordered_map<std::thread::id, std::vector<OpenPass>> passes_;
  std::unordered_map<int64_t, RuleStats> rules_by_engine_id_;
  std::unordered_map<std::string, RuleStats> rules_by_location_;  // rules without a registry id
  // A pass started from Python records its rule set (rewrite/rule_origin.h's PassCallSite) once per
  // distinct set, with each rule's pattern, so Why not? can try rules that never fired after the program.
  void record_rule_set(int64_t pass_id, const PatternMatcher& pm);
  std::unordered_map<std::string, int64_t> rule_sets_;  // the set's rule ids as text -> rule_sets.id
  std::set<int64_t> patterns_written_;
  SqliteStmt ins_rule_pattern_, ins_rule_set_, ins_pass_rule_set_;
  std::chrono::steady_clock::time_point last_commit_request_;
  std::set<std::string> run_devices_, peak_devices_;
  std::set<int64_t> inputs_kept_;  // kernels whose inputs (or their digest) are kept
  std::map<int64_t, KernelToList> gpu_kernels_;  // CUDA kernels recorded, until their listing is
  std::set<int64_t> gpu_sampled_;                // those of them with PC samples
  std::set<int64_t> inputs_wanted_;  // kernels whose AST key TRACE_INPUTS_OF names

  // The queue between them.
  mutable std::mutex queue_mutex_;
  std::condition_variable queue_cv_;   // wakes the storage thread
  std::condition_variable done_cv_;    // wakes flush() and producers waiting for room
  std::vector<NodeRow> node_queue_;
  std::vector<Task> task_queue_;
  int64_t enqueued_ = 0, committed_ = 0;  // items
  bool commit_requested_ = false, stop_ = false;
  std::string error_;
  std::atomic<bool> failed_ = false;

  SqliteStmt ins_node_, ins_node_metadata_, ins_metadata_record_, ins_tensor_call_, ins_match_, ins_pass_, end_pass_, ins_rule_, ins_rule_source_, upd_rule_, ins_context_, end_context_,
      ins_kernel_, ins_source_, ins_buffer_, ins_info_, ins_provenance_, ins_beam_, ins_profile_, ins_run_buffer_, ins_run_var_, ins_plan_, ins_peaks_, ins_run_, ins_inputs_, ins_digest_, ins_roots_, ins_ast_, add_samples_, add_sample_site_, add_sample_stall_, ins_metrics_, ins_listing_;
  std::thread store_thread_;
};

} // namespace loupe
