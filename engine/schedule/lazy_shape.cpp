#include "schedule/lazy_shape.h"

#include <functional>
#include <numeric>

#include "ir/buffer_ref.h"
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"
#include "support/error.h"

namespace loupe {

const sints& ShapeMemo::of(const UOpPtr& u) {
  if (auto it = memo_.find(u.get()); it != memo_.end()) return it->second;
  sints s;
  switch (u->op) {
  case Ops::BUFFER: s = {static_cast<const BufferRef&>(u->arg.as_object()).size}; break;
  case Ops::CONST:
  case Ops::BIND:
  case Ops::DEFINE_VAR: s = {}; break;
  case Ops::IOTA: s = {u->arg.as_int()}; break;
  case Ops::VIEW: {
    const auto* st = u->arg.object<ShapeTracker>();
    LOUPE_ASSERT(st, "VIEW without a ShapeTracker");
    s = st->shape();
    break;
  }
  case Ops::RESHAPE:
  case Ops::EXPAND: s = sints_from_arg(u->arg, u->op == Ops::RESHAPE ? "RESHAPE" : "EXPAND"); break;
  case Ops::PERMUTE: {
    const sints& in = of(u->src[0]);
    for (int64_t a : u->arg.as_ints()) s.push_back(in[a]);
    break;
  }
  case Ops::PAD: {
    s = of(u->src[0]);
    Ranges r = ranges_from_arg(u->arg, "PAD");
    for (size_t i = 0; i < s.size(); i++) s[i] = s[i] + r[i].first + r[i].second;
    break;
  }
  case Ops::SHRINK: {
    for (const auto& [b, e] : ranges_from_arg(u->arg, "SHRINK")) s.push_back(e - b);
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
