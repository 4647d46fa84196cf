#include "codegen/estimates.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "render/matrix_unit.h"
#include "support/flat_ptr_map.h"

namespace loupe {

namespace {
// a kernel over 2**62 elements has estimates past int64: saturated (they only rank and report)
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? (((a < 0) != (b < 0)) ? INT64_MIN : INT64_MAX) : r;
}
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? (b < 0 ? INT64_MIN : INT64_MAX) : r;
}
} // namespace

EstimatesByVars::EstimatesByVars(const UOpList& linear) {
  // nodes that only compute addresses or gates do not count as work (a node in the set has its whole
  // graph in it: one walk over the union, not one per address)
  FlatPtrSet<const UOp*> addressing(linear.size());
  std::vector<const UOp*> stack;
  for (const UOpPtr& u : linear) {
    if (u->op != Ops::INDEX && u->op != Ops::IF && !(u->op == Ops::LOAD && u->src.size() > 2) &&
        !(u->op == Ops::STORE && u->src.size() > 2))
      continue;
    std::vector<const UOp*> roots;
    if (u->op == Ops::INDEX) roots.push_back(u->src[1].get());
    else if (u->op == Ops::IF) roots.push_back(u->src[0].get());
    else roots.push_back(u->src.back().get());  // the gate
    for (const UOp* r : roots) {
      if (!addressing.insert(r)) continue;
      stack.push_back(r);
      while (!stack.empty()) {
        const UOp* x = stack.back();
        stack.pop_back();
        for (const UOpPtr& s : x->src)
          if (addressing.insert(s.get())) stack.push_back(s.get());
      }
    }
  }
  nests_.emplace_back();
  size_t cur = 0;
  std::vector<size_t> open;  // the nest each open loop was entered from
  auto enter = [&](const UOpPtr& extent) {
    Nest inner;
    inner.extents = nests_[cur].extents;
    inner.extents.push_back(extent);
    nests_.push_back(std::move(inner));
    cur = nests_.size() - 1;
  };
  std::map<int64_t, int64_t> touched;  // DEFINE_GLOBAL index -> bytes
  for (const UOpPtr& u : linear) {
    Nest& n = nests_[cur];
    switch (u->op) {
    case Ops::RANGE:
      open.push_back(cur);
      enter(u->src[0]);
      break;
    case Ops::ENDRANGE:
      if (!open.empty()) {
        cur = open.back();
        open.pop_back();
      }
      break;
    case Ops::SPECIAL:  // a launch id: everything after it runs once per id
      if (!u->src.empty()) enter(u->src[0]);
      break;
    case Ops::LOAD: n.lds = sat_add(n.lds, u->dtype.itemsize()); break;
    case Ops::STORE: n.lds = sat_add(n.lds, u->src[1]->dtype.itemsize()); break;
    case Ops::ASYNC_COPY: n.lds += 2 * u->arg.as_int() * u->src[0]->dtype.base().scalar().itemsize(); break;  // read + write
    case Ops::DEFINE_GLOBAL:
      touched[u->arg.as_int()] = sat_mul(u->dtype.base().itemsize(), std::max<int64_t>(u->dtype.ptr_size, 0));
      break;
    case Ops::WMMA:  // one lane's share of its wave's tile
      if (std::optional<MatrixOpKind> k = matrix_op_of_kind(u->arg.as_string())) {
        const MatrixUnitShape& t = matrix_unit_shape(k->unit);
        n.ops += 2 * t.m * t.n * t.k / t.lanes;
      }
      break;
    default:
      if (is_alu(u->op) && !addressing.contains(u.get())) n.ops += (u->op == Ops::MULACC ? 2 : 1) * u->dtype.count;
    }
  }
  for (auto& [i, b] : touched) mem_ += b;
  std::erase_if(nests_, [](const Nest& n) { return n.ops == 0 && n.lds == 0; });
}

Estimates EstimatesByVars::at(const VarValues* vars) const {
  auto extent = [&](const UOp* size) -> int64_t {
    if (size->op == Ops::CONST) return size->const_int();
    if (vars) return eval_int(size->ptr(), *vars);
    return static_cast<int64_t>(std::min<__int128>(size->vmax(), INT64_MAX));
  };
  Estimates e;
  e.mem = mem_;
  for (const Nest& n : nests_) {
    int64_t iterations = 1;  // (a loop of 0 iterations: what it holds never runs)
    for (const UOpPtr& x : n.extents) iterations = sat_mul(iterations, std::max<int64_t>(extent(x.get()), 0));
    e.ops = sat_add(e.ops, sat_mul(iterations, n.ops));
    e.lds = sat_add(e.lds, sat_mul(iterations, n.lds));
  }
  return e;
}

Estimates estimate_linear(const UOpList& linear, const VarValues* vars) { return EstimatesByVars(linear).at(vars); }

} // namespace loupe
