#include "render/llvm_renderer.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/print.h"
#include "render/linear_analysis.h"
#include "render/c_renderer.h"
#include "render/cstyle_text.h"
#include "support/error.h"

namespace loupe {

namespace {

DType resolve(DType d) {
  if (d.scalar_type == Scalar::WeakInt) d.scalar_type = Scalar::Int64;  // index math: wide enough, never wraps
  else if (d.scalar_type == Scalar::WeakFloat) d.scalar_type = Scalar::Float32;
  return d;
}

std::string scalar_type(DType s) {
  switch (resolve(s).scalar_type) {
  case Scalar::Bool: return "i1";
  case Scalar::Int8:
  case Scalar::UInt8: return "i8";
  case Scalar::Int16:
  case Scalar::UInt16:
  case Scalar::BFloat16: return "i16";
  case Scalar::Int32:
  case Scalar::UInt32: return "i32";
  case Scalar::Int64:
  case Scalar::UInt64: return "i64";
  case Scalar::Float16: return "half";
  case Scalar::Float32: return "float";
  case Scalar::Float64: return "double";
  default: LOUPE_ASSERT(false, "no LLVM type for ", s.name());
  }
  return {};
}

// The type a value has in memory: bool is a byte there.
std::string mem_type(DType dt) {
  std::string s = dt.scalar().is_bool() ? "i8" : scalar_type(dt.scalar());
  return dt.count == 1 ? s : "<" + std::to_string(dt.count) + " x " + s + ">";
}

bool is_bf16(DType t) { return t.scalar_type == Scalar::BFloat16; }
bool is_signed_int(DType t) { return t.is_int() && !t.is_unsigned(); }

std::string hex_double(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIX64, bits);
  return buf;
}

// A constant of resolved scalar dtype `t`, spelled exactly (floats as hex bit patterns).
std::string constant_text(const Arg& value, DType t) {
  LOUPE_ASSERT(value.is_number(), "constant arg ", value.str());
  if (t.is_float()) {
    double v = value.as_double();
    if (t.scalar_type == Scalar::Float64) return hex_double(v);
    float f = static_cast<float>(v);  // like the C text: float first, then half/bf16
    char buf[16];
    if (t.scalar_type == Scalar::Float16) {
      std::snprintf(buf, sizeof buf, "0xH%04X", round_to_half_bits(f));
      return buf;
    }
    if (is_bf16(t)) return std::to_string(static_cast<int16_t>(round_to_bf16_bits(f)));
    return hex_double(static_cast<double>(f));
  }
  __int128 v;
  if (value.is_bool()) v = value.as_bool();
  else if (value.is_int()) v = value.as_int();
  else {  // a float given to an integer dtype: C conversion (truncation)
    double d = value.as_double();
    v = std::isfinite(d) ? static_cast<__int128>(d) : 0;
  }
  if (t.is_bool()) return v ? "true" : "false";
  switch (t.bitsize()) {
  case 8: return std::to_string(static_cast<int8_t>(v));
  case 16: return std::to_string(static_cast<int16_t>(v));
  case 32: return std::to_string(static_cast<int32_t>(v));
  default: return std::to_string(static_cast<int64_t>(v));
  }
}

// A helper function for an operation whose plain instruction has the wrong semantics (integer division
// by 0 or of MIN by -1, floor division and modulo, NaN-ignoring max, bfloat16 rounding). Internal and
// always inlined; the bodies mirror the C helpers of cstyle_text.cpp.
struct LlvmHelper {
  std::string name, code;
  std::vector<std::string> declares;
};

LlvmHelper llvm_helper(const std::string& kind, DType t) {
  std::string T = scalar_type(t), tag = dtype_tag(t), name = "loupe_" + kind + "_" + tag;
  bool sgn = is_signed_int(t);
  auto def = [&](const std::string& ret, const std::string& params, const std::string& body) {
    return "define internal " + ret + " @" + name + "(" + params + ") alwaysinline nounwind {\n" + body + "}\n";
  };
  std::string ab = T + " %a, " + T + " %b";
  // %d: a divisor that never traps (1 where b is 0, or -1 for signed types), %z: b == 0, %m1: b == -1.
  std::string safe = "  %z = icmp eq " + T + " %b, 0\n";
  if (sgn) safe += "  %m1 = icmp eq " + T + " %b, -1\n  %bad = or i1 %z, %m1\n  %d = select i1 %bad, " + T + " 1, " + T + " %b\n";
  else safe += "  %d = select i1 %z, " + T + " 1, " + T + " %b\n";
  std::string div = sgn ? "sdiv" : "udiv", rem = sgn ? "srem" : "urem";
  if (kind == "max") {  // NaN loses: max(nan, x) = x, like tinygrad's reduce
    return {name, def(T, ab, "  %lt = fcmp olt " + T + " %a, %b\n  %nan = fcmp uno " + T + " %a, %a\n  %c = or i1 %lt, %nan\n"
                                 "  %r = select i1 %c, " + T + " %b, " + T + " %a\n  ret " + T + " %r\n"), {}};
  }
  if (kind == "idiv" || (kind == "floordiv" && !sgn)) {
    std::string body = safe + "  %q = " + div + " " + T + " %a, %d\n";
    if (sgn) body += "  %n = sub " + T + " 0, %a\n  %q1 = select i1 %m1, " + T + " %n, " + T + " %q\n";
    else body += "  %q1 = add " + T + " %q, 0\n";
    body += "  %r = select i1 %z, " + T + " 0, " + T + " %q1\n  ret " + T + " %r\n";
    return {name, def(T, ab, body), {}};
  }
  if (kind == "imod" || (kind == "floormod" && !sgn && !t.is_float())) {
    std::string body = safe + "  %m = " + rem + " " + T + " %a, %d\n";
    body += std::string("  %r = select i1 ") + (sgn ? "%bad" : "%z") + ", " + T + " 0, " + T + " %m\n  ret " + T + " %r\n";
    return {name, def(T, ab, body), {}};
  }
  if (kind == "floordiv") {  // signed: truncating quotient, one less when the remainder's sign differs from b's
    std::string body = safe + "  %q = sdiv " + T + " %a, %d\n  %m = srem " + T + " %a, %d\n" + "  %mnz = icmp ne " + T +
                       " %m, 0\n  %an = icmp slt " + T + " %a, 0\n  %bn = icmp slt " + T + " %b, 0\n" +
                       "  %sd = xor i1 %an, %bn\n  %adj = and i1 %mnz, %sd\n  %qm = sub " + T + " %q, 1\n" +
                       "  %q2 = select i1 %adj, " + T + " %qm, " + T + " %q\n  %n = sub " + T + " 0, %a\n" +
                       "  %q3 = select i1 %m1, " + T + " %n, " + T + " %q2\n  %r = select i1 %z, " + T + " 0, " + T +
                       " %q3\n  ret " + T + " %r\n";
    return {name, def(T, ab, body), {}};
  }
  if (kind == "floormod" && t.is_float()) {  // Python's %: the sign of the divisor, zero signed like it
    std::string cs = "@llvm.copysign." + tag;
    std::string body = "  %m = frem " + T + " %a, %b\n  %nz = fcmp une " + T + " %m, 0.0\n  %mn = fcmp olt " + T +
                       " %m, 0.0\n  %bn = fcmp olt " + T + " %b, 0.0\n  %sd = xor i1 %mn, %bn\n  %mb = fadd " + T +
                       " %m, %b\n  %adj = select i1 %sd, " + T + " %mb, " + T + " %m\n  %zero = call " + T + " " + cs +
                       "(" + T + " 0.0, " + T + " %b)\n  %r = select i1 %nz, " + T + " %adj, " + T + " %zero\n  ret " +
                       T + " %r\n";
    return {name, def(T, ab, body), {"declare " + T + " " + cs + "(" + T + ", " + T + ")"}};
  }
  if (kind == "floormod") {
    std::string body = safe + "  %m = srem " + T + " %a, %d\n  %mnz = icmp ne " + T + " %m, 0\n  %mn = icmp slt " + T +
                       " %m, 0\n  %bn = icmp slt " + T + " %b, 0\n  %sd = xor i1 %mn, %bn\n  %adj = and i1 %mnz, %sd\n" +
                       "  %mb = add " + T + " %m, %b\n  %m2 = select i1 %adj, " + T + " %mb, " + T + " %m\n" +
                       "  %r = select i1 %bad, " + T + " 0, " + T + " %m2\n  ret " + T + " %r\n";
    return {name, def(T, ab, body), {}};
  }
  if (kind == "f2bf") {  // tinygrad's round to nearest even; a NaN keeps a payload bit in the high half
    name = "loupe_f2bf";
    return {name, def("i16", "float %f",
                      "  %u = bitcast float %f to i32\n  %e = and i32 %u, 2139095040\n  %fin = icmp ne i32 %e, 2139095040\n"
                      "  %hi = lshr i32 %u, 16\n  %lsb = and i32 %hi, 1\n  %inc = add i32 %lsb, 32767\n"
                      "  %rnd = add i32 %u, %inc\n  %low = and i32 %u, 65535\n  %haslow = icmp ne i32 %low, 0\n"
                      "  %q = or i32 %u, 65536\n  %nanv = select i1 %haslow, i32 %q, i32 %u\n"
                      "  %v = select i1 %fin, i32 %rnd, i32 %nanv\n  %h = lshr i32 %v, 16\n  %r = trunc i32 %h to i16\n"
                      "  ret i16 %r\n"),
            {}};
  }
  if (kind == "bf2f") {
    name = "loupe_bf2f";
    return {name, def("float", "i16 %b", "  %w = zext i16 %b to i32\n  %u = shl i32 %w, 16\n  %f = bitcast i32 %u to float\n  ret float %f\n"), {}};
  }
  LOUPE_ASSERT(false, "unknown LLVM helper ", kind);
  return {};
}

// A value operand: its LLVM text, its resolved dtype, the node it came from, and its constant if any.
struct Val {
  std::string text;
  DType type;
  const UOp* node = nullptr;
  const Arg* cval = nullptr;
  int lane = -1;  // which lane of node (vector operands read lane by lane)
};

class IrWriter {
public:
  IrWriter(const RendererCaps& caps, const UOpList& uops) : caps_(caps), uops_(uops) {}
  RenderedKernel run(const std::string& name);

private:
  const RendererCaps& caps_;
  const UOpList& uops_;
  std::unordered_map<const UOp*, std::string> names_;   // SSA value (or pointer) of a rendered node
  std::unordered_map<const UOp*, std::string> slots_;   // DEFINE_ACC -> its alloca
  std::unordered_map<const UOp*, bool> mutable_;
  std::unordered_map<const UOp*, int> loop_id_, if_id_;
  std::vector<std::string> allocas_, body_, params_;
  std::map<std::string, std::string> helpers_;           // name -> definition
  std::set<std::string> declares_;
  std::string block_ = "entry";
  int tmp_ = 0, label_ = 0;
  const UOp* split_range_ = nullptr;
  FlatPtrSet<const UOp*> c_inlined_;  // values the C renderer spells inside their consumer
  RenderedKernel out_;

  [[noreturn]] void fail(const UOp* u, const std::string& why) const {
    raise_internal(__FILE__, __LINE__, cat("render LLVM: ", why, " at ", uop_label(*u)));
  }
  std::string fresh() { return "%v" + std::to_string(tmp_++); }
  std::string emit(const std::string& rhs) {
    std::string n = fresh();
    body_.push_back("  " + n + " = " + rhs);
    return n;
  }
  void line(const std::string& s) { body_.push_back("  " + s); }
  void label(const std::string& l) {
    body_.push_back(l + ":");
    block_ = l;
  }
  std::string helper(const std::string& kind, DType t) {
    LlvmHelper h = llvm_helper(kind, t);
    helpers_.emplace(h.name, h.code);
    for (const std::string& d : h.declares) declares_.insert(d);
    return h.name;
  }
  std::string intrinsic(const std::string& fn, DType t) {
    std::string T = scalar_type(t), tag = T == "float" ? "f32" : "f64";
    declares_.insert("declare " + T + " @llvm." + fn + "." + tag + "(" + T + (fn == "copysign" ? ", " + T : fn == "fmuladd" ? ", " + T + ", " + T : "") + ")");
    return "@llvm." + fn + "." + tag;
  }

  void find_c_inlining();
  const UOp* spelled(const UOp* u, int lane) const;
  std::string contracted(const std::vector<Val>& xs, bool sub, DType m);
  Val value(const UOp* u);
  Val lane(const UOp* u, int i);
  std::string convert(const std::string& x, DType have, DType want);
  std::string conv(const Val& v, DType want) {
    if (v.type == want) return v.text;
    if (v.cval) return constant_text(*v.cval, want);
    return convert(v.text, v.type, want);
  }
  std::string build_vector(DType vt, const std::vector<std::string>& lanes);
  std::string scalar_alu(const UOp* u, Ops op, DType res, const std::vector<Val>& xs);
  std::string value_op(const UOp* u);
  void render_one(const UOp* u);
  void render_parameter(const UOp* u);
  void render_control(const UOp* u);
  void render_accumulator(const UOp* u);
  void render_load(const UOp* u);
  void render_store(const UOp* u);
};

// Which values the C renderer inlines into their consumer (render/cstyle.cpp's rule: single-use value
// ops that are not read lane by lane, unless an accumulator they read is assigned before the use).
// Needed because clang contracts a*b+c written in one C expression into fmuladd (-ffp-contract=on),
// and the LLVM device must compute the same values as the CPU device.
void IrWriter::find_c_inlining() {
  auto lane_by_lane = [](const UOp* u) { return u->op == Ops::GEP || (u->dtype.count > 1 && (is_alu(u->op) || u->op == Ops::CAST)); };
  c_inlined_ = inlined_values(uops_, lane_by_lane);
}

const UOp* IrWriter::spelled(const UOp* u, int lane) const { return c_spelled_node(u, lane, c_inlined_); }

// a*b + c (or a*b - c, c - a*b) as llvm.fmuladd where the C text has the product inside the sum, the
// first operand checked first (clang's order); "" where there is nothing to contract.
std::string IrWriter::contracted(const std::vector<Val>& xs, bool sub, DType m) {
  if (m.scalar_type != Scalar::Float32 && m.scalar_type != Scalar::Float64) return "";
  std::string T = scalar_type(m);
  for (int side = 0; side < 2; side++) {
    const UOp* mul = spelled(xs[side].node, xs[side].lane);
    if (mul->op != Ops::MUL || resolve(mul->dtype) != m || !c_inlined_.contains(mul) || xs[side].type != m) continue;
    std::string a = conv(value(mul->src[0].get()), m), b = conv(value(mul->src[1].get()), m);
    std::string c = conv(xs[1 - side], m);
    if (sub && side == 0) c = emit("fneg " + T + " " + c);
    if (sub && side == 1) a = emit("fneg " + T + " " + a);
    return emit("call " + T + " " + intrinsic("fmuladd", m) + "(" + T + " " + a + ", " + T + " " + b + ", " + T + " " + c + ")");
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
      e = emit("call " + T + " " + intrinsic("fmuladd", m) + "(" + T + " " + a[0] + ", " + T + " " + a[1] + ", " + T +
               " " + a[2] + ")");
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
    std::vector<std::string> lanes;
    for (int i = 0; i < n; i++) lanes.push_back(conv(lane(u->src.at(0).get(), i), t.scalar()));
    return build_vector(t, lanes);
  }
  if (!is_alu(u->op)) fail(u, "op not allowed in a linearized LLVM kernel");
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

void IrWriter::render_one(const UOp* u) {
  switch (u->op) {
  case Ops::NAME:
  case Ops::SINK:
  case Ops::BARRIER:
  case Ops::CONST:
  case Ops::VCONST: return;
  case Ops::DEFINE_GLOBAL:
  case Ops::DEFINE_VAR: render_parameter(u); return;
  case Ops::SPECIAL:
  case Ops::DEFINE_LOCAL: fail(u, "LLVM kernels run on the host: no launch ids or local memory");
  case Ops::RANGE:
  case Ops::ENDRANGE:
  case Ops::IF:
  case Ops::ENDIF: render_control(u); return;
  case Ops::NOOP: {
    Val v = value(u->src.at(0).get());
    names_[u] = v.text;
    return;
  }
  case Ops::INDEX: {
    const UOp* buf = u->src.at(0).get();
    std::string idx = conv(value(u->src.at(1).get()), dtypes::int64);
    names_[u] = emit("getelementptr inbounds " + mem_type(buf->dtype.base()) + ", ptr " + value(buf).text + ", i64 " + idx);
    return;
  }
  case Ops::DEFINE_ACC:
  case Ops::ASSIGN: render_accumulator(u); return;
  case Ops::LOAD: render_load(u); return;
  case Ops::STORE: render_store(u); return;
  case Ops::CAST:
    if (u->dtype.is_ptr) {  // a vector view of a buffer: the same address, read with a wider type
      names_[u] = value(u->src.at(0).get()).text;
      return;
    }
    break;
  default: break;
  }
  names_[u] = value_op(u);
}

// Buffers and variables: the kernel's parameters.
void IrWriter::render_parameter(const UOp* u) {
  switch (u->op) {
  case Ops::DEFINE_GLOBAL: {
    if (!u->arg.is_int() || !u->dtype.is_ptr) fail(u, "DEFINE_GLOBAL needs an int arg and a pointer dtype");
    for (const BufferParam& b : out_.buffers)
      if (b.index == u->arg.as_int()) fail(u, "two DEFINE_GLOBALs with the same index");
    names_[u] = "%data" + std::to_string(u->arg.as_int());
    out_.buffers.push_back({u->arg.as_int(), u->dtype, mutable_[u]});
    return;
  }
  case Ops::DEFINE_VAR: {
    const auto& t = u->arg.as_tuple();
    std::string name = t.at(0).as_string();
    if (!is_c_identifier(name)) fail(u, "variable name is not a C identifier");
    names_[u] = "%var." + name;
    out_.vars.push_back({name, t.at(1).as_int(), t.at(2).as_int()});
    return;
  }
  default: LOUPE_ASSERT(false, "not a kernel parameter: ", uop_label(*u));
  }
}

// Loops and conditionals: basic blocks and the branches between them.
void IrWriter::render_control(const UOp* u) {
  switch (u->op) {
  case Ops::RANGE: {
    int id = label_++;
    loop_id_[u] = id;
    DType t = resolve(u->dtype);
    std::string T = llvm_type(t), L = "loop" + std::to_string(id), r = "%ridx" + std::to_string(id);
    std::string start = "0", end;
    if (u == split_range_) {
      out_.split_loop = true;
      out_.global = {u->src[0]->const_int(), 1, 1};
      start = "%loop_start";
      end = "%loop_end";
    } else {
      end = conv(value(u->src.at(0).get()), t);
    }
    line("br label %" + L + ".pre");
    label(L + ".pre");
    line("br label %" + L + ".head");
    label(L + ".head");
    line(r + " = phi " + T + " [ " + start + ", %" + L + ".pre ], [ " + r + ".next, %" + L + ".latch ]");
    line(r + ".more = icmp slt " + T + " " + r + ", " + end);
    line("br i1 " + r + ".more, label %" + L + ".body, label %" + L + ".exit");
    label(L + ".body");
    names_[u] = r;
    return;
  }
  case Ops::ENDRANGE: {
    if (u->src.empty() || !loop_id_.count(u->src[0].get())) fail(u, "ENDRANGE without its RANGE");
    int id = loop_id_[u->src[0].get()];
    std::string L = "loop" + std::to_string(id), r = "%ridx" + std::to_string(id);
    std::string T = llvm_type(resolve(u->src[0]->dtype));
    line("br label %" + L + ".latch");
    label(L + ".latch");
    line(r + ".next = add " + T + " " + r + ", 1");
    line("br label %" + L + ".head");
    label(L + ".exit");
    return;
  }
  case Ops::IF: {
    int id = label_++;
    if_id_[u] = id;
    std::string c = conv(value(u->src.at(0).get()), dtypes::bool_), L = "if" + std::to_string(id);
    line("br i1 " + c + ", label %" + L + ".then, label %" + L + ".end");
    label(L + ".then");
    return;
  }
  case Ops::ENDIF: {
    if (u->src.empty() || !if_id_.count(u->src[0].get())) fail(u, "ENDIF without its IF");
    std::string L = "if" + std::to_string(if_id_[u->src[0].get()]);
    line("br label %" + L + ".end");
    label(L + ".end");
    return;
  }
  default: LOUPE_ASSERT(false, "not a control-flow op: ", uop_label(*u));
  }
}

// An accumulator is a stack slot: defined with its initial value, assigned by stores.
void IrWriter::render_accumulator(const UOp* u) {
  switch (u->op) {
  case Ops::DEFINE_ACC: {
    std::string slot = "%acc" + std::to_string(slots_.size());
    DType t = resolve(u->dtype);
    allocas_.push_back("  " + slot + " = alloca " + llvm_type(t));
    slots_[u] = slot;
    line("store " + llvm_type(t) + " " + conv(value(u->src.at(0).get()), t) + ", ptr " + slot);
    return;
  }
  case Ops::ASSIGN: {
    const UOp* acc = accumulator_of(u->src.at(0).get());
    if (!slots_.count(acc)) fail(u, "ASSIGN to something that is not an accumulator");
    DType t = resolve(acc->dtype);
    line("store " + llvm_type(t) + " " + conv(value(u->src.at(1).get()), t) + ", ptr " + slots_[acc]);
    return;
  }
  default: LOUPE_ASSERT(false, "not an accumulator op: ", uop_label(*u));
  }
}

// A load, gated by a branch around it when it has a gate (the alternative value otherwise).
void IrWriter::render_load(const UOp* u) {
  if (u->src.size() != 1 && u->src.size() != 3) fail(u, "LOAD takes (INDEX) or (INDEX, alt, gate)");
  DType t = resolve(u->dtype);
  std::string ptr = value(u->src[0].get()).text, M = mem_type(t);
  std::string align = std::to_string(std::max(1, t.scalar().is_bool() ? 1 : t.scalar().itemsize()));
  auto load_here = [&] {
    std::string x = emit("load " + M + ", ptr " + ptr + ", align " + align);
    if (t.scalar().is_bool()) x = emit("icmp ne " + M + " " + x + (t.count == 1 ? ", 0" : ", zeroinitializer"));
    return x;
  };
  if (u->src.size() == 1) {
    names_[u] = load_here();
    return;
  }
  Val alt = value(u->src[1].get());
  std::string alt_text = t.count == 1 ? conv(alt, t) : alt.text;
  std::string gate = conv(value(u->src[2].get()), dtypes::bool_), from = block_, L = "load" + std::to_string(label_++);
  line("br i1 " + gate + ", label %" + L + ", label %" + L + ".end");
  label(L);
  std::string x = load_here();
  std::string loaded_in = block_;
  line("br label %" + L + ".end");
  label(L + ".end");
  names_[u] = emit("phi " + llvm_type(t) + " [ " + x + ", %" + loaded_in + " ], [ " + alt_text + ", %" + from + " ]");
}

// A store, gated by a branch around it when it has a gate.
void IrWriter::render_store(const UOp* u) {
  if (u->src.size() != 2 && u->src.size() != 3) fail(u, "STORE takes (INDEX, value[, gate])");
  const UOp* target = u->src[0].get();
  DType t = target->dtype.is_ptr ? resolve(target->dtype.base()) : resolve(u->src[1]->dtype);
  std::string ptr = value(target).text;
  Val v = value(u->src[1].get());
  std::string x = t.count == 1 ? conv(v, t) : v.text;
  std::string M = mem_type(t), align = std::to_string(std::max(1, t.scalar().is_bool() ? 1 : t.scalar().itemsize()));
  std::string L;
  if (u->src.size() == 3) {
    L = "store" + std::to_string(label_++);
    line("br i1 " + conv(value(u->src[2].get()), dtypes::bool_) + ", label %" + L + ", label %" + L + ".end");
    label(L);
  }
  if (t.scalar().is_bool()) x = emit("zext " + llvm_type(t) + " " + x + " to " + M);
  line("store " + M + " " + x + ", ptr " + ptr + ", align " + align);
  if (!L.empty()) {
    line("br label %" + L + ".end");
    label(L + ".end");
  }
}

RenderedKernel IrWriter::run(const std::string& name) {
  if (!is_c_identifier(name)) throw Error(cat("kernel name '", name, "' is not a C identifier"));
  if (name.rfind("loupe_", 0) == 0) throw Error(cat("kernel name '", name, "' is reserved"));
  out_.name = name;
  out_.device = caps_.device;
  for (const UOpPtr& up : uops_) {
    LOUPE_ASSERT(up != nullptr, "null UOp in the linearized kernel");
    if (up->op == Ops::STORE) mutable_[buffer_of(up->src.at(0).get())] = true;
  }
  if (caps_.splits_outer_loop) split_range_ = splittable_outer_loop(uops_);
  find_c_inlining();
  std::vector<int> body_line(uops_.size(), -1);  // the last line each UOp wrote: its store, its result
  for (size_t i = 0; i < uops_.size(); i++) {
    size_t before = body_.size();
    render_one(uops_[i].get());
    if (body_.size() > before) body_line[i] = static_cast<int>(body_.size() - 1);
  }
  std::sort(out_.buffers.begin(), out_.buffers.end(), [](auto& a, auto& b) { return a.index < b.index; });
  for (const BufferParam& b : out_.buffers)
    params_.push_back(std::string("ptr noalias ") + (b.is_mutable ? "" : "readonly ") + "%data" + std::to_string(b.index));
  for (const VarParam& v : out_.vars) {
    const UOp* node = nullptr;
    for (const UOpPtr& u : uops_)
      if (u->op == Ops::DEFINE_VAR && u->arg.as_tuple().at(0).as_string() == v.name) node = u.get();
    params_.push_back(llvm_type(resolve(node->dtype)) + " %var." + v.name);
  }
  if (out_.split_loop) {
    std::string T = llvm_type(resolve(split_range_->dtype));
    params_.push_back(T + " %loop_start");
    params_.push_back(T + " %loop_end");
  }
  std::string src = "; kernel " + name + " (LLVM IR, rendered by Loupe)\n";
  for (const auto& [n, code] : helpers_) src += code + "\n";
  src += "define void @" + name + "(";
  for (size_t i = 0; i < params_.size(); i++) src += (i ? ", " : "") + params_[i];
  src += ") nounwind {\nentry:\n";
  const int signature_line = static_cast<int>(std::count(src.begin(), src.end(), '\n')) - 1;
  out_.uop_lines = uop_source_lines(uops_, body_line, signature_line + 2 + static_cast<int>(allocas_.size()), signature_line);
  for (const std::string& l : allocas_) src += l + "\n";
  for (const std::string& l : body_) src += l + "\n";
  src += "  ret void\n}\n";
  for (const std::string& d : declares_) src += d + "\n";
  out_.source = std::move(src);
  return out_;
}

} // namespace

std::string llvm_type(DType dt) {
  if (dt.is_ptr) return "ptr";
  dt = resolve(dt);
  std::string s = scalar_type(dt.scalar());
  return dt.count == 1 ? s : "<" + std::to_string(dt.count) + " x " + s + ">";
}

LlvmRenderer::LlvmRenderer() {
  caps_.device = "LLVM";
  caps_.has_local = false;
  caps_.has_shared = false;
  caps_.supports_float4 = true;
  caps_.code_for_op = c_native_ops();  // the same decompositions as the C backend, so both compute the same values
  caps_.splits_outer_loop = true;
}

RenderedKernel LlvmRenderer::render(const std::string& name, const UOpList& uops) const {
  return IrWriter(caps_, uops).run(name);
}

std::string llvm_entry_shim(const RenderedKernel& k, const std::string& entry) {
  std::string s = "define void @" + entry + "(ptr %bufs, ptr %vars, i64 %start, i64 %end) {\nentry:\n";
  std::vector<std::string> args;
  for (size_t i = 0; i < k.buffers.size(); i++) {
    std::string p = "%b" + std::to_string(i);
    s += "  " + p + ".at = getelementptr ptr, ptr %bufs, i64 " + std::to_string(i) + "\n";
    s += "  " + p + " = load ptr, ptr " + p + ".at\n";
    args.push_back("ptr " + p);
  }
  // Parameter types are read back from the kernel's own signature (vars are i32 or i64).
  size_t open = k.source.find("define void @" + k.name + "(");
  std::vector<std::string> types;
  if (open != std::string::npos) {
    size_t a = k.source.find('(', open) + 1, b = k.source.find(')', a);
    std::string params = k.source.substr(a, b - a);
    for (size_t p = 0; p <= params.size();) {
      size_t c = params.find(", ", p);
      if (c == std::string::npos) c = params.size();
      std::string one = params.substr(p, c - p);
      types.push_back(one.substr(0, one.find(' ')));
      p = c + 2;
    }
  }
  for (size_t i = 0; i < k.vars.size(); i++) {
    std::string v = "%x" + std::to_string(i), T = k.buffers.size() + i < types.size() ? types[k.buffers.size() + i] : "i64";
    s += "  " + v + ".at = getelementptr i64, ptr %vars, i64 " + std::to_string(i) + "\n";
    s += "  " + v + ".w = load i64, ptr " + v + ".at\n";
    if (T == "i64") s += "  " + v + " = add i64 " + v + ".w, 0\n";
    else s += "  " + v + " = trunc i64 " + v + ".w to " + T + "\n";
    args.push_back(T + " " + v);
  }
  if (k.split_loop) {
    std::string T = types.empty() ? "i64" : types.back();
    if (T == "i64") {
      args.push_back("i64 %start");
      args.push_back("i64 %end");
    } else {
      s += "  %s32 = trunc i64 %start to " + T + "\n  %e32 = trunc i64 %end to " + T + "\n";
      args.push_back(T + " %s32");
      args.push_back(T + " %e32");
    }
  }
  s += "  call void @" + k.name + "(";
  for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + args[i];
  s += ")\n  ret void\n}\n";
  return s;
}

} // namespace loupe
