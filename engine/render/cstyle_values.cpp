// How the C-style writer spells values: operands, conversions between C types, constants, lanes of
// vectors, and ALU ops on scalars and on whole vectors.
#include <algorithm>
#include <limits>
#include <map>

#include "render/cstyle_writer.h"
#include "render/linear_analysis.h"

namespace loupe {
namespace cstyle {

namespace {

// Operations whose result can leave a narrow integer type before C converts it back.
bool can_overflow(Ops op) {
  return op == Ops::ADD || op == Ops::SUB || op == Ops::MUL || op == Ops::NEG || op == Ops::SHL || op == Ops::MULACC;
}

} // namespace

bool strips_left(Ops op) {
  return op == Ops::ADD || op == Ops::MUL || op == Ops::AND || op == Ops::OR || op == Ops::XOR;
}

const std::string& KernelWriter::text(const UOp* u) {
  NodeInfo& i = info(u);
  if (i.has_text) return i.text;
  if (u->op == Ops::CONST || u->op == Ops::VCONST) {
    set_text(u, constant(u));
    return i.text;
  }
  fail(u, "source used before it is rendered (not in the linearized list, or out of order)");
}

void KernelWriter::analyze() {
  size_t nodes = uops_.size();
  for (const UOpPtr& u : uops_) nodes += u ? u->src.size() : 0;
  info_.reserve(nodes);
  for (size_t i = 0; i < uops_.size(); i++) LOUPE_ASSERT(uops_[i] != nullptr, "null UOp in the linearized kernel at ", i);
  for (const UOpPtr& u : uops_)
    if (u->op == Ops::STORE)
      if (const UOp* buf = buffer_of(u->src[0].get())) info(buf).is_mutable = true;
  // A vector value read lane by lane needs a name, unless the dialect writes the op on whole vectors.
  FlatPtrSet<const UOp*> inline_here = c_inlined_values(uops_, R.caps());
  for (const UOpPtr& u : uops_) info(u.get()).inlined = inline_here.contains(u.get());
  if (R.caps().splits_outer_loop) split_range_ = splittable_outer_loop(uops_);
}


std::string KernelWriter::convert(const std::string& x, DType have, DType want) {
  if (have == want) return x;
  if (want.scalar_type == Scalar::BFloat16) {
    use_type(want);
    return call("f2bf", dtypes::float32, have == dtypes::float32 ? x : "(float)(" + x + ")");
  }
  if (have.scalar_type == Scalar::BFloat16) {
    use_type(have);
    return convert(call("bf2f", dtypes::float32, x), dtypes::float32, want);
  }
  use_type(want);
  // Like tinygrad on the CPU: double -> half goes through float.
  if (want.scalar_type == Scalar::Float16 && have.scalar_type == Scalar::Float64)
    return "((" + R.scalar_name(want) + ")((float)" + (is_primary(x) ? x : "(" + x + ")") + "))";
  return "((" + R.type_name(want) + ")" + (is_primary(x) ? x : "(" + x + ")") + ")";
}

std::string KernelWriter::vec_literal(DType vt, const std::vector<std::string>& lanes) {
  std::string inner;
  for (size_t i = 0; i < lanes.size(); i++) inner += (i ? "," : "") + lanes[i];
  if (vt.scalar().is_bool()) return "{" + inner + "}";  // bool vectors are arrays (see declare)
  use_type(vt);
  if (L.vector_literal == CLanguage::VectorLiteral::MakeFunction) return "make_" + R.type_name(vt) + "(" + inner + ")";
  if (L.vector_literal == CLanguage::VectorLiteral::Braces) return "(" + R.type_name(vt) + "){" + inner + "}";
  return "(" + R.type_name(vt) + ")(" + inner + ")";
}

std::string KernelWriter::constant(const UOp* u) {
  DType t = rtype(u);
  use_type(t.scalar());
  if (u->op == Ops::VCONST) {
    std::vector<std::string> lanes;
    for (const Arg& a : u->arg.as_tuple()) lanes.push_back(c_constant(R, a, t.scalar()));
    return vec_literal(t, lanes);
  }
  std::string one = c_constant(R, u->arg, t.scalar());
  if (t.count == 1) return one;
  return vec_literal(t, std::vector<std::string>(t.count, one));
}

// Lane i of a vector value, spelled without re-evaluating the whole vector where possible.
std::string KernelWriter::lane(const UOp* u, int i) {
  if (u->op == Ops::CONST) return c_constant(R, u->arg, rtype(u).scalar());
  if (u->op == Ops::VCONST) return c_constant(R, u->arg.as_tuple().at(i), rtype(u).scalar());
  if (u->op == Ops::VECTORIZE && inlined(u)) return text(u->src.at(i).get());
  if (u->op == Ops::GEP && inlined(u)) return lane(u->src[0].get(), static_cast<int>(u->arg.as_tuple().at(i).as_int()));
  if (u->dtype.count == 1) return text(u);  // a scalar broadcast into every lane
  if (inlined(u)) fail(u, "a vector expression read lane by lane must be named");
  if (is_mask(u)) return "(" + text(u) + "[" + std::to_string(i) + "]!=0)";  // a bool again
  if (L.gep_brackets || u->dtype.count > 4 || u->op == Ops::LOAD_MATRIX) return text(u) + "[" + std::to_string(i) + "]";
  return text(u) + "." + std::string(1, "xyzw"[i]);
}

Operand KernelWriter::operand(const UOp* u, int ln) {
  Operand o;
  o.node = u;
  o.type = rtype(u).scalar();
  o.inlined = inlined(u);
  if (u->op == Ops::CONST) o.cval = &u->arg;
  if (u->op == Ops::VCONST && ln >= 0) o.cval = &u->arg.as_tuple().at(ln);
  if (ln >= 0) o.spelled = lane(u, ln);
  else o.shown = &text(u);  // NodeInfo texts live in a deque: the reference stays valid
  return o;
}

KernelWriter::Operands KernelWriter::operands(const UOp* u, int lane) {
  LOUPE_ASSERT(u->src.size() <= 3, op_name(u->op), " with ", u->src.size(), " operands");
  Operands xs;
  for (const UOpPtr& s : u->src) xs.items[xs.count++] = operand(s.get(), lane >= 0 && s->dtype.count > 1 ? lane : -1);
  return xs;
}

std::string KernelWriter::scalar_alu(const UOp* u, Ops op, DType res, std::span<const Operand> xs) {
  auto math_of = [](DType t) {
    return t.scalar_type == Scalar::Float16 || t.scalar_type == Scalar::BFloat16 ? dtypes::float32 : t;
  };
  auto widen = [](DType m, DType x) {  // index math: int mixed with long long computes in long long
    return m == dtypes::int32 && x == dtypes::int64 ? dtypes::int64 : m;
  };
  bool cmp = op == Ops::CMPLT || op == Ops::CMPNE;
  DType m = math_of(cmp ? xs[0].type : res);
  if (op == Ops::WHERE) m = res;
  for (size_t i = op == Ops::WHERE ? 1 : 0; i < xs.size(); i++) m = widen(m, math_of(xs[i].type));
  // the operands as spelled in m: an operand's own text when it needs no conversion (not copied)
  LOUPE_ASSERT(xs.size() <= 3, op_name(op), " with ", xs.size(), " operands");
  std::array<std::string, 3> converted;
  std::array<std::string_view, 3> a;
  for (size_t i = 0; i < xs.size(); i++) {
    DType want = op == Ops::WHERE && i == 0 ? dtypes::bool_ : m;
    if (xs[i].type == want) {
      a[i] = xs[i].text();
    } else {
      converted[i] = conv(xs[i], want);
      a[i] = converted[i];
    }
    if (i == 0 && strips_left(op) && xs[0].inlined && xs[0].node->op == op && xs[0].type == m &&
        ((xs[0].shown && info(xs[0].node).grouped) || one_group(a[0])))
      a[0] = a[0].substr(1, a[0].size() - 2);
  }
  auto bin = [&](std::string_view sym) { return join_text({"(", a[0], sym, a[1], ")"}); };
  auto args2 = [&] { return join_text({a[0], ", ", a[1]}); };
  auto divisor_safe = [&](const Operand& b, const Operand& num) {
    const UOp* d = b.node;
    if (d->vmin() > 0 || d->vmax() < -1) return true;
    if (!m.is_unsigned() && (d->vmin() > 0 || d->vmax() < 0)) return num.node->vmin() > m.min_int();
    return false;
  };
  std::string e = explicit_fma(op, m, xs);
  if (!e.empty()) return e;
  switch (op) {
  case Ops::ADD: e = bin("+"); break;
  case Ops::SUB: e = join_text({"(", a[0], "-", paren_if_negative(a[1]), ")"}); break;
  case Ops::MUL: e = bin("*"); break;
  case Ops::FDIV: e = bin("/"); break;
  case Ops::AND: e = bin("&"); break;
  case Ops::OR: e = bin("|"); break;
  case Ops::XOR: e = bin("^"); break;
  case Ops::CMPLT: e = bin("<"); break;
  case Ops::CMPNE: e = bin("!="); break;
  case Ops::SHR: e = bin(">>"); break;
  case Ops::NEG: e = join_text({"(-", paren_if_negative(a[0]), ")"}); break;
  case Ops::RECIP: e = join_text({"(", c_constant(R, Arg(1.0), m), "/", a[0], ")"}); break;
  case Ops::SHL:
    if (m.is_int() && !m.is_unsigned()) {  // shift the bits unsigned: a negative left operand is UB in C
      std::string u_t = m.bitsize() == 64 ? "unsigned long long" : "unsigned int";
      e = join_text({"((", R.scalar_name(m), ")((", u_t, ")", a[0], "<<", a[1], "))"});
    } else e = bin("<<");
    break;
  case Ops::WHERE: e = join_text({"(", a[0], "?", a[1], ":", a[2], ")"}); break;
  case Ops::MULACC: e = join_text({"((", a[0], "*", a[1], ")+", paren_if_negative(a[2]), ")"}); break;
  case Ops::MAX: e = call("max", m, args2()); break;
  case Ops::SQRT: e = R.math_call("sqrt", m, std::string(a[0])); break;
  case Ops::TRUNC: e = m.is_float() ? R.math_call("trunc", m, std::string(a[0])) : std::string(a[0]); break;
  case Ops::EXP2:
  case Ops::LOG2:
  case Ops::SIN:
    if (!R.caps().code_for_op.has(op))
      fail(u, cat(op_name(op), " has no C code on this device: apply transcendental_rules before rendering"));
    e = R.math_call(op == Ops::EXP2 ? "exp2" : op == Ops::LOG2 ? "log2" : "sin", m, std::string(a[0]));
    break;
  case Ops::POW:
    if (!R.caps().code_for_op.has(op)) fail(u, "POW has no C code on this device: apply transcendental_rules first");
    e = R.math_call("pow", m, args2());
    break;
  case Ops::IDIV:
    if (m.is_float()) e = R.math_call("trunc", m, bin("/"));
    else e = divisor_safe(xs[1], xs[0]) ? bin("/") : call("idiv", m, args2());
    break;
  case Ops::MOD:
    if (m.is_float()) e = R.math_call("fmod", m, args2());
    else e = divisor_safe(xs[1], xs[0]) ? bin("%") : call("imod", m, args2());
    break;
  case Ops::FLOORDIV:
    if (m.is_float()) e = R.math_call("floor", m, bin("/"));
    else if (xs[0].node->vmin() >= 0 && xs[1].node->vmin() > 0) e = bin("/");  // C truncation is floor here
    else e = call("floordiv", m, args2());
    break;
  case Ops::FLOORMOD:
    if (!m.is_float() && xs[0].node->vmin() >= 0 && xs[1].node->vmin() > 0) e = bin("%");
    else e = call("floormod", m, args2());
    break;
  default: fail(u, cat("no C spelling for ALU op ", op_name(op)));
  }
  DType out = cmp ? dtypes::bool_ : res;
  if (cmp) return e;
  if (m != out) return convert(e, m, out);
  if ((m.is_int() && m.bitsize() < 32 && can_overflow(op)) || (m.is_bool() && can_overflow(op))) {
    use_type(m);
    return "((" + R.scalar_name(m) + ")" + e + ")";
  }
  return e;
}

// clang's contraction rule (CodeGen's tryEmitFMulAdd): an fadd/fsub whose left, else right, operand is
// a multiply written in the same expression fuses with it; one through a named variable does not.
std::string KernelWriter::explicit_fma(Ops op, DType m, std::span<const Operand> xs) {
  if (!L.explicit_fma || (m != dtypes::float32 && m != dtypes::float64)) return {};
  if (op == Ops::MULACC)
    return cat(m == dtypes::float64 ? "fma(" : "fmaf(", conv(xs[0], m), ", ", conv(xs[1], m), ", ", conv(xs[2], m), ")");
  if (op != Ops::ADD && op != Ops::SUB) return {};
  auto fusable = [&](const Operand& o) { return o.inlined && o.node->op == Ops::MUL && o.type == m && o.node->dtype.count == 1; };
  int k = fusable(xs[0]) ? 0 : fusable(xs[1]) ? 1 : -1;
  if (k < 0) return {};
  const UOp* mul = xs[k].node;
  std::string x = conv(operand(mul->src[0].get()), m), y = conv(operand(mul->src[1].get()), m);
  std::string other = xs[1 - k].text();
  if (op == Ops::SUB && k == 0) other = "-" + paren_if_negative(other);
  if (op == Ops::SUB && k == 1) x = "-" + paren_if_negative(x);
  return cat(m == dtypes::float64 ? "fma(" : "fmaf(", x, ", ", y, ", ", other, ")");
}

std::string KernelWriter::index_expr(const UOp* u) {
  const UOp* buf = u->src.at(0).get();
  const UOp* idx = u->src.at(1).get();
  std::string it = text(idx);
  if (inlined(idx) && idx->op == Ops::ADD) it = strip_parens(it);
  return "(" + text(buf) + "+" + it + ")";
}

std::string KernelWriter::value_expr(const UOp* u) {
  DType t = rtype(u);
  int n = u->dtype.count;
  if (u->op == Ops::VECTORIZE) {
    std::vector<std::string> lanes;
    for (const UOpPtr& s : u->src) lanes.push_back(text(s.get()));
    return vec_literal(t, lanes);
  }
  if (u->op == Ops::GEP) {
    const auto& lanes = u->arg.as_tuple();
    if (lanes.size() == 1) return lane(u->src[0].get(), static_cast<int>(lanes[0].as_int()));
    std::vector<std::string> ls;
    for (const Arg& a : lanes) ls.push_back(lane(u->src[0].get(), static_cast<int>(a.as_int())));
    return vec_literal(t, ls);
  }
  if (u->op == Ops::BITCAST) {
    DType from = rtype(u->src[0].get());
    use_type(from);
    use_type(t);
    std::string x = text(u->src[0].get());
    if (vector_conversion(u))  // a cast between vector types of one size keeps the bits
      return "((" + R.type_name(t) + ")" + (is_primary(x) ? x : "(" + x + ")") + ")";
    std::string inl = R.inline_bitcast(from, t, x);
    return inl.empty() ? call("bitcast", from, x, t) : inl;
  }
  if (u->op == Ops::CAST && u->dtype.is_ptr) {  // a vector view of a buffer: ((float4*)(data1+i))
    const UOp* buf = buffer_of(u);
    bool ro = L.const_buffers && buf && buf->op == Ops::DEFINE_GLOBAL && !info(buf).is_mutable;
    std::string pre = u->dtype.local ? L.smem_prefix : L.buffer_prefix;
    use_type(u->dtype.base());
    return "((" + pre + (ro ? "const " : "") + R.type_name(u->dtype) + ")(" + text(u->src[0].get()) + "))";
  }
  if (u->op == Ops::CAST) {
    if (n == 1) {
      Operand o = operand(u->src[0].get());
      return conv(o, t);
    }
    if (vector_conversion(u)) {
      use_type(rtype(u->src[0].get()));
      use_type(t);
      return "__builtin_convertvector(" + text(u->src[0].get()) + ", " + R.type_name(t) + ")";
    }
    std::vector<std::string> lanes;
    for (int i = 0; i < n; i++) lanes.push_back(conv(operand(u->src[0].get(), i), t.scalar()));
    return vec_literal(t, lanes);
  }
  LOUPE_ASSERT(is_alu(u->op), "value_expr of ", op_name(u->op));
  if (n > 1 && vector_operator(u) && (u->op == Ops::SHL || (u->op == Ops::WHERE && u->src[0]->dtype.count > 1)))
    return vector_alu(u);
  if (n == 1 || vector_operator(u))  // a vector operator spells the same as its scalar op
    return scalar_alu(u, u->op, t.scalar(), operands(u, -1).view());
  std::vector<std::string> lanes;
  for (int i = 0; i < n; i++) lanes.push_back(scalar_alu(u, u->op, t.scalar(), operands(u, i).view()));
  DType res = op_in(u->op, kComparison) ? dtypes::bool_.vec(n) : t;
  return vec_literal(res, lanes);
}

// The vector ops C spells differently from their scalar op.
std::string KernelWriter::vector_alu(const UOp* u) {
  DType t = rtype(u);
  use_type(t);
  auto term = [&](const UOp* s) {
    const std::string& x = text(s);
    return is_primary(x) ? x : "(" + x + ")";
  };
  if (u->op == Ops::SHL) {  // shifted unsigned, as the scalar op: a negative left operand is UB in C
    DType bits = (t.scalar().itemsize() == 8 ? dtypes::uint64 : dtypes::uint32).vec(t.count);
    use_type(bits);
    return "((" + R.type_name(t) + ")((" + R.type_name(bits) + ")" + term(u->src[0].get()) + "<<" + text(u->src[1].get()) + "))";
  }
  // WHERE under a mask: the bits of each lane's value kept where the mask is -1
  const UOp* m = u->src[0].get();
  DType ints = mask_type(m);
  use_type(ints);
  const std::string& I = R.type_name(ints);
  auto as_ints = [&](const UOp* s) { return ints == t ? term(s) : "(" + I + ")" + term(s); };
  std::string blend = "((" + as_ints(u->src[1].get()) + "&" + text(m) + ")|(" + as_ints(u->src[2].get()) + "&~" + text(m) + "))";
  return ints == t ? blend : "((" + R.type_name(t) + ")" + blend + ")";
}


} // namespace cstyle

// A vector ALU op the dialect writes as an operator on whole vectors (RendererCaps::vector_ops).
bool CVectorSpelling::vector_operator(const UOp* u) const {
  if (u->dtype.count == 1 || !is_alu(u->op) || !caps.vector_ops.has(u->op)) return false;
  if (is_mask(u)) return true;
  if (!is_vector_alu_element(u->dtype.scalar())) return false;
  if (u->op == Ops::WHERE)  // under one scalar condition, or a mask of lanes as wide as the values
    return u->src[1]->dtype == u->dtype && u->src[2]->dtype == u->dtype &&
           (u->src[0]->dtype == dtypes::bool_ ||
            (is_mask(u->src[0].get()) && mask_type(u->src[0].get()).scalar().itemsize() == u->dtype.scalar().itemsize()));
  // a scalar of the element type joins by broadcast, which C vector extensions do implicitly
  return std::all_of(u->src.begin(), u->src.end(), [&](const UOpPtr& s) { return s->dtype == u->dtype || s->dtype == u->dtype.scalar(); });
}

// A compare of whole vectors: C gives a mask, a vector of signed ints as wide as the operands' lanes
// (-1 where true, 0 where false), not a vector of bools. (And the and/or of two such masks.)
bool CVectorSpelling::is_mask(const UOp* u) const {
  if (u->dtype.count == 1 || !u->dtype.scalar().is_bool() || !caps.vector_ops.has(u->op)) return false;
  if (u->op == Ops::AND || u->op == Ops::OR)
    return is_mask(u->src[0].get()) && is_mask(u->src[1].get()) && mask_type(u->src[0].get()) == mask_type(u->src[1].get());
  if (u->op != Ops::CMPLT && u->op != Ops::CMPNE) return false;
  DType v = compared(u);  // the other operand may be one scalar, broadcast
  return v.count == u->dtype.count && is_vector_alu_element(v.scalar()) &&
         std::all_of(u->src.begin(), u->src.end(), [&](const UOpPtr& s) { return s->dtype == v || s->dtype == v.scalar(); });
}

DType CVectorSpelling::compared(const UOp* cmp) { return cmp->src[0]->dtype.count > 1 ? cmp->src[0]->dtype : cmp->src[1]->dtype; }

DType CVectorSpelling::mask_type(const UOp* u) {
  if (u->op == Ops::AND || u->op == Ops::OR) return mask_type(u->src[0].get());
  return (compared(u).scalar().itemsize() == 8 ? dtypes::int64 : dtypes::int32).vec(u->dtype.count);
}

// A CAST or BITCAST of a vector to another element type of the same width, on whole vectors.
bool CVectorSpelling::vector_conversion(const UOp* u) const {
  if ((u->op != Ops::CAST && u->op != Ops::BITCAST) || u->dtype.count == 1 || u->dtype.is_ptr) return false;
  DType from = u->src[0]->dtype;
  return caps.vector_ops.has(u->op) && from.count == u->dtype.count && !from.is_ptr && is_vector_alu_element(from.scalar()) &&
         is_vector_alu_element(u->dtype.scalar()) && from.itemsize() == u->dtype.itemsize();
}

bool CVectorSpelling::read_lane_by_lane(const UOp* u) const {
  return u->op == Ops::GEP ||
         (u->dtype.count > 1 && ((is_alu(u->op) && !vector_operator(u)) || (u->op == Ops::CAST && !vector_conversion(u))));
}

FlatPtrSet<const UOp*> c_inlined_values(const UOpList& uops, const RendererCaps& caps) {
  CVectorSpelling v{caps};
  return inlined_values(uops, [&](const UOp* u) { return v.read_lane_by_lane(u); });
}

} // namespace loupe
