#include "trace/graph_at_step.h"

#include <unordered_set>

#include "support/error.h"

namespace loupe {

UOpPtr replay_substitute(const UOpPtr& root, const UOpMap<UOpPtr>& rep) {
  UOpMap<UOpPtr> memo;
  // Every node a frame in progress has stood for: meeting one again is a replacement cycle.
  std::unordered_set<const UOp*> active;
  auto resolve = [&](UOpPtr n) {
    size_t hops = 0;
    for (auto it = rep.find(n); it != rep.end() && it->second != n; it = rep.find(n)) {
      n = it->second;
      if (++hops > rep.size()) throw Error("replaying a pass: the replacements form a cycle");
    }
    return n;
  };
  struct Frame {
    std::vector<UOpPtr> aliases;  // every node this frame stands for (original, resolved, rebuilt)
    UOpPtr cur;
    size_t next = 0;
    UOpList src;
    bool changed = false;
  };
  std::vector<Frame> stack;
  UOpPtr final_result;

  // Either returns the known result for n, or pushes a frame for it and returns null.
  auto enter = [&](const UOpPtr& n) -> UOpPtr {
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    UOpPtr m = resolve(n);
    if (m != n)
      if (auto it = memo.find(m); it != memo.end()) {
        memo[n] = it->second;
        return it->second;
      }
    if (active.count(n.get()) || active.count(m.get())) throw Error("replaying a pass: the replacements form a cycle");
    Frame f;
    f.aliases = {n};
    if (m != n) f.aliases.push_back(m);
    for (const UOpPtr& a : f.aliases) active.insert(a.get());
    f.cur = m;
    stack.push_back(std::move(f));
    return nullptr;
  };
  auto deliver = [&](const UOpPtr& result) {
    if (stack.empty()) {
      final_result = result;
      return;
    }
    Frame& parent = stack.back();
    parent.changed = parent.changed || result != parent.cur->src[parent.next];
    parent.src.push_back(result);
    parent.next++;
  };

  if (UOpPtr r = enter(root)) return r;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.cur->src.size()) {
      if (UOpPtr r = enter(f.cur->src[f.next])) deliver(r);
      continue;
    }
    UOpPtr result;
    if (f.changed) {
      UOpPtr rebuilt = UOp::make(f.cur->op, f.cur->dtype, std::move(f.src), f.cur->arg);
      f.src.clear();
      f.next = 0;
      f.changed = false;
      if (auto it = memo.find(rebuilt); it != memo.end()) {
        result = it->second;
      } else {
        UOpPtr m = resolve(rebuilt);
        for (const UOpPtr& a : {rebuilt, m})
          if (active.count(a.get())) throw Error("replaying a pass: the replacements form a cycle");
        f.aliases.push_back(rebuilt);
        active.insert(rebuilt.get());
        if (m != rebuilt) {
          f.aliases.push_back(m);
          active.insert(m.get());
        }
        if (m != rebuilt)
          if (auto it = memo.find(m); it != memo.end()) result = it->second;
        if (!result) {
          f.cur = m;  // rewrite the rebuilt (or replaced) node: its sources are memo hits or new
          continue;
        }
      }
    } else {
      result = f.cur;
    }
    for (const UOpPtr& a : f.aliases) {
      memo[a] = result;
      active.erase(a.get());
    }
    memo[result] = result;  // a result is a fixed point
    stack.pop_back();
    deliver(result);
  }
  return final_result;
}

PassReplay::PassReplay(TraceReader& reader, int64_t pass_id)
    : reader_(reader), pass_(reader.pass(pass_id)), matches_(reader.matches(pass_id)) {}

UOpPtr PassReplay::input() { return reader_.node(pass_.input_id); }

void PassReplay::decode_up_to(int64_t step) {
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
  UOpMap<UOpPtr> rep;
  rep.reserve(size_t(step));
  for (int64_t i = 0; i < step; i++) rep[decoded_[size_t(i)].first] = decoded_[size_t(i)].second;
  UOpPtr g = replay_substitute(input(), rep);
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
