#include "trace/graph_at_step.h"

#include <unordered_set>

#include "support/error.h"

namespace loupe {

namespace {
[[noreturn]] void cycle() { throw Error("replaying a pass: the replacements form a cycle"); }
} // namespace

// Raw pointers throughout (this walks every node of the graph at every step): the graph, the table
// and `keep` hold the nodes alive. memo maps a node to its result; nullptr marks a node whose frame
// is still in progress, so meeting it again is a cycle.
UOpPtr replay_substitute(const UOpPtr& root, const ReplacementTable& rep) {
  std::unordered_map<const UOp*, const UOp*> memo;
  memo.reserve(1024);
  UOpList keep;  // nodes built here
  auto resolve = [&](const UOp* n) {
    size_t hops = 0;
    for (auto it = rep.find(n); it != rep.end() && it->second != n; it = rep.find(n)) {
      n = it->second;
      if (++hops > rep.size()) cycle();
    }
    return n;
  };
  struct Frame {
    std::vector<const UOp*> aliases;  // every node this frame stands for (original, resolved, rebuilt)
    const UOp* cur;
    size_t next = 0;
    std::vector<const UOp*> src;
    bool changed = false;
  };
  std::vector<Frame> stack;
  const UOp* final_result = nullptr;
  auto known = [&](const UOp* n) -> const UOp* {
    auto it = memo.find(n);
    if (it == memo.end()) return nullptr;
    if (!it->second) cycle();
    return it->second;
  };
  // Either returns the known result for n, or pushes a frame for it and returns null.
  auto enter = [&](const UOp* n) -> const UOp* {
    if (const UOp* r = known(n)) return r;
    const UOp* m = resolve(n);
    if (m != n)
      if (const UOp* r = known(m)) {
        memo[n] = r;
        return r;
      }
    Frame f;
    f.aliases = {n};
    if (m != n) f.aliases.push_back(m);
    for (const UOp* a : f.aliases) memo[a] = nullptr;
    f.cur = m;
    stack.push_back(std::move(f));
    return nullptr;
  };
  auto deliver = [&](const UOp* result) {
    if (stack.empty()) {
      final_result = result;
      return;
    }
    Frame& parent = stack.back();
    parent.changed = parent.changed || result != parent.cur->src[parent.next].get();
    parent.src.push_back(result);
    parent.next++;
  };

  if (const UOp* r = enter(root.get())) return r->ptr();
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.cur->src.size()) {
      if (const UOp* r = enter(f.cur->src[f.next].get())) deliver(r);
      continue;
    }
    const UOp* result = nullptr;
    if (f.changed) {
      UOpList src;
      src.reserve(f.src.size());
      for (const UOp* s : f.src) src.push_back(s->ptr());
      keep.push_back(UOp::make(f.cur->op, f.cur->dtype, std::move(src), f.cur->arg));
      const UOp* rebuilt = keep.back().get();
      f.src.clear();
      f.next = 0;
      f.changed = false;
      if (!(result = known(rebuilt))) {
        const UOp* m = resolve(rebuilt);
        if (m != rebuilt) result = known(m);
        if (!result) {
          for (const UOp* a : {rebuilt, m}) {
            f.aliases.push_back(a);
            memo[a] = nullptr;
          }
          f.cur = m;  // rewrite the rebuilt (or replaced) node: its sources are memo hits or new
          continue;
        }
        f.aliases.push_back(rebuilt);
      }
    } else {
      result = f.cur;
    }
    for (const UOp* a : f.aliases) memo[a] = result;
    memo[result] = result;  // a result is a fixed point
    stack.pop_back();
    deliver(result);
  }
  return final_result->ptr();
}

UOpPtr replay_substitute(const UOpPtr& root, const UOpMap<UOpPtr>& replacements) {
  ReplacementTable rep;
  rep.reserve(replacements.size());
  for (const auto& [from, to] : replacements) rep[from.get()] = to.get();
  return replay_substitute(root, rep);
}

PassReplay::PassReplay(TraceReader& reader, int64_t pass_id)
    : reader_(reader), pass_(reader.pass(pass_id)), matches_(reader.matches(pass_id)) {}

UOpPtr PassReplay::input() { return reader_.node(pass_.input_id); }

void PassReplay::decode_up_to(int64_t step) {
  TraceReader::ReadBatch batch(reader_);
  while (int64_t(decoded_.size()) < step) {
    const TraceMatch& m = matches_[decoded_.size()];
    decoded_.emplace_back(reader_.node(m.before_id), reader_.node(m.after_id));
  }
}

UOpPtr PassReplay::graph_at(int64_t step) {
  if (step < 0 || step > steps())
    throw Error(cat(reader_.path(), ": pass ", pass_.index, " ('", pass_.name, "') of context ", pass_.context_id,
                    " has steps 0..", steps(), ", not ", step));
  if (step == cached_step_) return cached_graph_;
  decode_up_to(step);
  // The table of the first `step` replacements grows as the caller steps forward; a step back
  // rebuilds it (a later match may have overwritten an earlier one for the same node).
  if (table_step_ > step) {
    table_.clear();
    table_step_ = 0;
  }
  table_.reserve(size_t(step));
  for (; table_step_ < step; table_step_++)
    table_[decoded_[size_t(table_step_)].first.get()] = decoded_[size_t(table_step_)].second.get();
  UOpPtr g = replay_substitute(input(), table_);
  cached_step_ = step;
  cached_graph_ = g;
  return g;
}

StepChanges PassReplay::changes_at(int64_t step) {
  StepChanges c;
  c.step = step;
  UOpPtr now = graph_at(step);
  std::vector<const UOp*> now_nodes = now->toposort();
  if (step == 0) return c;
  c.before = decoded_[size_t(step - 1)].first;
  c.after = decoded_[size_t(step - 1)].second;
  UOpPtr prev = graph_at(step - 1);
  cached_step_ = step;  // the caller is looking at this step: keep it cached
  cached_graph_ = now;
  std::vector<const UOp*> prev_nodes = prev->toposort();
  std::unordered_set<const UOp*> in_now(now_nodes.begin(), now_nodes.end());
  std::unordered_set<const UOp*> in_prev(prev_nodes.begin(), prev_nodes.end());
  for (const UOp* n : now_nodes)
    if (!in_prev.count(n)) c.added.push_back(n->ptr());
  for (const UOp* n : prev_nodes)
    if (!in_now.count(n)) c.removed.push_back(n->ptr());
  for (const UOp* n : c.after->toposort())
    if (in_now.count(n)) c.highlighted.push_back(n->ptr());
  return c;
}

} // namespace loupe
