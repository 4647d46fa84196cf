#include "render/llvm_ir_writer.h"

#include "render/cstyle.h"
#include "render/linear_analysis.h"
#include "render/llvm_renderer.h"

namespace loupe::llvm_ir {

// Which values the C renderer inlines into their consumer (render/cstyle.cpp's rule: single-use value
// ops that are not read lane by lane, unless an accumulator they read is assigned before the use).
// Needed because clang contracts a*b+c written in one C expression into fmuladd (-ffp-contract=on),
// and the LLVM device must compute the same values as the CPU device.
void IrWriter::find_c_inlining() { c_inlined_ = c_inlined_values(uops_, caps_); }

const UOp* IrWriter::spelled(const UOp* u, int lane) const { return c_spelled_node(u, lane, c_inlined_); }

// llvm.fmuladd(a, b, c) of type m (a float, or a vector of them). With `sub`, the sum it stands for is
// a difference whose product is on side `product_side` (0: a*b - c, 1: c - a*b), so a side is negated.
std::string IrWriter::fmuladd(DType m, std::string a, const std::string& b, std::string c, bool sub, int product_side) {
  const std::string T = llvm_type(m);
  if (sub && product_side == 0) c = emit("fneg " + T + " " + c);
  if (sub && product_side == 1) a = emit("fneg " + T + " " + a);
  return emit("call " + T + " " + intrinsic("fmuladd", m) + "(" + T + " " + a + ", " + T + " " + b + ", " + T + " " + c + ")");
}

// a*b + c (or a*b - c, c - a*b) as llvm.fmuladd where the C text has the product inside the sum, the
// first operand checked first (clang's order); "" where there is nothing to contract.
std::string IrWriter::contracted(const std::vector<Val>& xs, bool sub, DType m) {
  if (m.scalar_type != Scalar::Float32 && m.scalar_type != Scalar::Float64) return "";
  for (int side = 0; side < 2; side++) {
    const UOp* mul = spelled(xs[side].node, xs[side].lane);
    if (mul->op != Ops::MUL || resolve(mul->dtype) != m || !c_inlined_.contains(mul) || xs[side].type != m) continue;
    return fmuladd(m, conv(value(mul->src[0].get()), m), conv(value(mul->src[1].get()), m), conv(xs[1 - side], m), sub, side);
  }
  return "";
}

// The value of a node at this point of the program. An accumulator (or an ASSIGN, which names it) is
// read from its slot here, so a read sees the latest assignment, as in the C text.
Val IrWriter::value(const UOp* u) {
  Val v;
  v.node = u;
  v.type = resolve(u->dtype);
  if (u->op == Ops::CONST || u->op == Ops::VCONST) {
    if (u->op == Ops::CONST) v.cval = &u->arg;
    if (v.type.count == 1) {
      v.text = constant_text(u->arg, v.type);
      return v;
    }
    std::vector<std::string> lanes;
    for (int i = 0; i < v.type.count; i++)
      lanes.push_back(scalar_type(v.type.scalar()) + " " +
                      constant_text(u->op == Ops::VCONST ? u->arg.as_tuple().at(i) : u->arg, v.type.scalar()));
    std::string s;
    for (size_t i = 0; i < lanes.size(); i++) s += (i ? ", " : "") + lanes[i];
    v.text = "<" + s + ">";
    return v;
  }
  const UOp* acc = accumulator_of(u);
  if (acc->op == Ops::DEFINE_ACC) {
    auto it = slots_.find(acc);
    if (it == slots_.end()) fail(u, "accumulator read before its DEFINE_ACC");
    v.type = resolve(acc->dtype);
    v.text = emit("load " + llvm_type(v.type) + ", ptr " + it->second);
    return v;
  }
  auto it = names_.find(u);
  if (it == names_.end()) fail(u, "source used before it is rendered (not in the linearized list, or out of order)");
  v.text = it->second;
  return v;
}

// Lane i of a vector value (a scalar stands for every lane).
Val IrWriter::lane(const UOp* u, int i) {
  Val v;
  v.node = u;
  v.type = resolve(u->dtype).scalar();
  if (u->op == Ops::CONST) {
    v.cval = &u->arg;
    v.text = constant_text(u->arg, v.type);
    return v;
  }
  if (u->op == Ops::VCONST) {
    v.cval = &u->arg.as_tuple().at(i);
    v.text = constant_text(*v.cval, v.type);
    return v;
  }
  Val whole = value(u);
  if (whole.type.count == 1) return whole;
  v.text = emit("extractelement " + llvm_type(whole.type) + " " + whole.text + ", i32 " + std::to_string(i));
  v.lane = i;
  return v;
}

std::string IrWriter::build_vector(DType vt, const std::vector<std::string>& lanes) {
  std::string T = llvm_type(vt), S = scalar_type(vt.scalar()), cur = "poison";
  for (size_t i = 0; i < lanes.size(); i++)
    cur = emit("insertelement " + T + " " + cur + ", " + S + " " + lanes[i] + ", i32 " + std::to_string(i));
  return cur;
}

// A scalar in every lane of a vector of type vt (C's vector arithmetic broadcasts a scalar operand).
std::string IrWriter::splat(const std::string& x, DType vt) {
  std::string S = scalar_type(vt.scalar()), one = "<1 x " + S + ">";
  std::string v = emit("insertelement " + one + " poison, " + S + " " + x + ", i32 0");
  return emit("shufflevector " + one + " " + v + ", " + one + " poison, <" + std::to_string(vt.count) + " x i32> zeroinitializer");
}

// A vector op as one vector instruction over whole vectors, a scalar operand splatted (as C's vector
// arithmetic broadcasts it): float arithmetic, contracted into llvm.fmuladd where the C text has a
// vector product inside the sum (as clang contracts it, lane for lane what the scalar path computes);
// integer arithmetic and bitwise ops of 32 bits and more (narrower ones compute in 32 bits in C);
// compares and masks (<n x i1>), selects, casts between floats and integers of one width. "" where
// the op goes lane by lane instead (half and bfloat16 compute in float; integer division needs C's
// guards).
std::string IrWriter::vector_alu(const UOp* u) {
  const DType t = resolve(u->dtype);
  if (t.count == 1) return "";
  const int n = t.count;
  auto plain = [](DType d) { return d.scalar_type != Scalar::Float16 && !is_bf16(d); };
  auto whole = [&](const UOp* x, DType vt) {
    Val v = value(x);
    if (v.type.count != 1) return v.text;
    return splat(v.type.scalar() == vt.scalar() ? v.text : conv(v, vt.scalar()), vt);
  };
  for (const UOpPtr& x : u->src) {
    const DType d = resolve(x->dtype);
    if (!plain(d.scalar()) || (d.count != 1 && d.count != n)) return "";
  }
  if (!plain(t.scalar())) return "";
  const std::string T = llvm_type(t);
  if (u->op == Ops::CAST) {
    const DType from = resolve(u->src[0]->dtype).scalar(), to = t.scalar();
    if (from.is_bool() || to.is_bool() || from.itemsize() != to.itemsize()) return "";
    const std::string x = whole(u->src[0].get(), from.vec(n)), F = llvm_type(from.vec(n));
    if (from.is_float() == to.is_float()) return x;  // one width: the same type, or integers of the same bits
    if (from.is_float()) return emit((to.is_unsigned() ? "fptoui " : "fptosi ") + F + " " + x + " to " + T);
    return emit((from.is_unsigned() ? "uitofp " : "sitofp ") + F + " " + x + " to " + T);
  }
  if (u->op == Ops::WHERE) {
    const std::string cond = llvm_type(resolve(u->src[0]->dtype)) + " " + value(u->src[0].get()).text;  // i1 or <n x i1>
    return emit("select " + cond + ", " + T + " " + whole(u->src[1].get(), t) + ", " + T + " " + whole(u->src[2].get(), t));
  }
  if (u->op == Ops::CMPLT || u->op == Ops::CMPNE) {
    DType m = resolve(u->src[0]->dtype).scalar();
    if (m.is_bool() || resolve(u->src[1]->dtype).scalar() != m) return "";
    const DType mv = m.vec(n);
    const std::string M = llvm_type(mv), a = whole(u->src[0].get(), mv), b = whole(u->src[1].get(), mv);
    std::string inst = u->op == Ops::CMPNE ? (m.is_float() ? "fcmp une" : "icmp ne")
                                           : (m.is_float() ? "fcmp olt" : is_signed_int(m) ? "icmp slt" : "icmp ult");
    return emit(inst + " " + M + " " + a + ", " + b);
  }
  const DType s = t.scalar();
  for (const UOpPtr& x : u->src)
    if (resolve(x->dtype).scalar() != s) return "";
  auto binary = [&](const std::string& inst) {
    return emit(inst + " " + T + " " + whole(u->src[0].get(), t) + ", " + whole(u->src[1].get(), t));
  };
  if (!s.is_float()) {
    const bool wide = s.is_int() && s.bitsize() >= 32;
    switch (u->op) {
    case Ops::AND: return binary("and");
    case Ops::OR: return binary("or");
    case Ops::XOR: return binary("xor");
    case Ops::ADD: return wide ? binary("add") : "";
    case Ops::SUB: return wide ? binary("sub") : "";
    case Ops::MUL: return wide ? binary("mul") : "";
    case Ops::SHL: return wide ? binary("shl") : "";
    case Ops::SHR: return wide ? binary(is_signed_int(s) ? "ashr" : "lshr") : "";
    default: return "";
    }
  }
  switch (u->op) {
  case Ops::MULACC: return fmuladd(t, whole(u->src[0].get(), t), whole(u->src[1].get(), t), whole(u->src[2].get(), t));
  case Ops::ADD:
  case Ops::SUB: {
    const bool sub = u->op == Ops::SUB;
    for (int side = 0; side < 2; side++) {
      const UOp* mul = spelled(u->src[static_cast<size_t>(side)].get(), -1);
      if (mul->op != Ops::MUL || resolve(mul->dtype) != t || !c_inlined_.contains(mul)) continue;
      return fmuladd(t, whole(mul->src[0].get(), t), whole(mul->src[1].get(), t), whole(u->src[static_cast<size_t>(1 - side)].get(), t),
                     sub, side);
    }
    return binary(sub ? "fsub" : "fadd");
  }
  case Ops::MUL: return binary("fmul");
  case Ops::FDIV: return binary("fdiv");
  default: return "";
  }
}

// C conversion semantics between scalar types (bf16 through float, double -> half through float).
std::string IrWriter::convert(const std::string& x, DType have, DType want) {
  if (have == want) return x;
  std::string H = scalar_type(have), W = scalar_type(want);
  if (is_bf16(want)) return emit("call i16 @" + helper("f2bf", dtypes::float32) + "(float " + convert(x, have, dtypes::float32) + ")");
  if (is_bf16(have)) {
    std::string f = emit("call float @" + helper("bf2f", dtypes::float32) + "(i16 " + x + ")");
    return convert(f, dtypes::float32, want);
  }
  if (want.is_bool()) {
    if (have.is_float()) return emit("fcmp une " + H + " " + x + ", " + constant_text(Arg(0.0), have));
    return emit("icmp ne " + H + " " + x + ", 0");
  }
  if (have.is_bool()) return emit((want.is_float() ? "uitofp i1 " : "zext i1 ") + x + " to " + W);
  if (have.is_int() && want.is_int()) {
    if (have.bitsize() == want.bitsize()) return x;
    if (have.bitsize() > want.bitsize()) return emit("trunc " + H + " " + x + " to " + W);
    return emit((have.is_unsigned() ? "zext " : "sext ") + H + " " + x + " to " + W);
  }
  if (have.is_int()) return emit((have.is_unsigned() ? "uitofp " : "sitofp ") + H + " " + x + " to " + W);
  if (want.is_int()) return emit((want.is_unsigned() ? "fptoui " : "fptosi ") + H + " " + x + " to " + W);
  if (have.scalar_type == Scalar::Float64 && want.scalar_type == Scalar::Float16)
    return convert(convert(x, have, dtypes::float32), dtypes::float32, want);
  return emit((have.bitsize() < want.bitsize() ? "fpext " : "fptrunc ") + H + " " + x + " to " + W);
}

std::string IrWriter::scalar_alu(const UOp* u, Ops op, DType res, const std::vector<Val>& xs) {
  auto math_of = [](DType t) { return t.scalar_type == Scalar::Float16 || is_bf16(t) ? dtypes::float32 : t; };
  bool cmp = op == Ops::CMPLT || op == Ops::CMPNE;
  DType m = op == Ops::WHERE ? res : math_of(cmp ? xs[0].type : res);
  if (is_bf16(m)) m = dtypes::float32;
  std::vector<std::string> a;
  for (size_t i = 0; i < xs.size(); i++) a.push_back(conv(xs[i], op == Ops::WHERE && i == 0 ? dtypes::bool_ : m));
  std::string T = scalar_type(m);
  auto bin = [&](const std::string& inst) { return emit(inst + " " + T + " " + a[0] + ", " + a[1]); };
  bool f = m.is_float(), b = m.is_bool(), sgn = is_signed_int(m);
  auto divisor_safe = [&]() {
    const UOp* d = xs[1].node;
    if (d->vmin() > 0 || d->vmax() < -1) return true;
    if (sgn && (d->vmin() > 0 || d->vmax() < 0)) return xs[0].node->vmin() > m.min_int();
    return false;
  };
  auto call2 = [&](const std::string& kind) {
    return emit("call " + T + " @" + helper(kind, m) + "(" + T + " " + a[0] + ", " + T + " " + a[1] + ")");
  };
  // Shifts of 8/16-bit values happen in 32 bits, as after C's integer promotion.
  auto shift = [&](const std::string& inst) {
    if (m.bitsize() >= 32) return bin(inst);
    std::string ext = sgn ? "sext " : "zext ";
    std::string x = emit(ext + T + " " + a[0] + " to i32"), n = emit(ext + T + " " + a[1] + " to i32");
    std::string r = emit(inst + " i32 " + x + ", " + n);
    return emit("trunc i32 " + r + " to " + T);
  };
  std::string e;
  switch (op) {
  case Ops::ADD:  // bool arithmetic as C's (_Bool)(a + b)
    e = f ? contracted(xs, false, m) : "";
    if (e.empty()) e = bin(f ? "fadd" : b ? "or" : "add");
    break;
  case Ops::SUB:
    e = f ? contracted(xs, true, m) : "";
    if (e.empty()) e = bin(f ? "fsub" : b ? "xor" : "sub");
    break;
  case Ops::MUL: e = bin(f ? "fmul" : b ? "and" : "mul"); break;
  case Ops::FDIV:
    if (!f) fail(u, "FDIV of integers");
    e = bin("fdiv");
    break;
  case Ops::AND: e = bin("and"); break;
  case Ops::OR: e = bin("or"); break;
  case Ops::XOR: e = bin("xor"); break;
  case Ops::CMPLT: e = bin(f ? "fcmp olt" : (sgn ? "icmp slt" : "icmp ult")); break;
  case Ops::CMPNE: e = bin(f ? "fcmp une" : "icmp ne"); break;
  case Ops::SHL: e = shift("shl"); break;
  case Ops::SHR: e = shift(sgn ? "ashr" : "lshr"); break;
  case Ops::NEG: e = f ? emit("fneg " + T + " " + a[0]) : b ? a[0] : emit("sub " + T + " 0, " + a[0]); break;
  case Ops::RECIP:
    if (!f) fail(u, "RECIP of integers");
    e = emit("fdiv " + T + " " + constant_text(Arg(1.0), m) + ", " + a[0]);
    break;
  case Ops::WHERE: e = emit("select i1 " + a[0] + ", " + T + " " + a[1] + ", " + T + " " + a[2]); break;
  case Ops::MULACC: {
    if (f) {  // what clang emits for the C text's ((a*b)+c): fused where the host has FMA
      e = fmuladd(m, a[0], a[1], a[2]);
      break;
    }
    std::string p = bin(b ? "and" : "mul");
    e = emit((b ? "or " : "add ") + T + " " + p + ", " + a[2]);
    break;
  }
  case Ops::MAX:
    if (f) e = call2("max");
    else {
      std::string lt = bin(b ? "icmp ult" : sgn ? "icmp slt" : "icmp ult");
      e = emit("select i1 " + lt + ", " + T + " " + a[1] + ", " + T + " " + a[0]);
    }
    break;
  case Ops::SQRT:
    if (!f) fail(u, "SQRT of integers");
    e = emit("call " + T + " " + intrinsic("sqrt", m) + "(" + T + " " + a[0] + ")");
    break;
  case Ops::TRUNC: e = f ? emit("call " + T + " " + intrinsic("trunc", m) + "(" + T + " " + a[0] + ")") : a[0]; break;
  case Ops::IDIV:
    if (f) e = emit("call " + T + " " + intrinsic("trunc", m) + "(" + T + " " + bin("fdiv") + ")");
    else e = divisor_safe() ? bin(sgn ? "sdiv" : "udiv") : call2("idiv");
    break;
  case Ops::MOD:
    if (f) e = bin("frem");
    else e = divisor_safe() ? bin(sgn ? "srem" : "urem") : call2("imod");
    break;
  case Ops::FLOORDIV:
    if (f) e = emit("call " + T + " " + intrinsic("floor", m) + "(" + T + " " + bin("fdiv") + ")");
    else if (xs[0].node->vmin() >= 0 && xs[1].node->vmin() > 0) e = bin(sgn ? "sdiv" : "udiv");
    else e = call2("floordiv");
    break;
  case Ops::FLOORMOD:
    if (!f && xs[0].node->vmin() >= 0 && xs[1].node->vmin() > 0) e = bin(sgn ? "srem" : "urem");
    else e = call2("floormod");
    break;
  case Ops::EXP2:
  case Ops::LOG2:
  case Ops::SIN:
  case Ops::POW:
    fail(u, cat(op_name(op), " has no LLVM code on this device: apply transcendental_rules before rendering"));
  default: fail(u, cat("no LLVM spelling for ALU op ", op_name(op)));
  }
  if (cmp) return e;
  return convert(e, m, res);
}

std::string IrWriter::value_op(const UOp* u) {
  DType t = resolve(u->dtype);
  int n = t.count;
  if (u->op == Ops::VECTORIZE) {
    std::vector<std::string> lanes;
    for (const UOpPtr& s : u->src) lanes.push_back(conv(value(s.get()), t.scalar()));
    return build_vector(t, lanes);
  }
  if (u->op == Ops::GEP) {
    const auto& idx = u->arg.as_tuple();
    std::vector<std::string> lanes;
    for (const Arg& a : idx) lanes.push_back(lane(u->src.at(0).get(), static_cast<int>(a.as_int())).text);
    if (lanes.size() == 1) return lanes[0];
    return build_vector(t, lanes);
  }
  if (u->op == Ops::BITCAST) {
    Val x = value(u->src.at(0).get());
    if (x.type.bitsize() * x.type.count != t.bitsize() * t.count || x.type.is_bool() || t.is_bool())
      fail(u, "BITCAST between types of different sizes");
    if (llvm_type(x.type) == llvm_type(t)) return x.text;  // bf16 <-> int16: the same bits
    return emit("bitcast " + llvm_type(x.type) + " " + x.text + " to " + llvm_type(t));
  }
  if (u->op == Ops::CAST) {
    if (n == 1) return conv(value(u->src.at(0).get()), t);
    if (std::string v = vector_alu(u); !v.empty()) return v;
    std::vector<std::string> lanes;
    for (int i = 0; i < n; i++) lanes.push_back(conv(lane(u->src.at(0).get(), i), t.scalar()));
    return build_vector(t, lanes);
  }
  if (!is_alu(u->op)) fail(u, "op not allowed in a linearized LLVM kernel");
  if (std::string v = vector_alu(u); !v.empty()) return v;
  if (n == 1) {
    std::vector<Val> xs;
    for (const UOpPtr& s : u->src) xs.push_back(value(s.get()));
    return scalar_alu(u, u->op, t, xs);
  }
  std::vector<std::string> lanes;
  for (int i = 0; i < n; i++) {
    std::vector<Val> xs;
    for (const UOpPtr& s : u->src) xs.push_back(lane(s.get(), i));
    lanes.push_back(scalar_alu(u, u->op, t.scalar(), xs));
  }
  return build_vector(op_in(u->op, kComparison) ? dtypes::bool_.vec(n) : t, lanes);
}

} // namespace loupe::llvm_ir
