#include "trace/trace_writer.h"

#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>

#include <unistd.h>

#include "rewrite/pattern_matcher.h"
#include "rewrite/rule_origin.h"
#include "rewrite/rule_source.h"
#include "support/options.h"
#include "support/error.h"
#include "support/json.h"
#include "trace/arg_codec.h"
#include "support/sha256.h"
#include "trace/schema.h"
#include "trace/trace_trust.h"
#include "trace/upat_codec.h"

namespace loupe {

namespace {

// A path may be replaced only if it is absent, empty, or already a Loupe trace.
void check_replaceable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  if (std::filesystem::is_directory(path, ec)) throw Error(cat(path, ": is a directory, cannot write a trace there"));
  if (std::filesystem::file_size(path, ec) == 0) return;
  std::ifstream in(path, std::ios::binary);
  unsigned char head[72] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  bool sqlite = in.gcount() >= 72 && std::memcmp(head, "SQLite format 3", 16) == 0;
  int32_t app = sqlite ? int32_t(uint32_t(head[68]) << 24 | uint32_t(head[69]) << 16 | uint32_t(head[70]) << 8 | head[71]) : 0;
  if (!sqlite || app != trace_schema::kApplicationId)
    throw Error(cat(path, ": exists and is not a Loupe trace; refusing to overwrite it"));
}

std::string ints_json(const std::vector<int64_t>& xs) { return json::Value::ints(xs).dump(); }

// 128 random bits, from the kernel's generator.
std::string random_trace_id() {
  unsigned char bytes[16] = {};
  std::ifstream in("/dev/urandom", std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  if (in.gcount() != sizeof bytes) {
    std::random_device rd;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) out += {hex[b >> 4], hex[b & 15]};
  return out;
}

std::string strings_json(const std::vector<std::string>& xs) {
  json::Value a = json::Value::array();
  for (const std::string& s : xs) a.push_back(s);
  return a.dump();
}

} // namespace

TraceWriter::TraceWriter(const std::string& path, TraceWriterOptions opts)
    : path_(path), opts_(opts), t0_(std::chrono::steady_clock::now()), last_commit_request_(t0_) {
  lock_ = std::make_unique<TraceFileLock>(path, check_replaceable);
  db_ = std::make_unique<SqliteDb>(path, SqliteDb::Mode::create);
  trace_schema::create(*db_);
  SqliteDb& db = *db_;
  if (opts_.max_bytes > 0) {
    int64_t page = db.query_int("PRAGMA page_size");
    db.query_int(cat("PRAGMA max_page_count = ", std::max<int64_t>(1, opts_.max_bytes / page)));
  }
  ins_node_ = db.prepare("INSERT INTO uops(id, op, dtype, src, arg, arg_code, key) VALUES (?,?,?,?,?,?,?)");
  ins_node_metadata_ = db.prepare("INSERT INTO uop_metadata(uop_id, metadata_id) VALUES (?,?)");
  ins_tensor_call_ = db.prepare("INSERT INTO tensor_calls(metadata_id, start_ns, end_ns) VALUES (?,?,?)");
  ins_metadata_record_ = db.prepare("INSERT INTO metadata_records(id, op, file, line, function) VALUES (?,?,?,?,?)");
  ins_match_ = db.prepare("INSERT INTO matches(pass_id, idx, before_id, after_id, rule_id, ns) VALUES (?,?,?,?,?,?)");
  ins_pass_ = db.prepare(
      "INSERT INTO passes(id, context_id, parent_id, name, file, line, bottom_up, depth, input_id, start_ns)"
      " VALUES (?,?,?,?,?,?,?,?,?,?)");
  end_pass_ = db.prepare("UPDATE passes SET result_id = ?, match_count = ?, end_ns = ? WHERE id = ?");
  ins_rule_ = db.prepare("INSERT INTO rules(id, name, file, line) VALUES (?,?,?,?)");
  ins_rule_source_ = db.prepare("INSERT INTO rule_sources(rule_id, text) VALUES (?,?)");
  ins_rule_pattern_ = db.prepare("INSERT INTO rule_patterns(rule_id, pattern) VALUES (?,?)");
  ins_rule_set_ = db.prepare("INSERT INTO rule_sets(id, rules) VALUES (?,?)");
  ins_pass_rule_set_ = db.prepare("INSERT INTO pass_rule_sets(pass_id, rule_set_id) VALUES (?,?)");
  upd_rule_ = db.prepare("UPDATE rules SET matches = ?, match_ns = ?, attempts = ?, attempt_ns = ? WHERE id = ?");
  ins_context_ = db.prepare("INSERT INTO contexts(id, parent_id, kind, name, start_ns) VALUES (?,?,?,?,?)");
  end_context_ = db.prepare("UPDATE contexts SET end_ns = ? WHERE id = ?");
  ins_kernel_ = db.prepare(
      "INSERT INTO kernels(id, context_id, name, device, ast_id, opts, global_size, local_size, flops, lds, mem)"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  ins_source_ = db.prepare("INSERT OR REPLACE INTO kernel_sources(kernel_id, variant, backend, source) VALUES (?,?,?,?)");
  ins_buffer_ = db.prepare(
      "INSERT OR REPLACE INTO kernel_buffers(kernel_id, idx, name, access, dtype, st, st_kind, st_code)"
      " VALUES (?,?,?,?,?,?,?,?)");
  ins_info_ = db.prepare("INSERT OR REPLACE INTO kernel_info(kernel_id, axis_kinds, dont_use_locals, ast_key) VALUES (?,?,?,?)");
  ins_ast_ = db.prepare("INSERT INTO kernel_asts(kernel_id, scheduled_ast_id) VALUES (?,?)");
  ins_inputs_ = db.prepare("INSERT INTO kernel_inputs(kernel_id, idx, bytes) VALUES (?,?,?)");
  ins_digest_ = db.prepare("INSERT INTO kernel_input_digests(kernel_id, bytes, digest) VALUES (?,?,?)");
  ins_roots_ = db.prepare("INSERT INTO schedule_roots(context_id, idx, node_id, ast_key) VALUES (?,?,?,?)");
  ins_beam_ = db.prepare(
      "INSERT INTO beam_candidates(kernel_id, idx, round, opts, seconds, wall_seconds, status, chosen) VALUES (?,?,?,?,?,?,?,?)");
  ins_provenance_ = db.prepare(
      "INSERT OR REPLACE INTO kernel_provenance(kernel_id, idx, op, file, line, function) VALUES (?,?,?,?,?,?)");
  ins_profile_ = db.prepare(
      "INSERT INTO profile(kind, device, name, kernel_id, start_ns, duration_ns, flops, mem, lds, bytes, buffer, peer,"
      " args) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  ins_run_buffer_ = db.prepare("INSERT INTO run_buffers(event_id, buffer, writes) VALUES (?,?,?)");
  ins_run_var_ = db.prepare("INSERT INTO run_vars(event_id, idx, name, value) VALUES (?,?,?,?)");
  ins_plan_ = db.prepare("INSERT INTO memory_plan(event_id, buffer, shared, first_kernel, last_kernel) VALUES (?,?,?,?,?)");
  ins_peaks_ = db.prepare("INSERT OR REPLACE INTO peaks(device, peak_gflops, bandwidth_gbs) VALUES (?,?,?)");
  ins_run_ = db.prepare("INSERT OR REPLACE INTO run_info(key, value) VALUES (?,?)");
  // a kernel's runs add up: counts are summed, a counter stays NULL (not counted) only while every run lacked it
  add_samples_ = db.prepare(
      "INSERT INTO kernel_samples(kernel_id, clock, period, runs, lost, cycles, instructions, cache_misses, branch_misses,"
      " functions) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(kernel_id) DO UPDATE SET runs = runs + excluded.runs,"
      " lost = lost + excluded.lost,"
      " cycles = CASE WHEN excluded.cycles IS NULL THEN cycles ELSE coalesce(cycles, 0) + excluded.cycles END,"
      " instructions = CASE WHEN excluded.instructions IS NULL THEN instructions"
      " ELSE coalesce(instructions, 0) + excluded.instructions END,"
      " cache_misses = CASE WHEN excluded.cache_misses IS NULL THEN cache_misses"
      " ELSE coalesce(cache_misses, 0) + excluded.cache_misses END,"
      " branch_misses = CASE WHEN excluded.branch_misses IS NULL THEN branch_misses"
      " ELSE coalesce(branch_misses, 0) + excluded.branch_misses END");
  add_sample_site_ = db.prepare(
      "INSERT INTO kernel_sample_sites(kernel_id, function, offset, samples) VALUES (?,?,?,?)"
      " ON CONFLICT(kernel_id, function, offset) DO UPDATE SET samples = samples + excluded.samples");
  add_sample_stall_ = db.prepare(
      "INSERT INTO kernel_sample_stalls(kernel_id, function, offset, reason, samples) VALUES (?,?,?,?,?)"
      " ON CONFLICT(kernel_id, function, offset, reason) DO UPDATE SET samples = samples + excluded.samples");
  ins_listing_ = db.prepare("INSERT OR IGNORE INTO kernel_listings(kernel_id, kind, title, how, lines) VALUES (?,?,?,?,?)");
  // a kernel is measured once: a second record (another process appending) keeps the first
  ins_metrics_ = db.prepare("INSERT OR IGNORE INTO kernel_metrics(kernel_id, source, metrics, unavailable) VALUES (?,?,?,?)");
  db.begin();
  SqliteStmt meta = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)");
  meta.bind(1, "created_unix").bind(2, std::to_string(std::time(nullptr))).run();
  meta.bind(1, "writer_pid").bind(2, std::to_string(::getpid())).run();
  meta.bind(1, "clock").bind(2, "ns since the writer opened (steady clock)").run();
  meta.bind(1, "finished").bind(2, "0").run();
  // who wrote it where (trace/trace_trust.h): the machine by a one-way id, a random id for this trace
  identity_ = {{"trace_id", random_trace_id()}, {"machine_id", this_machine_trace_id()}, {"writer_uid", std::to_string(::getuid())}};
  for (const auto& [k, v] : identity_) meta.bind(1, k).bind(2, v).run();
  db.commit();
  last_checkpoint_ = std::chrono::steady_clock::now();
  node_ids_.reserve(1 << 14);
  store_thread_ = std::thread([this] { store_loop(); });
}

TraceWriter::~TraceWriter() {
  {
    std::lock_guard lock(mutex_);
    if (!failed_) {
      int64_t now = now_ns();
      std::vector<int64_t> open = contexts_;
      if (implicit_context_ >= 0) open.push_back(implicit_context_);
      enqueue([this, now, open] {
        for (int64_t c : open) end_context_.bind(1, now).bind(2, c).run();
        db_->exec("UPDATE meta SET value = '1' WHERE key = 'finished'");
      });
      request_commit();
    }
  }
  {
    std::lock_guard lock(queue_mutex_);
    stop_ = true;
  }
  queue_cv_.notify_all();
  if (store_thread_.joinable()) store_thread_.join();
  if (failed_) return;
  try {
    db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");  // a finished trace is one self-contained file
  } catch (const std::exception& e) {
    std::cerr << "loupe: could not finish the trace " << path_ << ": " << e.what() << "\n";
    return;
  }
  try {
    // ... in rollback-journal mode: nothing beside it, and readable from a read-only folder. A viewer
    // that has it open keeps it in WAL mode (the switch needs the file to itself); readers cope with both,
    // so a refused switch is no failure and says nothing (it used to end a script's output in the app).
    db_->set_busy_timeout(0);
    db_->exec_unless_locked("PRAGMA journal_mode=DELETE");
  } catch (const std::exception& e) {
    std::cerr << "loupe: could not finish the trace " << path_ << ": " << e.what() << "\n";
  }
}

// Runs a recording call under the state lock; a failure disables recording instead of throwing
// into the engine.
template <typename F> void TraceWriter::guarded(F&& body) {
  if (failed_) return;
  std::lock_guard lock(mutex_);
  try {
    body();
  } catch (const std::exception& e) {
    std::lock_guard q(queue_mutex_);
    if (error_.empty()) error_ = e.what();
    failed_ = true;
    std::cerr << "loupe: trace recording stopped: " << error_ << "\n";
  }
}

std::string TraceWriter::error() const {
  std::lock_guard lock(queue_mutex_);
  return error_;
}

int64_t TraceWriter::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count();
}

int64_t TraceWriter::nodes_written() const {
  std::lock_guard lock(mutex_);
  return next_node_id_ - 1;
}

int64_t TraceWriter::matches_written() const {
  std::lock_guard lock(mutex_);
  return matches_written_;
}

void TraceWriter::enqueue(Task t) {
  std::unique_lock lock(queue_mutex_);
  // Back-pressure: a producer far ahead of the storage thread waits instead of growing memory.
  done_cv_.wait(lock, [&] { return task_queue_.size() + node_queue_.size() < kMaxQueued || failed_ || stop_; });
  task_queue_.push_back(std::move(t));
  enqueued_++;
}

// Asks the storage thread to commit now, with the rule statistics as they are (caller holds mutex_).
void TraceWriter::request_commit() {
  std::vector<RuleStats> dirty;
  auto collect = [&](auto& table) {
    for (auto& [key, rs] : table)
      if (rs.dirty) {
        dirty.push_back(rs);
        rs.dirty = false;
      }
  };
  collect(rules_by_engine_id_);
  collect(rules_by_location_);
  if (!dirty.empty())
    enqueue([this, dirty] {
      for (const RuleStats& rs : dirty)
        upd_rule_.bind(1, rs.matches).bind(2, rs.match_ns).bind(3, rs.attempts).bind(4, rs.attempt_ns).bind(5, rs.id).run();
    });
  last_commit_request_ = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(queue_mutex_);
    commit_requested_ = true;
  }
  queue_cv_.notify_one();
}

// The process's interned id is the record's id in the trace.
void TraceWriter::store_metadata_record(uint32_t id) {
  if (!stored_metadata_.insert(id).second) return;
  const Metadata& m = metadata_of(id);
  ins_metadata_record_.bind(1, int64_t(id)).bind(2, m.op).bind(3, m.file).bind(4, int64_t(m.line)).bind(5, m.function).run();
}

void TraceWriter::store_batch(std::vector<NodeRow>& nodes, std::vector<Task>& tasks) {
  db_->begin();
  for (const NodeRow& n : nodes) {
    if (n.metadata) {
      store_metadata_record(n.metadata);
      ins_node_metadata_.bind(1, n.id).bind(2, int64_t(n.metadata)).run();
    }
    if (!n.node) {
      ins_node_.bind(1, n.id).bind(2, n.op).bind(3, n.dtype).bind(4, n.src).bind(5, n.arg).bind(6, n.arg_code).bind(7, n.key).run();
      continue;
    }
    ins_node_.bind(1, n.id)
        .bind(2, op_name(n.node->op))
        .bind(3, encode_dtype(n.node->dtype))
        .bind(4, n.src)
        .bind(5, n.node->arg.str())
        .bind(6, encode_arg(n.node->arg))
        .bind(7, n.node->key().hex())
        .run();
  }
  for (Task& t : tasks) t();
  db_->commit();
}

// About once a second the committed pages move from the -wal file into the trace itself, so a writer
// that is killed, or stopped by a full disk, leaves a main file that holds what it committed. PASSIVE:
// never waits for a reader.
std::string TraceWriter::checkpoint_now_and_then() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_checkpoint_ < std::chrono::milliseconds(opts_.checkpoint_interval_ms)) return {};
  last_checkpoint_ = now;
  uncheckpointed_ = false;
  try {
    db_->exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

void TraceWriter::store_loop() {
  std::unique_lock lock(queue_mutex_);
  for (;;) {
    queue_cv_.wait_for(lock, std::chrono::milliseconds(opts_.commit_interval_ms), [&] {
      return stop_ || commit_requested_ || task_queue_.size() + node_queue_.size() >= kMaxQueued / 2;
    });
    std::vector<NodeRow> nodes = std::move(node_queue_);
    std::vector<Task> tasks = std::move(task_queue_);
    node_queue_.clear();
    task_queue_.clear();
    int64_t items = int64_t(tasks.size() + nodes.size());
    commit_requested_ = false;
    bool stopping = stop_;
    std::string problem;
    if (items > 0 && !failed_) {
      lock.unlock();
      try {
        store_batch(nodes, tasks);
      } catch (const std::exception& e) {
        problem = e.what();
      }
      nodes.clear();  // free the encoded rows outside the lock
      tasks.clear();
      uncheckpointed_ = true;
      if (problem.empty()) problem = checkpoint_now_and_then();
      lock.lock();
    } else if (uncheckpointed_ && !failed_) {  // idle: what was committed meanwhile still reaches the file
      lock.unlock();
      problem = checkpoint_now_and_then();
      lock.lock();
    }
    if (!problem.empty() && !failed_) {
      error_ = problem;
      failed_ = true;
      std::cerr << "loupe: trace recording stopped: " << error_ << "\n";
    }
    committed_ += items;
    done_cv_.notify_all();
    if (stopping && task_queue_.empty() && node_queue_.empty()) return;
  }
}

// Post-order over nodes not yet stored: a node's sources always get smaller ids than the node.
int64_t TraceWriter::ensure_node(const UOp* root) {
  if (auto it = node_ids_.find(root->key()); it != node_ids_.end()) return it->second.id;
  std::vector<std::pair<const UOp*, size_t>> stack{{root, 0}};
  std::vector<int64_t> src_ids;
  std::vector<NodeRow> rows;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n->src.size()) {
      const UOp* s = n->src[next++].get();
      if (!node_ids_.count(s->key())) stack.emplace_back(s, 0);
      continue;
    }
    if (!node_ids_.count(n->key())) {  // a shared source may have been stored meanwhile
      src_ids.clear();
      bool reaches_object = n->arg.is_object();
      for (const UOpPtr& s : n->src) {
        const StoredNode& stored = node_ids_.at(s->key());
        src_ids.push_back(stored.id);
        reaches_object |= stored.reaches_object;
      }
      int64_t id = next_node_id_++;
      if (reaches_object)
        rows.push_back({id, nullptr, encode_ids(src_ids), std::string(op_name(n->op)), encode_dtype(n->dtype), n->arg.str(),
                        encode_arg(n->arg), n->key().hex(), n->metadata()});
      else rows.push_back({id, n->ptr(), encode_ids(src_ids), {}, {}, {}, {}, {}, n->metadata()});
      node_ids_.emplace(n->key(), StoredNode{id, reaches_object});
    }
    stack.pop_back();
  }
  if (!rows.empty()) {
    std::unique_lock lock(queue_mutex_);
    done_cv_.wait(lock, [&] { return task_queue_.size() + node_queue_.size() < kMaxQueued || failed_ || stop_; });
    for (NodeRow& r : rows) node_queue_.push_back(std::move(r));
    enqueued_ += int64_t(rows.size());
  }
  return node_ids_.at(root->key()).id;
}

int64_t TraceWriter::node_id(const UOpPtr& node) {
  int64_t id = -1;
  guarded([&] { id = ensure_node(node.get()); });
  return id;
}

int64_t TraceWriter::begin_context(std::string_view kind, std::string_view name) {
  int64_t id = -1;
  guarded([&] {
    id = next_context_id_++;
    int64_t parent = contexts_.empty() ? -1 : contexts_.back();
    int64_t now = now_ns(), implicit = implicit_context_;
    enqueue([this, id, parent, kind = std::string(kind), name = std::string(name), now, implicit] {
      if (parent < 0) ins_context_.bind(1, id).bind_null(2);
      else ins_context_.bind(1, id).bind(2, parent);
      ins_context_.bind(3, kind).bind(4, name).bind(5, now).run();
      if (implicit >= 0) end_context_.bind(1, now).bind(2, implicit).run();
    });
    contexts_.push_back(id);
    implicit_context_ = -1;
  });
  return id;
}

void TraceWriter::end_context() {
  guarded([&] {
    if (contexts_.empty()) return;
    int64_t id = contexts_.back(), now = now_ns();
    contexts_.pop_back();
    enqueue([this, id, now] { end_context_.bind(1, now).bind(2, id).run(); });
    if (std::chrono::steady_clock::now() - last_commit_request_ >= std::chrono::milliseconds(opts_.min_commit_ms))
      request_commit();
  });
}

int64_t TraceWriter::current_context() const {
  std::lock_guard lock(mutex_);
  return contexts_.empty() ? implicit_context_ : contexts_.back();
}

int64_t TraceWriter::context_for_pass() {
  if (!contexts_.empty()) return contexts_.back();
  if (implicit_context_ < 0) {
    int64_t id = next_context_id_++, now = now_ns();
    enqueue([this, id, now] {
      ins_context_.bind(1, id).bind_null(2).bind(3, "top").bind(4, "(outside any context)").bind(5, now).run();
    });
    implicit_context_ = id;
  }
  return implicit_context_;
}

void TraceWriter::pass_begin(const PassInfo& pass, const UOpPtr& root) {
  guarded([&] {
    auto& stack = passes_[std::this_thread::get_id()];
    // Passes at this depth or deeper that never ended were abandoned by an exception.
    while (!stack.empty() && stack.back().depth >= pass.depth) stack.pop_back();
    int64_t input = ensure_node(root.get());
    int64_t ctx = context_for_pass(), id = next_pass_id_++, now = now_ns();
    int64_t parent = stack.empty() ? -1 : stack.back().id;
    // a pass started from Python is located at the Python line that started it (rewrite/rule_origin.h)
    const RuleOrigin* site = PassCallSite::find(pass.name);
    enqueue([this, id, ctx, parent, name = pass.name, file = site ? site->file : std::string(pass.location.file_name()),
             line = site ? site->line : int64_t(pass.location.line()), bottom_up = int64_t(pass.bottom_up), depth = int64_t(pass.depth),
             input, now] {
      ins_pass_.bind(1, id).bind(2, ctx);
      if (parent < 0) ins_pass_.bind_null(3);
      else ins_pass_.bind(3, parent);
      ins_pass_.bind(4, name).bind(5, file).bind(6, line).bind(7, bottom_up).bind(8, depth).bind(9, input).bind(10, now).run();
    });
    stack.push_back({id, pass.depth});
    if (const PatternMatcher* pm = PassCallSite::matcher(pass.name)) record_rule_set(id, *pm);
  });
}

void TraceWriter::record_rule_set(int64_t pass_id, const PatternMatcher& pm) {
  std::vector<int64_t> ids;
  ids.reserve(pm.rules().size());
  for (const Rule& r : pm.rules()) {
    int64_t id = rule_stats(r).id;
    ids.push_back(id);
    // every rule's pattern, the engine's own included: a reader without this build's rules (or without the
    // Python module's) still tries them
    if (patterns_written_.insert(id).second)
      enqueue([this, id, pattern = encode_upat(r.pattern)] { ins_rule_pattern_.bind(1, id).bind(2, pattern).run(); });
  }
  std::string text = encode_ids(ids);
  auto [it, fresh] = rule_sets_.try_emplace(text, int64_t(rule_sets_.size()) + 1);
  int64_t set_id = it->second;
  if (fresh) enqueue([this, set_id, text] { ins_rule_set_.bind(1, set_id).bind(2, text).run(); });
  enqueue([this, pass_id, set_id] { ins_pass_rule_set_.bind(1, pass_id).bind(2, set_id).run(); });
}

TraceWriter::RuleStats& TraceWriter::rule_stats(const Rule& rule) {
  RuleStats* stats;
  bool fresh = false;
  if (rule.id >= 0) {
    auto [it, inserted] = rules_by_engine_id_.try_emplace(rule.id, RuleStats{next_rule_id_});
    stats = &it->second;
    fresh = inserted;
  } else {
    std::string where = cat(rule.name, "@", rule.location.file_name(), ":", rule.location.line());
    auto [it, inserted] = rules_by_location_.try_emplace(where, RuleStats{next_rule_id_});
    stats = &it->second;
    fresh = inserted;
  }
  if (fresh) {
    next_rule_id_++;
    // a rule written in Python says where (rewrite/rule_origin.h); the engine's own, their C++ line
    std::optional<RuleOrigin> origin = rule_origin(rule.id);
    enqueue([this, id = stats->id, name = rule.name, file = origin ? origin->file : std::string(rule.location.file_name()),
             line = origin ? origin->line : int64_t(rule.location.line()), given = origin ? origin->text : std::string()] {
      ins_rule_.bind(1, id).bind(2, name).bind(3, file).bind(4, line).run();
      // The rule's text, so the app shows it without the source tree (found on the writer's thread).
      if (std::string text = given.empty() ? rule_source_text(file, line, name) : given; !text.empty())
        ins_rule_source_.bind(1, id).bind(2, text).run();
    });
  }
  return *stats;
}

void TraceWriter::match(const UOpPtr& before, const UOpPtr& after, const Rule& rule, double seconds) {
  guarded([&] {
    auto it = passes_.find(std::this_thread::get_id());
    if (it == passes_.end() || it->second.empty()) return;  // a rewrite outside any observed pass
    OpenPass& p = it->second.back();
    int64_t b = ensure_node(before.get()), a = ensure_node(after.get());
    RuleStats& rs = rule_stats(rule);
    int64_t ns = int64_t(seconds * 1e9), pass_id = p.id, idx = p.matches, rule_id = rs.id;
    enqueue([this, pass_id, idx, b, a, rule_id, ns] {
      ins_match_.bind(1, pass_id).bind(2, idx).bind(3, b).bind(4, a).bind(5, rule_id).bind(6, ns).run();
    });
    p.matches++;
    matches_written_++;
    rs.matches++;
    rs.match_ns += ns;
    rs.dirty = true;
  });
}

void TraceWriter::attempt(const Rule& rule, bool, double seconds) {
  guarded([&] {
    RuleStats& rs = rule_stats(rule);
    rs.attempts++;
    rs.attempt_ns += int64_t(seconds * 1e9);
    rs.dirty = true;
  });
}

void TraceWriter::pass_end(const PassInfo& pass, const UOpPtr& result) {
  guarded([&] {
    auto it = passes_.find(std::this_thread::get_id());
    if (it == passes_.end()) return;
    auto& stack = it->second;
    while (!stack.empty() && stack.back().depth > pass.depth) stack.pop_back();
    if (stack.empty()) return;
    OpenPass p = stack.back();
    stack.pop_back();
    int64_t r = ensure_node(result.get()), now = now_ns();
    enqueue([this, r, p, now] { end_pass_.bind(1, r).bind(2, p.matches).bind(3, now).bind(4, p.id).run(); });
    if (stack.empty() &&
        std::chrono::steady_clock::now() - last_commit_request_ >= std::chrono::milliseconds(opts_.min_commit_ms))
      request_commit();
  });
}

int64_t TraceWriter::record_kernel(const KernelRecord& k) {
  int64_t id = -1;
  guarded([&] {
    id = next_kernel_id_++;
    if (options().hotspots && k.device.rfind("CUDA", 0) == 0)
      for (const KernelSource& s : k.sources)
        if (s.variant == "opt") gpu_kernels_[id] = KernelToList{id, k.name, s};
    if (!options().trace_inputs_of.empty() && k.ast_key == options().trace_inputs_of) inputs_wanted_.insert(id);
    int64_t ctx = k.context_id >= 0 ? k.context_id : (contexts_.empty() ? implicit_context_ : contexts_.back());
    int64_t ast = k.ast ? ensure_node(k.ast.get()) : -1;
    int64_t scheduled = k.scheduled_ast ? ensure_node(k.scheduled_ast.get()) : -1;
    enqueue([this, id, ctx, ast, scheduled, k, opts = strings_json(k.opts), gs = ints_json(k.global_size),
             ls = ints_json(k.local_size)] {
      ins_kernel_.bind(1, id);
      if (ctx >= 0) ins_kernel_.bind(2, ctx);
      else ins_kernel_.bind_null(2);
      ins_kernel_.bind(3, k.name).bind(4, k.device);
      if (ast >= 0) ins_kernel_.bind(5, ast);
      else ins_kernel_.bind_null(5);
      ins_kernel_.bind(6, opts).bind(7, gs).bind(8, ls).bind(9, k.flops).bind(10, k.lds).bind(11, k.mem).run();
      for (const KernelSource& s : k.sources)
        ins_source_.bind(1, id).bind(2, s.variant).bind(3, s.backend).bind(4, s.text).run();
      for (const BufferAccess& b : k.buffers)
        ins_buffer_.bind(1, id)
            .bind(2, int64_t(b.index))
            .bind(3, b.name)
            .bind(4, b.access)
            .bind(5, b.dtype)
            .bind(6, b.st_text)
            .bind(7, b.st_kind)
            .bind(8, b.st_code)
            .run();
      if (scheduled >= 0) ins_ast_.bind(1, id).bind(2, scheduled).run();
      if (!k.axis_kinds.empty() || !k.ast_key.empty())
        ins_info_.bind(1, id).bind(2, strings_json(k.axis_kinds)).bind(3, int64_t(k.dont_use_locals)).bind(4, k.ast_key).run();
      for (size_t i = 0; i < k.provenance.size(); i++) {
        const Metadata& m = k.provenance[i];
        ins_provenance_.bind(1, id).bind(2, int64_t(i)).bind(3, m.op).bind(4, m.file).bind(5, int64_t(m.line)).bind(6, m.function).run();
      }
      for (size_t i = 0; i < k.beam.size(); i++) {
        const BeamCandidate& c = k.beam[i];
        ins_beam_.bind(1, id).bind(2, int64_t(i)).bind(3, int64_t(c.round)).bind(4, strings_json(c.opts));
        if (std::isfinite(c.seconds) && c.seconds >= 0) ins_beam_.bind(5, c.seconds);
        else ins_beam_.bind_null(5);
        ins_beam_.bind(6, c.wall_seconds).bind(7, c.status).bind(8, int64_t(c.chosen)).run();
      }
    });
    request_commit();
  });
  return id;
}

void TraceWriter::add_kernel_source(int64_t kernel_id, const KernelSource& s) {
  guarded([&] {
    enqueue([this, kernel_id, s] { ins_source_.bind(1, kernel_id).bind(2, s.variant).bind(3, s.backend).bind(4, s.text).run(); });
  });
}

void TraceWriter::enqueue_profile(ProfileRow row) {
  enqueue([this, row = std::move(row)] {
    SqliteStmt& st = ins_profile_;
    st.bind(1, row.kind).bind(2, row.device).bind(3, row.name);
    if (row.kernel_id >= 0) st.bind(4, row.kernel_id);
    else st.bind_null(4);
    st.bind(5, row.start_ns).bind(6, row.duration_ns).bind(7, row.flops).bind(8, row.mem).bind(9, row.lds);
    st.bind(10, row.bytes).bind(11, row.buffer).bind(12, row.peer).bind(13, row.args).run();
    if (row.writes.empty() && row.reads.empty() && row.plan.empty() && row.var_vals.empty()) return;
    int64_t event = db_->last_insert_rowid();
    for (int64_t b : row.writes) ins_run_buffer_.bind(1, event).bind(2, b).bind(3, int64_t(1)).run();
    for (int64_t b : row.reads) ins_run_buffer_.bind(1, event).bind(2, b).bind(3, int64_t(0)).run();
    for (const MemoryShare& m : row.plan)
      ins_plan_.bind(1, event).bind(2, m.buffer).bind(3, m.shared).bind(4, m.first_kernel).bind(5, m.last_kernel).run();
    for (size_t i = 0; i < row.var_vals.size(); i++)
      ins_run_var_.bind(1, event).bind(2, int64_t(i)).bind(3, row.var_vals[i].first).bind(4, row.var_vals[i].second).run();
  });
}

void TraceWriter::record_kernel_run(const KernelRun& r) {
  if (r.kind == "kernel") {
    std::lock_guard lock(mutex_);
    run_devices_.insert(r.device);
  }
  guarded([&] {
    enqueue_profile({r.kind, r.device, r.name, r.kernel_id, r.start_ns, r.duration_ns, r.flops, r.mem, r.lds, 0, -1,
                     "", r.args, r.writes, r.reads, r.plan, r.var_vals});
  });
}

void TraceWriter::record_alloc(const BufferAlloc& a) {
  guarded([&] { enqueue_profile({"alloc", a.device, a.what, -1, a.ts_ns, 0, 0, 0, 0, a.bytes, a.buffer, "", 0}); });
}

void TraceWriter::record_free(const BufferFree& f) {
  guarded([&] { enqueue_profile({"free", f.device, "", -1, f.ts_ns, 0, 0, 0, 0, f.bytes, f.buffer, "", 0}); });
}

// A copy's bytes count as both memory and loads/stores, like tinygrad's copy estimates.
void TraceWriter::record_copy(const BufferCopy& c) {
  guarded([&] {
    enqueue_profile({"copy", c.dst_device, c.name, -1, c.start_ns, c.duration_ns, 0, c.bytes, c.bytes, c.bytes, -1,
                     c.src_device, 2});
  });
}

std::vector<std::string> TraceWriter::devices_with_kernel_runs() const {
  std::lock_guard lock(mutex_);
  return {run_devices_.begin(), run_devices_.end()};
}

std::vector<std::string> TraceWriter::devices_with_peaks() const {
  std::lock_guard lock(mutex_);
  return {peak_devices_.begin(), peak_devices_.end()};
}

void TraceWriter::record_peaks(const DevicePeaks& p) {
  {
    std::lock_guard lock(mutex_);
    peak_devices_.insert(p.device);
  }
  guarded([&] {
    enqueue([this, p] { ins_peaks_.bind(1, p.device).bind(2, p.peak_gflops).bind(3, p.bandwidth_gbs).run(); });
    request_commit();
  });
}

TraceWriter::InputCapture TraceWriter::input_capture(int64_t kernel_id, int64_t bytes) {
  const Options& o = options();
  std::lock_guard lock(mutex_);
  if (inputs_kept_.contains(kernel_id)) return InputCapture::none;
  if (!o.trace_inputs_of.empty()) return inputs_wanted_.contains(kernel_id) ? InputCapture::bytes : InputCapture::none;
  if (bytes <= o.trace_inputs) return InputCapture::bytes;
  return bytes <= o.trace_input_digests ? InputCapture::digest : InputCapture::none;
}

void TraceWriter::record_schedule_roots(const std::vector<ScheduleRoot>& roots) {
  guarded([&] {
    if (contexts_.empty()) return;
    const int64_t ctx = contexts_.back();
    std::vector<std::pair<int64_t, std::string>> rows;
    for (const ScheduleRoot& r : roots) rows.emplace_back(ensure_node(r.node.get()), r.ast_key);
    enqueue([this, ctx, rows = std::move(rows)] {
      for (size_t i = 0; i < rows.size(); i++) ins_roots_.bind(1, ctx).bind(2, int64_t(i)).bind(3, rows[i].first).bind(4, rows[i].second).run();
    });
  });
}

void TraceWriter::record_tensor_call(const TensorCall& call) {
  if (!call.metadata) return;
  guarded([&] {
    enqueue([this, call] {
      store_metadata_record(call.metadata);
      ins_tensor_call_.bind(1, int64_t(call.metadata)).bind(2, call.start_ns).bind(3, call.end_ns).run();
    });
  });
}

void TraceWriter::record_kernel_samples(int64_t kernel_id, const KernelSamples& k) {
  if (k.clock == "pc-sampling") {
    std::lock_guard lock(mutex_);
    gpu_sampled_.insert(kernel_id);
  }
  guarded([&] {
    enqueue([this, kernel_id, k] {
      json::Object functions;
      for (const auto& [name, size] : k.function_sizes) functions.emplace_back(name, json::Value(size));
      SqliteStmt& st = add_samples_;
      st.bind(1, kernel_id).bind(2, k.clock).bind(3, k.period).bind(4, k.runs).bind(5, k.lost);
      const std::optional<int64_t>* counters[4] = {&k.counters.cycles, &k.counters.instructions, &k.counters.cache_misses,
                                                   &k.counters.branch_misses};
      for (int i = 0; i < 4; i++) {
        if (*counters[i]) st.bind(6 + i, **counters[i]);
        else st.bind_null(6 + i);
      }
      st.bind(10, json::Value(std::move(functions)).dump()).run();
      // samples outside the kernel's code are kept under the symbol they hit, at offset -1
      for (const auto& [site, n] : k.in_code) add_sample_site_.bind(1, kernel_id).bind(2, site.first).bind(3, site.second).bind(4, n).run();
      for (const auto& [symbol, n] : k.outside) add_sample_site_.bind(1, kernel_id).bind(2, symbol).bind(3, int64_t(-1)).bind(4, n).run();
      for (const auto& [site, reasons] : k.stalls)
        for (const auto& [reason, n] : reasons)
          add_sample_stall_.bind(1, kernel_id).bind(2, site.first).bind(3, site.second).bind(4, reason).bind(5, n).run();
    });
  });
}

std::vector<TraceWriter::KernelToList> TraceWriter::sampled_without_listing() {
  std::lock_guard lock(mutex_);
  std::vector<KernelToList> out;
  for (int64_t id : gpu_sampled_)
    if (auto it = gpu_kernels_.find(id); it != gpu_kernels_.end()) out.push_back(it->second);
  return out;
}

void TraceWriter::record_kernel_listing(int64_t kernel_id, const RecordedListing& l) {
  {
    std::lock_guard lock(mutex_);
    gpu_kernels_.erase(kernel_id);
  }
  guarded([&] {
    enqueue([this, kernel_id, l] {
      json::Array rows;
      for (size_t i = 0; i < l.lines.size(); i++)
        rows.push_back(json::Value(json::Array{json::Value(l.lines[i]), json::Value(int64_t(i < l.source_lines.size() ? l.source_lines[i] : 0))}));
      ins_listing_.bind(1, kernel_id).bind(2, l.kind).bind(3, l.title).bind(4, l.how).bind(5, json::Value(std::move(rows)).dump()).run();
    });
  });
}

void TraceWriter::record_kernel_metrics(int64_t kernel_id, const KernelMetrics& m) {
  guarded([&] {
    enqueue([this, kernel_id, m] {
      json::Array values, unavailable;
      for (const auto& [key, v] : m.values) values.push_back(json::Value(json::Array{json::Value(key), json::Value(v)}));
      for (const std::string& why : m.unavailable) unavailable.push_back(json::Value(why));
      ins_metrics_.bind(1, kernel_id).bind(2, m.source).bind(3, json::Value(std::move(values)).dump())
          .bind(4, json::Value(std::move(unavailable)).dump()).run();
    });
  });
}

void TraceWriter::record_input_digest(int64_t kernel_id, int64_t bytes, const std::string& digest) {
  {
    std::lock_guard lock(mutex_);
    if (!inputs_kept_.insert(kernel_id).second) return;
  }
  guarded([&] {
    enqueue([this, kernel_id, bytes, digest] { ins_digest_.bind(1, kernel_id).bind(2, bytes).bind(3, digest).run(); });
  });
}

void TraceWriter::record_inputs(const KernelInputs& inputs) {
  {
    std::lock_guard lock(mutex_);
    if (!inputs_kept_.insert(inputs.kernel_id).second) return;
  }
  guarded([&] {
    enqueue([this, inputs] {
      for (size_t i = 0; i < inputs.buffers.size(); i++)
        ins_inputs_.bind(1, inputs.kernel_id).bind(2, int64_t(i)).bind_blob(3, inputs.buffers[i]).run();
    });
  });
}

void TraceWriter::record_run_info(const RunInfo& info) {
  // The program file's digest, so a re-run can tell whether the file there now is the one that ran.
  std::map<std::string, std::string> rows(info.settings.begin(), info.settings.end());
  rows["script_path"] = info.script_path;
  std::error_code ec;
  if (!info.script_path.empty() && std::filesystem::is_regular_file(info.script_path, ec))
    if (std::optional<std::string> sha = sha256_file_hex(info.script_path)) rows["script_sha256"] = *sha;
  // Remember that this user wrote this trace here (a re-run of it needs no consent while its run is
  // unchanged). Failing to remember only means being asked.
  if (std::string why = remember_recorded_trace(trace_run_digest(identity_, rows)); !why.empty())
    std::cerr << "loupe: cannot remember the trace " << path_ << " as yours (" << why << "): re-running its program will ask first\n";
  guarded([&] {
    enqueue([this, rows, script = info.script] {
      for (const auto& [k, v] : rows) ins_run_.bind(1, k).bind(2, v).run();
      ins_run_.bind(1, "script").bind(2, script).run();
    });
    request_commit();
  });
}

void TraceWriter::set_run_setting(std::string_view key, std::string_view value) {
  guarded([&] { enqueue([this, k = std::string(key), v = std::string(value)] { ins_run_.bind(1, k).bind(2, v).run(); }); });
}

void TraceWriter::flush() {
  int64_t target = 0;
  guarded([&] {
    request_commit();
    std::lock_guard lock(queue_mutex_);
    target = enqueued_;
  });
  std::unique_lock lock(queue_mutex_);
  done_cv_.wait(lock, [&] { return committed_ >= target || failed_; });
}

} // namespace loupe
