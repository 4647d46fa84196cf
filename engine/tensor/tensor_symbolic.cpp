// Symbolic shapes in the tensor layer: movement ops whose dims or bounds are sints over bound Variables
// (tinygrad v0.10.2: reshape to and from a Variable's dim, expand, shrink and constant pad with symbolic
// bounds), tensors of a Variable's value, and full() of a symbolic shape. A symbolic argument travels in
// the movement UOp's arg as a SintArg (shape/sint_arg.h); the scheduler unbinds the Variables, so one
// kernel serves every value.
#include <algorithm>
#include <cmath>
#include <functional>

#include "schedule/lazy_shape.h"
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"
#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {

// The number of elements under the Variables' bound values; nullopt where an unbound Variable is left.
std::optional<int64_t> bound_numel(const sints& s) {
  try {
    return bound_value(prod(s));
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool negative(const sint& x) { return x.is_int() ? x.as_int() < 0 : x.vmax() < 0; }

// The view a tensor-level graph shows its base through: its chain of movement ops over the base's shape.
ShapeTracker tracker_of(const UOpPtr& u) {
  UOpList chain;
  UOpPtr x = u;
  while (op_in(x->op, kMovement)) chain.push_back(x), x = x->src[0];
  ShapeMemo shapes;
  ShapeTracker st = x->op == Ops::VIEW ? *x->arg.object<ShapeTracker>() : ShapeTracker::from_shape(shapes.of(x));
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) st = st.movement((*it)->op, (*it)->arg);
  return st;
}

} // namespace

Tensor Tensor::reshape_sym(const sints& new_shape_in) const {
  sints new_shape = new_shape_in;
  const sints& old = sshape();
  int64_t infer = -1;
  sints known;
  for (size_t i = 0; i < new_shape.size(); i++) {
    if (new_shape[i] == -1) {
      if (infer >= 0) throw Error(loupe::cat("reshape ", shape_str(old), " to ", shape_str(new_shape_in), ": only one dimension can be -1"));
      infer = static_cast<int64_t>(i);
    } else if (negative(new_shape[i])) {
      throw Error(loupe::cat("reshape ", shape_str(old), " to ", shape_str(new_shape_in), ": negative dimension"));
    } else {
      known.push_back(new_shape[i]);
    }
  }
  if (infer >= 0) {
    sint k = loupe::prod(known);
    if (k == 0) throw Error(loupe::cat("cannot reshape ", shape_str(old), " to ", shape_str(new_shape_in)));
    new_shape[infer] = sfloordiv(loupe::prod(old), k);
  }
  // sizes compare under the bound values: (3, i) and (3, 2) agree while i is bound to 2
  std::optional<int64_t> a = bound_numel(old), b = bound_numel(new_shape);
  if (a && b && *a != *b)
    throw ValueError(loupe::cat("cannot reshape ", shape_str(old), " (", *a, " elements) to ", shape_str(new_shape), " (", *b,
                                " elements)"));
  if (new_shape == old) return *this;
  // as tinygrad, a symbolic shape is checked against the tensor's view when the reshape is made: a
  // non-contiguous view only takes one that names its own dims
  if (all_int(old) && !all_int(new_shape)) {
    try {
      tracker_of(uop()).reshape(new_shape);
    } catch (const Error& e) {
      throw ValueError(e.what());
    }
  }
  return view(Ops::RESHAPE, sints_to_arg(new_shape), new_shape);
}

Tensor Tensor::expand_sym(const sints& shape_in) const {
  const sints& old = sshape();
  if (shape_in.size() < old.size())
    throw Error(loupe::cat("expand ", shape_str(old), " to ", shape_str(shape_in), ": fewer dimensions"));
  size_t extra = shape_in.size() - old.size();
  sints aligned(extra, 1);
  aligned.insert(aligned.end(), old.begin(), old.end());
  sints target = shape_in;
  for (size_t i = 0; i < target.size(); i++) {
    if (target[i] == -1) {
      if (i < extra) throw Error(loupe::cat("expand ", shape_str(old), " to ", shape_str(shape_in), ": -1 on a new dimension"));
      target[i] = aligned[i];
    }
    if (negative(target[i])) throw Error(loupe::cat("expand ", shape_str(old), " to ", shape_str(shape_in), ": negative dimension"));
    if (aligned[i] != target[i] && aligned[i] != 1)
      throw Error(loupe::cat("cannot expand ", shape_str(old), " to ", shape_str(shape_in), ": dimension ", i - extra, " is ",
                             aligned[i].str(), ", not 1"));
  }
  Tensor r = reshape_sym(aligned);
  if (target == aligned) return r;
  return r.view(Ops::EXPAND, sints_to_arg(target), target);
}

Tensor Tensor::shrink_sym(const SymPadSpec& arg) const {
  const sints& old = sshape();
  if (static_cast<int64_t>(arg.size()) != ndim())
    throw Error(loupe::cat("shrink of shape ", shape_str(old), " needs ", ndim(), " ranges, got ", arg.size()));
  Ranges r;
  sints s;
  bool identity = true;
  for (int64_t i = 0; i < ndim(); i++) {
    auto p = arg[i].value_or(std::pair<sint, sint>{0, old[i]});
    // bounds are checked at the Variables' bound values (tinygrad lets a bound pass the dim at other
    // values: shrink((i, i+2)) of 11 with i up to 10), and refused where no value could fit
    std::optional<int64_t> b = bound_numel({p.first}), e = bound_numel({p.second}), n = bound_numel({old[i]});
    const bool outside_now = b && e && n && (*b < 0 || *e > *n || *b > *e);
    if (outside_now || resolve_lt(p.first, 0, false) || resolve_lt(old[i], p.second, false) || resolve_lt(p.second, p.first, false))
      throw Error(loupe::cat("shrink of shape ", shape_str(old), ": range [", p.first.str(), ", ", p.second.str(), ") on dimension ", i,
                             " is out of bounds"));
    identity = identity && p.first == 0 && p.second == old[i];
    s.push_back(p.second - p.first);
    r.push_back(std::move(p));
  }
  if (identity) return *this;
  return view(Ops::SHRINK, ranges_to_arg(r), s);
}

Tensor Tensor::pad_sym(const SymPadSpec& padding, ConstVal value) const {
  const sints& old = sshape();
  if (static_cast<int64_t>(padding.size()) != ndim())
    throw Error(loupe::cat("pad of shape ", shape_str(old), " needs ", ndim(), " (before, after) pairs, got ", padding.size()));
  Ranges pos;
  bool any = false, all_concrete = true;
  for (const auto& p : padding) {
    std::pair<sint, sint> q = p.value_or(std::pair<sint, sint>{0, 0});
    all_concrete = all_concrete && q.first.is_int() && q.second.is_int();
    any = any || q.first != 0 || q.second != 0;
    pos.push_back(std::move(q));
  }
  if (all_concrete && !symbolic()) {
    PadSpec concrete;
    for (const auto& [b, e] : pos) concrete.push_back(std::pair<int64_t, int64_t>{b.as_int(), e.as_int()});
    return pad(concrete, value);
  }
  // as tinygrad, a symbolic padding is taken where it may be non-negative; it must be at the bound values
  for (const auto& [b, e] : pos) {
    std::optional<int64_t> bv = bound_numel({b}), ev = bound_numel({e});
    if (resolve_lt(b, 0, false) || resolve_lt(e, 0, false) || (bv && *bv < 0) || (ev && *ev < 0))
      throw Error(loupe::cat("pad of shape ", shape_str(old), ": a symbolic padding must be non-negative, got (", b.str(), ", ", e.str(), ")"));
  }
  if (!any) return *this;
  sints s;
  for (size_t i = 0; i < old.size(); i++) s.push_back(old[i] + pos[i].first + pos[i].second);
  Tensor padded = view(Ops::PAD, ranges_to_arg(pos), s);
  if (value.as_double() == 0.0 && !std::signbit(value.as_double())) return padded;  // padding reads as 0
  Tensor inside =
      from_uop_sym(UOp::make(Ops::PAD, dtypes::bool_, {full_like(true).cast(dtypes::bool_).uop()}, ranges_to_arg(pos)), s);
  return inside.where(padded, Tensor(value));
}

Tensor Tensor::full_sym(const sints& shape, ConstVal value, std::optional<DType> dtype) {
  if (all_int(shape)) return full(to_ints(shape), value, dtype);
  for (const sint& s : shape)
    if (negative(s)) throw Error(loupe::cat("Tensor.full: negative dimension in shape ", shape_str(shape)));
  Tensor c = full({}, value, dtype);
  return c.reshape(Shape(shape.size(), 1)).expand_sym(shape);
}

Tensor Tensor::from_sint(const sint& value, DType dtype) {
  if (value.is_int()) return Tensor(ConstVal(value.as_int())).cast(dtype);
  // The expression is rebuilt in int32 (tinygrad's Variables are ints), each Variable cast from the
  // index type it is kept in: its kernels read the value as an ordinary int.
  UOpMap<UOpPtr> memo;
  std::function<UOpPtr(const UOpPtr&)> rebuild = [&](const UOpPtr& u) -> UOpPtr {
    if (auto it = memo.find(u); it != memo.end()) return it->second;
    UOpPtr out;
    if (u->op == Ops::BIND || u->op == Ops::DEFINE_VAR) {
      if (u->op == Ops::DEFINE_VAR)
        throw Error(loupe::cat("a tensor of ", value.str(), ": the Variable ", u->var_name(), " is not bound (bind it to a value)"));
      out = UOp::make(Ops::CAST, dtypes::int32, {u});
    } else if (u->op == Ops::CONST) {
      out = UOp::cnst_int(dtypes::int32, u->const_int());
    } else {
      UOpList src;
      for (const UOpPtr& s : u->src) src.push_back(rebuild(s));
      out = UOp::make(u->op, u->dtype.is_bool() ? u->dtype : dtypes::int32, std::move(src), u->arg);
    }
    memo.emplace(u, out);
    return out;
  };
  Tensor t = from_uop_sym(rebuild(value.sym()), {});
  return dtype == dtypes::int32 ? t : t.cast(dtype);
}

} // namespace loupe
