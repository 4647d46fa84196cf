#include "codegen/linearizer.h"

#include <algorithm>
#include <bitset>
#include <queue>
#include <unordered_map>

#include "codegen/kernel.h"
#include "support/error.h"
#include "support/flat_ptr_map.h"

namespace loupe {

namespace {

// The loops a value lives inside, one bit per RANGE in nesting order (bit i: the i-th loop by axis id).
constexpr size_t kMaxLoops = 256;
using LoopSet = std::bitset<kMaxLoops>;

int64_t range_order(const UOp* r) { return r->arg.is_int() ? r->arg.as_int() : 0; }

class Linearizer {
public:
  explicit Linearizer(const UOpPtr& sink) : topo_(sink->toposort()) {
    n_ = topo_.size();
    index_.reserve(n_);
    for (uint32_t i = 0; i < n_; i++) index_[topo_[i]] = i;
    // every node's sources by index, looked up once (the passes below walk them again and again)
    src_at_.assign(n_ + 1, 0);
    for (uint32_t i = 0; i < n_; i++) src_at_[i + 1] = src_at_[i] + static_cast<uint32_t>(topo_[i]->src.size());
    srcs_.reserve(src_at_[n_]);
    for (uint32_t i = 0; i < n_; i++)
      for (const UOpPtr& s : topo_[i]->src) srcs_.push_back(at(s.get()));
    one_update_per_accumulator();
    number_loops();
    compute_scopes();
    find_waits();
  }

  UOpList run();

private:
  // Two updates of one accumulator would both run in its loop and add twice: a pass that built a
  // second one (the vectorizer's lane reuse once did) is a bug, never a program to render.
  void one_update_per_accumulator() const {
    FlatPtrSet<const UOp*> updated;
    for (const UOp* u : topo_)
      if (u->op == Ops::ASSIGN && u->src[0]->op == Ops::DEFINE_ACC) {
        const bool first_update = updated.insert(u->src[0].get());
        LOUPE_ASSERT(first_update, "an accumulator with two updates (", u->src[0]->arg.str(), ")");
      }
  }

  // ---- loops and their groups ----
  // Loops nest in axis order (global axes outside reduce axes). The loops of a nested reduce (a group
  // per accumulator, ids from kFirstNestedRangeId) nest the same way among themselves, inside the loops
  // their accumulator needs, but not inside the kernel's later axes: a nested reduce that does not
  // depend on them runs once before them.
  void number_loops() {
    std::vector<const UOp*> ranges;
    for (const UOp* u : topo_)
      if (u->op == Ops::RANGE) ranges.push_back(u);
    std::stable_sort(ranges.begin(), ranges.end(), [](const UOp* a, const UOp* b) { return range_order(a) < range_order(b); });
    LOUPE_ASSERT(ranges.size() <= kMaxLoops, "a kernel with ", ranges.size(), " loops");
    loop_bit_.assign(n_, -1);
    for (size_t b = 0; b < ranges.size(); b++) {
      loops_.push_back(at(ranges[b]));
      loop_bit_[at(ranges[b])] = static_cast<int>(b);
    }
    // group 0: the kernel's loops; group k: the loops of the k-th nested reduce, with every accumulator
    // that loops over them (the upcast lanes of one nested reduce share its loops, and a lane whose
    // value is constant, a padded one, must not run them on its own outside the loops its siblings need:
    // a loop opens once)
    std::vector<size_t> parent;  // union-find over the nested accumulators
    auto find = [&](size_t a) {
      while (parent[a] != a) a = parent[a] = parent[parent[a]];
      return a;
    };
    std::vector<uint32_t> accs;
    std::vector<int64_t> loop_acc(loops_.size(), -1);  // per loop bit: the first accumulator over it
    for (const UOp* u : topo_) {
      if (u->op != Ops::DEFINE_ACC) continue;
      const size_t me = accs.size();
      bool nested = false;
      for (size_t i = 1; i < u->src.size(); i++) {
        const UOp* r = u->src[i].get();
        if (r->op != Ops::RANGE || range_order(r) < kFirstNestedRangeId) continue;
        if (!nested) {
          accs.push_back(at(u));
          parent.push_back(me);
          nested = true;
        }
        int64_t& first = loop_acc[static_cast<size_t>(loop_bit_[at(r)])];
        if (first < 0) first = static_cast<int64_t>(me);
        else parent[find(me)] = find(static_cast<size_t>(first));
      }
    }
    std::vector<int> group_of(accs.size(), 0);
    group_accs_.assign(1, {});
    for (size_t a = 0; a < accs.size(); a++) {
      const size_t root = find(a);
      if (!group_of[root]) {
        group_of[root] = static_cast<int>(group_accs_.size());
        group_accs_.emplace_back();
      }
      group_accs_[static_cast<size_t>(group_of[root])].push_back(accs[a]);
    }
    group_.assign(loops_.size(), 0);
    for (size_t b = 0; b < loops_.size(); b++)
      if (loop_acc[b] >= 0) group_[b] = group_of[find(static_cast<size_t>(loop_acc[b]))];
    groups_ = group_accs_.size();
    around_.assign(groups_, LoopSet());
    prefix_.assign(loops_.size(), LoopSet());
    for (size_t b = 0; b < loops_.size(); b++)
      for (size_t c = 0; c <= b; c++)
        if (group_[c] == group_[b]) prefix_[b].set(c);
  }

  LoopSet close(const LoopSet& s) const {
    LoopSet out;
    for (size_t b = 0; b < loops_.size(); b++)
      if (s.test(b)) {
        out |= prefix_[b];
        if (group_[b]) out |= around_[group_[b]];
      }
    return out;
  }

  LoopSet acc_loops(const UOp* acc) const {
    LoopSet out;
    for (size_t i = 1; i < acc->src.size(); i++)
      if (acc->src[i]->op == Ops::RANGE) out.set(loop_bit_[at(acc->src[i].get())]);  // not a loop folded to a constant
    return out;
  }

  // ---- 1. scopes (again while the loops around nested reduces grow) ----
  void compute_scopes() {
    scope_.assign(n_, LoopSet());
    provides_.assign(n_, LoopSet());
    for (int pass = 0; pass < 8; pass++) {
      for (uint32_t i = 0; i < n_; i++) {
        const UOp* u = topo_[i];
        if (u->op == Ops::DEFINE_ACC) {
          // its own scope comes from its ASSIGN below; whatever reads the accumulator runs inside its loops
          scope_[i].reset();
          provides_[i] = close(acc_loops(u));
          continue;
        }
        LoopSet s;
        for (uint32_t k = src_at_[i]; k < src_at_[i + 1]; k++) s |= provides_[srcs_[k]];
        if (u->op == Ops::ASSIGN) {
          const UOp* acc = u->src[0].get();
          LoopSet rs = acc_loops(acc), outside = s & ~rs;
          scope_[at(acc)] = close(outside);
          scope_[i] = close(s | rs);
          provides_[i] = close(outside);  // consumers see the finished value
          continue;
        }
        scope_[i] = close(s);
        provides_[i] = scope_[i];
        if (u->op == Ops::RANGE) provides_[i].set(loop_bit_[i]);
      }
      bool changed = false;
      for (size_t g = 1; g < groups_; g++) {
        LoopSet around;
        for (uint32_t acc : group_accs_[g]) around |= scope_[acc];
        if (around != around_[g]) {
          around_[g] = around;
          changed = true;
        }
      }
      if (!changed) break;
    }
  }

  // A loop may open only when the nested reduces its body reads from outside it are finished: their
  // loops cannot open inside it (a loop opens once).
  void find_waits() {
    waits_for_.assign(loops_.size(), {});
    if (groups_ == 1) return;
    std::vector<std::vector<uint32_t>> consumers(n_);
    for (uint32_t i = 0; i < n_; i++)
      for (uint32_t k = src_at_[i]; k < src_at_[i + 1]; k++) consumers[srcs_[k]].push_back(i);
    for (uint32_t a = 0; a < n_; a++) {
      if (topo_[a]->op != Ops::ASSIGN) continue;
      LoopSet own = acc_loops(topo_[a]->src[0].get());
      bool nested = false;
      for (size_t b = 0; b < loops_.size(); b++) nested = nested || (own.test(b) && group_[b]);
      if (!nested) continue;
      LoopSet blocked;
      std::vector<bool> seen(n_);
      std::vector<uint32_t> stack{a};
      seen[a] = true;
      while (!stack.empty()) {
        uint32_t u = stack.back();
        stack.pop_back();
        blocked |= scope_[u] & ~scope_[a] & ~own;
        for (uint32_t c : consumers[u])
          if (!seen[c]) {
            seen[c] = true;
            stack.push_back(c);
          }
      }
      for (size_t b = 0; b < loops_.size(); b++)
        if (blocked.test(b)) waits_for_[b].push_back(a);
    }
  }

  std::vector<const UOp*> topo_;
  uint32_t n_ = 0;
  FlatPtrMap<const UOp*, uint32_t> index_;
  uint32_t at(const UOp* u) const { return *index_.find(u); }
  std::vector<uint32_t> src_at_, srcs_;  // node i's sources: srcs_[src_at_[i] .. src_at_[i+1]]
  std::vector<uint32_t> loops_;   // node index of each loop, by bit
  std::vector<int> loop_bit_;     // per node: its bit, or -1
  std::vector<int> group_;        // per loop bit: 0 (kernel) or its nested group
  std::vector<std::vector<uint32_t>> group_accs_;  // per nested group: the node indices of its accumulators
  size_t groups_ = 1;
  std::vector<LoopSet> prefix_, around_;
  std::vector<LoopSet> scope_;     // where the node is computed
  std::vector<LoopSet> provides_;  // what a consumer inherits from it
  std::vector<std::vector<uint32_t>> waits_for_;  // per loop bit: nested ASSIGNs to finish first
};

// 2. schedule: emit ready nodes of the current scope (in graph order); open the outermost missing loop
// of a node that waits only for loops; else close the innermost loop.
UOpList Linearizer::run() {
  UOpList out;
  std::vector<int> pending(n_, 0), pending_values(n_, 0);  // unfinished dependencies (that are not loops)
  std::vector<bool> listed(n_, false), done(n_, false), opened(n_, false);
  // users of each node, in graph order, as one array (users_at[i] .. users_at[i+1])
  std::vector<uint32_t> users_at(n_ + 1, 0), users;
  auto counts_as_use = [&](uint32_t u, uint32_t src) {
    return !(topo_[u]->op == Ops::DEFINE_ACC && topo_[src]->op == Ops::RANGE);
  };
  size_t remaining = 0;
  for (uint32_t i = 0; i < n_; i++) {
    if (topo_[i]->op == Ops::SINK) continue;
    listed[i] = true;
    remaining++;
    for (uint32_t k = src_at_[i]; k < src_at_[i + 1]; k++) {
      uint32_t src = srcs_[k];
      if (!counts_as_use(i, src)) continue;
      pending[i]++;
      if (topo_[src]->op != Ops::RANGE) pending_values[i]++;
      users_at[src + 1]++;
    }
  }
  for (uint32_t i = 0; i < n_; i++) users_at[i + 1] += users_at[i];
  users.resize(users_at[n_]);
  {
    std::vector<uint32_t> fill(users_at.begin(), users_at.end() - 1);
    for (uint32_t i = 0; i < n_; i++)
      if (listed[i])
        for (uint32_t k = src_at_[i]; k < src_at_[i + 1]; k++)
          if (counts_as_use(i, srcs_[k])) users[fill[srcs_[k]]++] = i;
  }
  // ready nodes by scope, each taken in graph order (a min-heap of node indices)
  using ReadyQueue = std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>>;
  // scopes numbered once (hashing a LoopSet per step was a tenth of the pass)
  std::unordered_map<LoopSet, uint32_t> scope_ids;
  std::vector<uint32_t> scope_id(n_);
  for (uint32_t i = 0; i < n_; i++)  // (neighbours in graph order mostly share a scope: compared, not hashed)
    scope_id[i] = i > 0 && scope_[i] == scope_[i - 1]
                      ? scope_id[i - 1]
                      : scope_ids.emplace(scope_[i], static_cast<uint32_t>(scope_ids.size())).first->second;
  std::vector<ReadyQueue> ready(scope_ids.size());
  auto ready_in = [&](const LoopSet& s) -> ReadyQueue* {
    auto it = scope_ids.find(s);
    return it == scope_ids.end() ? nullptr : &ready[it->second];
  };
  std::vector<bool> queued(n_, false);
  auto make_ready = [&](uint32_t i) {
    ready[scope_id[i]].push(i);
    queued[i] = true;
  };
  for (uint32_t i = 0; i < n_; i++)
    if (listed[i] && pending[i] == 0 && topo_[i]->op != Ops::RANGE) make_ready(i);
  std::vector<uint32_t> open;  // the loop stack
  LoopSet current;
  auto finish = [&](uint32_t i) {
    out.push_back(topo_[i]->ptr());
    done[i] = true;
    remaining--;
    for (uint32_t k = users_at[i]; k < users_at[i + 1]; k++) {
      uint32_t c = users[k];
      if (topo_[i]->op != Ops::RANGE) pending_values[c]--;
      if (--pending[c] == 0 && topo_[c]->op != Ops::RANGE) make_ready(c);
    }
  };
  auto loop_ready = [&](size_t bit) {
    uint32_t r = loops_[bit];
    if (pending[r] != 0 || opened[r]) return false;
    for (uint32_t a : waits_for_[bit])
      if (!done[a]) return false;
    return true;
  };
  ReadyQueue* here = ready_in(current);
  uint32_t first_open = 0;
  while (remaining > 0) {
    if (here && !here->empty()) {
      uint32_t pick = here->top();
      here->pop();
      queued[pick] = false;
      finish(pick);
      continue;
    }
    int to_open = -1;
    while (first_open < n_ && (done[first_open] || !listed[first_open])) first_open++;  // all before it are done
    for (uint32_t i = first_open; i < n_ && to_open < 0; i++) {
      if (!listed[i] || done[i] || pending_values[i] != 0 || topo_[i]->op == Ops::RANGE) continue;
      if (pending[i] == 0 && !queued[i]) continue;
      const LoopSet& s = scope_[i];
      if ((s & current) != current) continue;
      for (size_t b = 0; b < loops_.size(); b++)
        if (s.test(b) && !current.test(b)) {
          if (loop_ready(b)) to_open = static_cast<int>(b);
          break;
        }
    }
    if (to_open >= 0) {
      uint32_t r = loops_[to_open];
      open.push_back(r);
      opened[r] = true;
      current.set(to_open);
      here = ready_in(current);
      finish(r);
      continue;
    }
    LOUPE_ASSERT(!open.empty(), "linearizer is stuck with ", remaining, " nodes left");
    uint32_t r = open.back();
    open.pop_back();
    current.reset(loop_bit_[r]);
    here = ready_in(current);
    out.push_back(UOp::make(Ops::ENDRANGE, dtypes::void_, {topo_[r]->ptr()}));
  }
  while (!open.empty()) {
    out.push_back(UOp::make(Ops::ENDRANGE, dtypes::void_, {topo_[open.back()]->ptr()}));
    open.pop_back();
  }
  return out;
}

} // namespace

UOpList linearize(const UOpPtr& sink) { return Linearizer(sink).run(); }

} // namespace loupe
