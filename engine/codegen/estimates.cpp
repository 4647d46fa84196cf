#include "codegen/estimates.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

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

Estimates estimate_linear(const UOpList& linear, const VarValues* vars) {
  Estimates e;
  auto extent = [&](const UOp* size) -> int64_t {
    if (size->op == Ops::CONST) return size->const_int();
    if (vars) return eval_int(size->ptr(), *vars);
    return static_cast<int64_t>(std::min<__int128>(size->vmax(), INT64_MAX));
  };
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
  int64_t mult = 1;
  std::vector<int64_t> loops;
  std::map<int64_t, int64_t> touched;  // DEFINE_GLOBAL index -> bytes
  for (const UOpPtr& u : linear) {
    switch (u->op) {
    case Ops::RANGE: {
      loops.push_back(mult);  // restored at its end (a loop of 0 iterations leaves no trace of its size)
      mult = sat_mul(mult, std::max<int64_t>(extent(u->src[0].get()), 0));
      break;
    }
    case Ops::ENDRANGE:
      if (!loops.empty()) {
        mult = loops.back();
        loops.pop_back();
      }
      break;
    case Ops::SPECIAL:
      if (!u->src.empty()) mult = sat_mul(mult, std::max<int64_t>(extent(u->src[0].get()), 0));
      break;
    case Ops::LOAD: e.lds = sat_add(e.lds, sat_mul(u->dtype.itemsize(), mult)); break;
    case Ops::STORE: e.lds = sat_add(e.lds, sat_mul(u->src[1]->dtype.itemsize(), mult)); break;
    case Ops::ASYNC_COPY: e.lds += 2 * u->arg.as_int() * u->src[0]->dtype.base().scalar().itemsize() * mult; break;  // read + write
    case Ops::DEFINE_GLOBAL:
      touched[u->arg.as_int()] = sat_mul(u->dtype.base().itemsize(), std::max<int64_t>(u->dtype.ptr_size, 0));
      break;
    case Ops::WMMA: e.ops += mult * 2 * 16 * 8 * 16 / 32; break;  // one lane's share of a warp's m16n8k16
    default:
      if (is_alu(u->op) && !addressing.contains(u.get())) e.ops += mult * (u->op == Ops::MULACC ? 2 : 1) * u->dtype.count;
    }
  }
  for (auto& [i, b] : touched) e.mem += b;
  return e;
}

} // namespace loupe
