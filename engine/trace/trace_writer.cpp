#include "trace/trace_writer.h"

#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "support/error.h"
#include "support/json.h"
#include "trace/arg_codec.h"
#include "trace/schema.h"

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

std::string strings_json(const std::vector<std::string>& xs) {
  json::Value a = json::Value::array();
  for (const std::string& s : xs) a.push_back(s);
  return a.dump();
}

} // namespace

TraceWriter::TraceWriter(const std::string& path, TraceWriterOptions opts)
    : path_(path), opts_(opts), t0_(std::chrono::steady_clock::now()), last_commit_(t0_) {
  check_replaceable(path);
  db_ = std::make_unique<SqliteDb>(path, SqliteDb::Mode::create);
  trace_schema::create(*db_);
  SqliteDb& db = *db_;
  ins_node_ = db.prepare("INSERT INTO uops(id, op, dtype, src, arg, arg_code, key) VALUES (?,?,?,?,?,?,?)");
  ins_match_ = db.prepare("INSERT INTO matches(pass_id, idx, before_id, after_id, rule_id, ns) VALUES (?,?,?,?,?,?)");
  ins_pass_ = db.prepare(
      "INSERT INTO passes(context_id, parent_id, name, file, line, bottom_up, depth, input_id, start_ns)"
      " VALUES (?,?,?,?,?,?,?,?,?)");
  end_pass_ = db.prepare("UPDATE passes SET result_id = ?, match_count = ?, end_ns = ? WHERE id = ?");
  ins_rule_ = db.prepare("INSERT INTO rules(id, name, file, line) VALUES (?,?,?,?)");
  upd_rule_ = db.prepare("UPDATE rules SET matches = ?, match_ns = ?, attempts = ?, attempt_ns = ? WHERE id = ?");
  ins_context_ = db.prepare("INSERT INTO contexts(parent_id, kind, name, start_ns) VALUES (?,?,?,?)");
  end_context_ = db.prepare("UPDATE contexts SET end_ns = ? WHERE id = ?");
  ins_kernel_ = db.prepare(
      "INSERT INTO kernels(context_id, name, device, ast_id, opts, global_size, local_size, flops, lds, mem)"
      " VALUES (?,?,?,?,?,?,?,?,?,?)");
  ins_source_ = db.prepare("INSERT OR REPLACE INTO kernel_sources(kernel_id, variant, backend, source) VALUES (?,?,?,?)");
  ins_buffer_ = db.prepare(
      "INSERT OR REPLACE INTO kernel_buffers(kernel_id, idx, name, access, dtype, st, st_kind, st_code)"
      " VALUES (?,?,?,?,?,?,?,?)");
  ins_profile_ = db.prepare(
      "INSERT INTO profile(kind, device, name, kernel_id, start_ns, duration_ns, flops, mem, lds, bytes, buffer, peer,"
      " args) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  ins_peaks_ = db.prepare("INSERT OR REPLACE INTO peaks(device, peak_gflops, bandwidth_gbs) VALUES (?,?,?)");
  ins_run_ = db.prepare("INSERT OR REPLACE INTO run_info(key, value) VALUES (?,?)");
  db.begin();
  SqliteStmt meta = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)");
  meta.bind(1, "created_unix").bind(2, std::to_string(std::time(nullptr))).run();
  meta.bind(1, "writer_pid").bind(2, std::to_string(::getpid())).run();
  meta.bind(1, "clock").bind(2, "ns since the writer opened (steady clock)").run();
  meta.bind(1, "finished").bind(2, "0").run();
  db.commit();
  node_ids_.reserve(1 << 14);
  flusher_ = std::thread([this] { flusher_loop(); });
}

TraceWriter::~TraceWriter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  std::lock_guard lock(mutex_);
  if (!error_.empty()) return;
  try {
    int64_t now = now_ns();
    db_->begin();
    for (int64_t c : contexts_) end_context_.bind(1, now).bind(2, c).run();
    if (implicit_context_ >= 0) end_context_.bind(1, now).bind(2, implicit_context_).run();
    db_->exec("UPDATE meta SET value = '1' WHERE key = 'finished'");
    commit_locked();
    db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (const std::exception& e) {
    std::cerr << "loupe: could not finish the trace " << path_ << ": " << e.what() << "\n";
  }
}

template <typename F> void TraceWriter::guarded(F&& body) {
  std::lock_guard lock(mutex_);
  if (!error_.empty()) return;
  try {
    db_->begin();
    body();
  } catch (const std::exception& e) {
    error_ = e.what();
    std::cerr << "loupe: trace recording stopped: " << error_ << "\n";
  }
}

std::string TraceWriter::error() const {
  std::lock_guard lock(mutex_);
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

// Post-order over nodes not yet stored: a node's sources always get smaller ids than the node.
int64_t TraceWriter::ensure_node(const UOp* root) {
  if (auto it = node_ids_.find(root->key()); it != node_ids_.end()) return it->second;
  std::vector<std::pair<const UOp*, size_t>> stack{{root, 0}};
  std::vector<int64_t> src_ids;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n->src.size()) {
      const UOp* s = n->src[next++].get();
      if (!node_ids_.count(s->key())) stack.emplace_back(s, 0);
      continue;
    }
    if (!node_ids_.count(n->key())) {  // a shared source may have been stored meanwhile
      src_ids.clear();
      for (const UOpPtr& s : n->src) src_ids.push_back(node_ids_.at(s->key()));
      int64_t id = next_node_id_++;
      ins_node_.bind(1, id)
          .bind(2, op_name(n->op))
          .bind(3, encode_dtype(n->dtype))
          .bind(4, encode_ids(src_ids))
          .bind(5, n->arg.str())
          .bind(6, encode_arg(n->arg))
          .bind(7, n->key().hex())
          .run();
      node_ids_.emplace(n->key(), id);
    }
    stack.pop_back();
  }
  return node_ids_.at(root->key());
}

int64_t TraceWriter::node_id(const UOpPtr& node) {
  int64_t id = -1;
  guarded([&] { id = ensure_node(node.get()); });
  return id;
}

int64_t TraceWriter::begin_context(std::string_view kind, std::string_view name) {
  int64_t id = -1;
  guarded([&] {
    if (contexts_.empty()) ins_context_.bind_null(1);
    else ins_context_.bind(1, contexts_.back());
    ins_context_.bind(2, kind).bind(3, name).bind(4, now_ns()).run();
    id = db_->last_insert_rowid();
    contexts_.push_back(id);
    if (implicit_context_ >= 0) end_context_.bind(1, now_ns()).bind(2, implicit_context_).run();
    implicit_context_ = -1;
  });
  return id;
}

void TraceWriter::end_context() {
  guarded([&] {
    if (contexts_.empty()) return;
    end_context_.bind(1, now_ns()).bind(2, contexts_.back()).run();
    contexts_.pop_back();
    if (std::chrono::steady_clock::now() - last_commit_ >= std::chrono::milliseconds(opts_.min_commit_ms))
      commit_locked();
  });
}

int64_t TraceWriter::current_context() const {
  std::lock_guard lock(mutex_);
  return contexts_.empty() ? implicit_context_ : contexts_.back();
}

int64_t TraceWriter::context_for_pass() {
  if (!contexts_.empty()) return contexts_.back();
  if (implicit_context_ < 0) {
    ins_context_.bind_null(1).bind(2, "top").bind(3, "(outside any context)").bind(4, now_ns()).run();
    implicit_context_ = db_->last_insert_rowid();
  }
  return implicit_context_;
}

void TraceWriter::pass_begin(const PassInfo& pass, const UOpPtr& root) {
  guarded([&] {
    auto& stack = passes_[std::this_thread::get_id()];
    // Passes at this depth or deeper that never ended were abandoned by an exception.
    while (!stack.empty() && stack.back().depth >= pass.depth) stack.pop_back();
    int64_t input = ensure_node(root.get());
    int64_t ctx = context_for_pass();
    ins_pass_.bind(1, ctx);
    if (stack.empty()) ins_pass_.bind_null(2);
    else ins_pass_.bind(2, stack.back().id);
    ins_pass_.bind(3, pass.name)
        .bind(4, pass.location.file_name())
        .bind(5, int64_t(pass.location.line()))
        .bind(6, int64_t(pass.bottom_up))
        .bind(7, int64_t(pass.depth))
        .bind(8, input)
        .bind(9, now_ns())
        .run();
    stack.push_back({db_->last_insert_rowid(), pass.depth});
  });
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
    ins_rule_.bind(1, stats->id)
        .bind(2, rule.name)
        .bind(3, rule.location.file_name())
        .bind(4, int64_t(rule.location.line()))
        .run();
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
    int64_t ns = int64_t(seconds * 1e9);
    ins_match_.bind(1, p.id).bind(2, p.matches).bind(3, b).bind(4, a).bind(5, rs.id).bind(6, ns).run();
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
    int64_t r = ensure_node(result.get());
    end_pass_.bind(1, r).bind(2, p.matches).bind(3, now_ns()).bind(4, p.id).run();
    if (stack.empty() &&
        std::chrono::steady_clock::now() - last_commit_ >= std::chrono::milliseconds(opts_.min_commit_ms))
      commit_locked();
  });
}

int64_t TraceWriter::record_kernel(const KernelRecord& k) {
  int64_t id = -1;
  guarded([&] {
    int64_t ctx = k.context_id >= 0 ? k.context_id : (contexts_.empty() ? implicit_context_ : contexts_.back());
    if (ctx >= 0) ins_kernel_.bind(1, ctx);
    else ins_kernel_.bind_null(1);
    ins_kernel_.bind(2, k.name).bind(3, k.device);
    if (k.ast) ins_kernel_.bind(4, ensure_node(k.ast.get()));
    else ins_kernel_.bind_null(4);
    ins_kernel_.bind(5, strings_json(k.opts))
        .bind(6, ints_json(k.global_size))
        .bind(7, ints_json(k.local_size))
        .bind(8, k.flops)
        .bind(9, k.lds)
        .bind(10, k.mem)
        .run();
    id = db_->last_insert_rowid();
    for (const KernelSource& s : k.sources) ins_source_.bind(1, id).bind(2, s.variant).bind(3, s.backend).bind(4, s.text).run();
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
    commit_locked();
  });
  return id;
}

void TraceWriter::add_kernel_source(int64_t kernel_id, const KernelSource& s) {
  guarded([&] { ins_source_.bind(1, kernel_id).bind(2, s.variant).bind(3, s.backend).bind(4, s.text).run(); });
}

void TraceWriter::record_kernel_run(const KernelRun& r) {
  guarded([&] {
    ins_profile_.bind(1, "kernel").bind(2, r.device).bind(3, r.name);
    if (r.kernel_id >= 0) ins_profile_.bind(4, r.kernel_id);
    else ins_profile_.bind_null(4);
    ins_profile_.bind(5, r.start_ns)
        .bind(6, r.duration_ns)
        .bind(7, r.flops)
        .bind(8, r.mem)
        .bind(9, r.lds)
        .bind(10, int64_t(0))
        .bind(11, int64_t(-1))
        .bind(12, "")
        .bind(13, int64_t(r.args))
        .run();
  });
}

void TraceWriter::record_alloc(const BufferAlloc& a) {
  guarded([&] {
    ins_profile_.bind(1, "alloc").bind(2, a.device).bind(3, a.what).bind_null(4).bind(5, a.ts_ns).bind(6, int64_t(0));
    ins_profile_.bind(7, int64_t(0)).bind(8, int64_t(0)).bind(9, int64_t(0)).bind(10, a.bytes).bind(11, a.buffer);
    ins_profile_.bind(12, "").bind(13, int64_t(0)).run();
  });
}

void TraceWriter::record_free(const BufferFree& f) {
  guarded([&] {
    ins_profile_.bind(1, "free").bind(2, f.device).bind(3, "").bind_null(4).bind(5, f.ts_ns).bind(6, int64_t(0));
    ins_profile_.bind(7, int64_t(0)).bind(8, int64_t(0)).bind(9, int64_t(0)).bind(10, f.bytes).bind(11, f.buffer);
    ins_profile_.bind(12, "").bind(13, int64_t(0)).run();
  });
}

void TraceWriter::record_copy(const BufferCopy& c) {
  guarded([&] {
    ins_profile_.bind(1, "copy").bind(2, c.dst_device).bind(3, c.name).bind_null(4).bind(5, c.start_ns);
    ins_profile_.bind(6, c.duration_ns).bind(7, int64_t(0)).bind(8, c.bytes).bind(9, c.bytes).bind(10, c.bytes);
    ins_profile_.bind(11, int64_t(-1)).bind(12, c.src_device).bind(13, int64_t(2)).run();
  });
}

void TraceWriter::record_peaks(const DevicePeaks& p) {
  guarded([&] {
    ins_peaks_.bind(1, p.device).bind(2, p.peak_gflops).bind(3, p.bandwidth_gbs).run();
    commit_locked();
  });
}

void TraceWriter::record_run_info(const RunInfo& info) {
  guarded([&] {
    ins_run_.bind(1, "script_path").bind(2, info.script_path).run();
    ins_run_.bind(1, "script").bind(2, info.script).run();
    for (const auto& [k, v] : info.settings) ins_run_.bind(1, k).bind(2, v).run();
    commit_locked();
  });
}

void TraceWriter::set_run_setting(std::string_view key, std::string_view value) {
  guarded([&] { ins_run_.bind(1, key).bind(2, value).run(); });
}

void TraceWriter::flush() {
  guarded([&] { commit_locked(); });
}

void TraceWriter::commit_locked() {
  auto write_stats = [&](auto& table) {
    for (auto& [key, rs] : table) {
      if (!rs.dirty) continue;
      upd_rule_.bind(1, rs.matches).bind(2, rs.match_ns).bind(3, rs.attempts).bind(4, rs.attempt_ns).bind(5, rs.id).run();
      rs.dirty = false;
    }
  };
  if (db_->in_transaction()) {
    write_stats(rules_by_engine_id_);
    write_stats(rules_by_location_);
  }
  db_->commit();
  last_commit_ = std::chrono::steady_clock::now();
}

void TraceWriter::flusher_loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(opts_.commit_interval_ms));
    if (stop_ || !error_.empty()) continue;
    try {
      if (db_->in_transaction()) commit_locked();
    } catch (const std::exception& e) {
      error_ = e.what();
      std::cerr << "loupe: trace recording stopped: " << error_ << "\n";
    }
  }
}

} // namespace loupe
