#include "codegen/linearizer.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "codegen/kernel.h"
#include "support/error.h"

namespace loupe {

namespace {

using Scope = std::set<const UOp*>;  // RANGE (and IF) nodes a value lives inside

// Loops nest by axis id; a scope is listed outermost first.
int64_t range_order(const UOp* r) { return r->arg.is_int() ? r->arg.as_int() : 0; }

std::vector<const UOp*> ordered(const Scope& s) {
  std::vector<const UOp*> v(s.begin(), s.end());
  std::sort(v.begin(), v.end(), [](const UOp* a, const UOp* b) { return range_order(a) < range_order(b); });
  return v;
}

std::set<const UOp*> acc_ranges(const UOp* acc) {
  std::set<const UOp*> out;
  for (size_t i = 1; i < acc->src.size(); i++)
    if (acc->src[i]->op == Ops::RANGE) out.insert(acc->src[i].get());  // not a loop folded to a constant
  return out;
}

} // namespace

std::vector<UOpPtr> linearize(const UOpPtr& sink) {
  std::vector<const UOp*> topo = sink->toposort();
  std::unordered_map<const UOp*, size_t> topo_index;
  for (size_t i = 0; i < topo.size(); i++) topo_index[topo[i]] = i;

  // Loops nest in axis order (global axes outside reduce axes): a value that needs an inner loop is
  // computed inside every loop around it. The loops of a nested reduce (a group per accumulator) nest
  // the same way among themselves, but not inside the kernel's later axes: a nested reduce that does
  // not depend on them runs once before them.
  std::map<const UOp*, const UOp*> group_of;  // RANGE -> its nested accumulator (null: the kernel's)
  std::map<const UOp*, std::vector<const UOp*>> groups;
  for (const UOp* u : topo) {
    if (u->op == Ops::RANGE && !group_of.count(u)) group_of[u] = nullptr;
    if (u->op == Ops::DEFINE_ACC)
      for (const UOp* r : acc_ranges(u))
        if (r->op == Ops::RANGE && range_order(r) >= kFirstNestedRangeId) group_of[r] = u;
  }
  for (auto& [r, g] : group_of) groups[g].push_back(r);
  for (auto& [g, rs] : groups)
    std::sort(rs.begin(), rs.end(), [](const UOp* a, const UOp* b) { return range_order(a) < range_order(b); });
  // A nested reduce's loops run inside the loops its accumulator lives in (known after a pass).
  std::map<const UOp*, Scope> around;
  auto close = [&](const Scope& s) {
    Scope out;
    for (const auto& [g, rs] : groups) {
      int64_t deepest = -1;
      for (size_t i = 0; i < rs.size(); i++)
        if (s.count(rs[i])) deepest = static_cast<int64_t>(i);
      for (int64_t i = 0; i <= deepest; i++) out.insert(rs[i]);
      if (g && deepest >= 0) out.insert(around[g].begin(), around[g].end());
    }
    for (const UOp* x : s)
      if (x->op != Ops::RANGE) out.insert(x);
    return out;
  };

  // 1. scopes (again while the loops around nested reduces grow)
  std::unordered_map<const UOp*, Scope> scope;       // where the node is computed
  std::unordered_map<const UOp*, Scope> provides;    // what a consumer inherits from it
  for (int pass = 0; pass < 8; pass++) {
    scope.clear();
    provides.clear();
    for (const UOp* u : topo) {
      Scope s;
      if (u->op == Ops::DEFINE_ACC) {
        // its own scope comes from its ASSIGN below; whatever reads the accumulator runs inside its loops
        scope[u] = {};
        Scope inside;
        for (const UOp* r : acc_ranges(u))
          if (r->op == Ops::RANGE) inside.insert(r);
        provides[u] = close(inside);
        continue;
      }
      for (const UOpPtr& src : u->src) {
        const Scope& p = provides[src.get()];
        s.insert(p.begin(), p.end());
      }
      if (u->op == Ops::ASSIGN) {
        const UOp* acc = u->src[0].get();
        std::set<const UOp*> rs = acc_ranges(acc);
        Scope outside;
        for (const UOp* r : s)
          if (!rs.count(r)) outside.insert(r);
        scope[acc] = close(outside);
        s.insert(rs.begin(), rs.end());
        scope[u] = close(s);
        provides[u] = close(outside);  // consumers see the finished value
        continue;
      }
      s = close(s);
      scope[u] = s;
      Scope prov = s;
      if (u->op == Ops::RANGE) prov.insert(u);
      provides[u] = prov;
    }
    bool changed = false;
    for (auto& [g, rs] : groups)
      if (g && scope[g] != around[g]) {
        around[g] = scope[g];
        changed = true;
      }
    if (!changed) break;
  }
  // a range opens in its own scope (what its bound depends on)

  // A loop may open only when the nested reduces its body reads from outside it are finished: their
  // loops cannot open inside it (a loop opens once).
  std::unordered_map<const UOp*, std::vector<const UOp*>> waits_for;  // RANGE -> nested ASSIGNs
  {
    std::unordered_map<const UOp*, std::vector<const UOp*>> consumers;
    for (const UOp* u : topo)
      for (const UOpPtr& src : u->src) consumers[src.get()].push_back(u);
    for (const UOp* a : topo) {
      if (a->op != Ops::ASSIGN || groups.size() == 1) continue;
      bool nested = false;
      for (const UOp* r : acc_ranges(a->src[0].get())) nested = nested || (group_of.count(r) && group_of.at(r));
      if (!nested) continue;
      std::set<const UOp*> seen{a}, blocked;
      std::vector<const UOp*> stack{a};
      while (!stack.empty()) {
        const UOp* u = stack.back();
        stack.pop_back();
        for (const UOp* r : scope[u])
          if (r->op == Ops::RANGE && !scope[a].count(r) && !acc_ranges(a->src[0].get()).count(r)) blocked.insert(r);
        for (const UOp* c : consumers[u])
          if (seen.insert(c).second) stack.push_back(c);
      }
      for (const UOp* r : blocked) waits_for[r].push_back(a);
    }
  }

  // 2. schedule: emit ready nodes of the current scope; open a range some ready node needs; else close
  std::vector<UOpPtr> out;
  std::unordered_map<const UOp*, int> pending;  // unfinished dependencies
  std::unordered_map<const UOp*, int> pending_values;  // unfinished dependencies that are not loops
  std::unordered_map<const UOp*, std::vector<const UOp*>> users;
  for (const UOp* u : topo) {
    if (u->op == Ops::SINK) continue;
    int deps = 0;
    pending_values[u] = 0;
    for (const UOpPtr& src : u->src) {
      if (u->op == Ops::DEFINE_ACC && src->op == Ops::RANGE) continue;
      deps++;
      if (src->op != Ops::RANGE) pending_values[u]++;
      users[src.get()].push_back(u);
    }
    pending[u] = deps;
  }
  auto by_topo = [&](const UOp* a, const UOp* b) { return topo_index[a] < topo_index[b]; };
  std::set<const UOp*, decltype(by_topo)> ready(by_topo);
  for (auto& [u, n] : pending)
    if (n == 0 && u->op != Ops::RANGE) ready.insert(u);
  std::vector<const UOp*> open;  // the loop stack
  std::set<const UOp*> opened, done;
  size_t remaining = pending.size();
  auto finish = [&](const UOp* u) {
    out.push_back(u->ptr());
    done.insert(u);
    remaining--;
    for (const UOp* c : users[u]) {
      if (u->op != Ops::RANGE) pending_values[c]--;
      if (--pending[c] == 0 && c->op != Ops::RANGE) ready.insert(c);
    }
  };
  // ranges become emittable when their bound is; we open them on demand
  auto range_ready = [&](const UOp* r) {
    if (pending[r] != 0 || opened.count(r)) return false;
    auto w = waits_for.find(r);
    if (w != waits_for.end())
      for (const UOp* a : w->second)
        if (!done.count(a)) return false;
    return true;
  };
  while (remaining > 0) {
    Scope current(open.begin(), open.end());
    const UOp* pick = nullptr;
    for (const UOp* u : ready)
      if (scope[u] == current) {
        pick = u;
        break;
      }
    if (pick) {
      ready.erase(pick);
      finish(pick);
      continue;
    }
    // open the outermost missing range of a node that waits only for loops and lives inside this scope
    const UOp* to_open = nullptr;
    for (const auto& [u, n] : pending_values) {
      if (n != 0 || u->op == Ops::RANGE || (pending[u] == 0 && !ready.count(u))) continue;
      const Scope& s = scope[u];
      if (!std::includes(s.begin(), s.end(), current.begin(), current.end())) continue;
      for (const UOp* r : ordered(s))
        if (!current.count(r)) {
          if (range_ready(r)) to_open = r;
          break;
        }
      if (to_open) break;
    }
    if (to_open) {
      open.push_back(to_open);
      opened.insert(to_open);
      finish(to_open);
      continue;
    }
    LOUPE_ASSERT(!open.empty(), "linearizer is stuck with ", remaining, " nodes left");
    const UOp* r = open.back();
    open.pop_back();
    out.push_back(UOp::make(Ops::ENDRANGE, dtypes::void_, {r->ptr()}));
  }
  while (!open.empty()) {
    out.push_back(UOp::make(Ops::ENDRANGE, dtypes::void_, {open.back()->ptr()}));
    open.pop_back();
  }
  return out;
}

} // namespace loupe
