#include "schedule/folded_output.h"

#include <cmath>

#include "ir/alu_eval.h"
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"

namespace loupe {

namespace {

// The padding of a masked view reads 0 of the dtype: a masked view of +0 is still all +0 (of -0.0 it is not).
bool is_positive_zero(const Arg& v) {
  if (v.is_bool()) return !v.as_bool();
  if (v.is_int()) return v.as_int() == 0;
  return v.is_float() && v.as_double() == 0.0 && !std::signbit(v.as_double());
}

bool any_mask(const ShapeTracker& st) {
  for (const View& v : st.views())
    if (v.mask) return true;
  return false;
}

// n copies of the value c reduced by op, in dtype d: c * n and c^n rounded once for floats (no
// accumulated rounding of n - 1 additions), wrapped to the width for ints.
std::optional<Arg> reduce_of_constant(Ops op, DType d, const Arg& c, int64_t n) {
  if (op == Ops::MAX || d.is_bool()) return c;  // (a bool sum is an OR, a bool product an AND)
  if (d.is_float()) {
    const double x = c.as_double();
    return cast_value(Arg(op == Ops::ADD ? x * static_cast<double>(n) : std::pow(x, static_cast<double>(n))), dtypes::float64, d);
  }
  if (op != Ops::ADD && op != Ops::MUL) return std::nullopt;
  return exec_alu(op == Ops::ADD ? Ops::MUL : Ops::POW, d, {c, Arg(n)}, {d, dtypes::int64});
}

} // namespace

bool is_folded_constant(const UOpPtr& out) {
  const UOp* u = out.get();
  while ((u->op == Ops::EXPAND || u->op == Ops::RESHAPE) && u->src.size() == 1) u = u->src[0].get();
  return u->op == Ops::CONST;
}

std::optional<Arg> OutputFolder::value_of(const UOp* u) {
  auto known = [&](const UOpPtr& s) { return constant_.find(s.get()); };
  switch (u->op) {
  case Ops::CONST:
    if (u->dtype.count != 1 || u->dtype.is_ptr || !u->arg.is_number()) return std::nullopt;
    return u->arg;
  case Ops::VIEW: {
    auto it = known(u->src[0]);
    if (it == constant_.end()) return std::nullopt;
    const ShapeTracker* st = u->arg.object<ShapeTracker>();
    if (!st || (any_mask(*st) && !is_positive_zero(it->second))) return std::nullopt;
    return it->second;
  }
  case Ops::REDUCE_AXIS: {
    const sints& in = shapes_.of(u->src[0]);
    if (!all_int(in)) return std::nullopt;
    const Arg::Tuple& arg = u->arg.as_tuple();
    const Ops op = arg[0].as_op();
    int64_t n = 1;
    for (int64_t a : arg[1].as_ints()) n *= in[static_cast<size_t>(a)].as_int();
    DType d = dtypes::strong(u->dtype);
    if (n == 0) return reduce_identity_value(op, d);
    auto it = known(u->src[0]);
    if (it == constant_.end()) return std::nullopt;
    return reduce_of_constant(op, d, it->second, n);
  }
  default: break;
  }
  if (!is_alu(u->op) && u->op != Ops::CAST && u->op != Ops::BITCAST) return std::nullopt;
  if (u->dtype.count != 1) return std::nullopt;
  std::vector<Arg> operands;
  std::vector<DType> operand_dtypes;
  for (const UOpPtr& s : u->src) {
    auto it = known(s);
    if (it == constant_.end()) return std::nullopt;
    operands.push_back(it->second);
    operand_dtypes.push_back(s->dtype);
  }
  // (undefined results stay in a kernel: an integer division by zero, THREEFRY)
  return exec_alu(u->op, u->dtype, operands, operand_dtypes);
}

void OutputFolder::evaluate() {
  evaluated_ = true;
  for (const UOp* u : order_)
    if (std::optional<Arg> v = value_of(u)) constant_.emplace(u, std::move(*v));
}

UOpPtr OutputFolder::fold(const UOpPtr& out) {
  const sints& shape = shapes_.of(out);
  if (!all_int(shape)) return nullptr;  // (a symbolic shape is a buffer's, allocated at its largest)
  if (!evaluated_) evaluate();
  auto it = constant_.find(out.get());
  if (it == constant_.end()) return nullptr;
  DType d = dtypes::strong(out->dtype);
  UOpPtr c = UOp::make(Ops::CONST, d, {}, cast_value(it->second, out->dtype, d));
  if (shape.empty()) return c;
  UOpPtr ones = UOp::make(Ops::RESHAPE, d, {c}, sints_to_arg(sints(shape.size(), sint(1))));
  return UOp::make(Ops::EXPAND, d, {ones}, sints_to_arg(shape));
}

} // namespace loupe
