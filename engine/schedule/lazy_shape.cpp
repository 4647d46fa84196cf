#include "schedule/lazy_shape.h"

#include <functional>
#include <numeric>

#include "ir/buffer_ref.h"
#include "shape/shapetracker.h"
#include "support/error.h"

namespace loupe {

const Shape& ShapeMemo::of(const UOpPtr& u) {
  if (auto it = memo_.find(u.get()); it != memo_.end()) return it->second;
  Shape s;
  switch (u->op) {
  case Ops::BUFFER: s = {static_cast<const BufferRef&>(u->arg.as_object()).size}; break;
  case Ops::CONST: s = {}; break;
  case Ops::IOTA: s = {u->arg.as_int()}; break;
  case Ops::VIEW: {
    const auto* st = u->arg.object<ShapeTracker>();
    LOUPE_ASSERT(st, "VIEW without a ShapeTracker");
    for (const sint& d : st->shape()) s.push_back(d.as_int());
    break;
  }
  case Ops::RESHAPE:
  case Ops::EXPAND: s = u->arg.as_ints(); break;
  case Ops::PERMUTE: {
    const Shape& in = of(u->src[0]);
    for (int64_t a : u->arg.as_ints()) s.push_back(in[a]);
    break;
  }
  case Ops::PAD: {
    s = of(u->src[0]);
    const auto& t = u->arg.as_tuple();
    for (size_t i = 0; i < s.size(); i++) s[i] += t[i].as_tuple()[0].as_int() + t[i].as_tuple()[1].as_int();
    break;
  }
  case Ops::SHRINK: {
    const auto& t = u->arg.as_tuple();
    for (const Arg& p : t) s.push_back(p.as_tuple()[1].as_int() - p.as_tuple()[0].as_int());
    break;
  }
  case Ops::REDUCE_AXIS: {
    s = of(u->src[0]);
    for (const Arg& a : u->arg.as_tuple()[1].as_tuple()) s[a.as_int()] = 1;
    break;
  }
  case Ops::SINK: s = {}; break;
  default:
    LOUPE_ASSERT(!u->src.empty(), "no shape rule for ", op_name(u->op));
    s = of(u->src[u->op == Ops::WHERE ? 1 : 0]);
  }
  keep_.push_back(u);
  return memo_.emplace(u.get(), std::move(s)).first->second;
}

int64_t numel(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>()); }

bool is_plain_reshape(const UOpPtr& view, ShapeMemo& shapes) {
  ShapeTracker st = view->arg.object<ShapeTracker>()->simplify();
  return st.contiguous() && st.size() == numel(shapes.of(view->src[0]));
}

} // namespace loupe
