#include "codegen/estimates.h"

#include <map>
#include <unordered_set>

namespace loupe {

Estimates estimate_linear(const std::vector<UOpPtr>& linear) {
  Estimates e;
  // nodes that only compute addresses or gates do not count as work
  std::unordered_set<const UOp*> addressing;
  for (const UOpPtr& u : linear) {
    if (u->op != Ops::INDEX && u->op != Ops::IF && !(u->op == Ops::LOAD && u->src.size() > 2) &&
        !(u->op == Ops::STORE && u->src.size() > 2))
      continue;
    std::vector<const UOp*> roots;
    if (u->op == Ops::INDEX) roots.push_back(u->src[1].get());
    else if (u->op == Ops::IF) roots.push_back(u->src[0].get());
    else roots.push_back(u->src.back().get());  // the gate
    for (const UOp* r : roots)
      for (const UOp* x : r->toposort()) addressing.insert(x);
  }
  int64_t mult = 1;
  std::vector<int64_t> stack;
  std::map<int64_t, int64_t> touched;  // DEFINE_GLOBAL index -> bytes
  for (const UOpPtr& u : linear) {
    switch (u->op) {
    case Ops::RANGE: {
      int64_t n = u->src[0]->op == Ops::CONST ? u->src[0]->const_int() : 1;
      stack.push_back(n);
      mult *= n;
      break;
    }
    case Ops::ENDRANGE:
      if (!stack.empty()) {
        mult /= std::max<int64_t>(stack.back(), 1);
        stack.pop_back();
      }
      break;
    case Ops::SPECIAL:
      if (!u->src.empty() && u->src[0]->op == Ops::CONST) mult *= u->src[0]->const_int();
      break;
    case Ops::LOAD: e.lds += u->dtype.itemsize() * mult; break;
    case Ops::STORE: e.lds += u->src[1]->dtype.itemsize() * mult; break;
    case Ops::DEFINE_GLOBAL:
      touched[u->arg.as_int()] = u->dtype.base().itemsize() * std::max<int64_t>(u->dtype.ptr_size, 0);
      break;
    case Ops::WMMA: e.ops += mult * 2 * 16 * 8 * 16 / 32; break;  // one lane's share of a warp's m16n8k16
    default:
      if (is_alu(u->op) && !addressing.count(u.get())) e.ops += mult * (u->op == Ops::MULACC ? 2 : 1) * u->dtype.count;
    }
  }
  for (auto& [i, b] : touched) e.mem += b;
  return e;
}

} // namespace loupe
