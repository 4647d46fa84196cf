#include "render/cstyle.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

#include "ir/print.h"
#include "ir/shared_memory_ops.h"
#include "render/linear_analysis.h"
#include "support/flat_ptr_map.h"
#include "support/error.h"

namespace loupe {

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string CStyleRenderer::scalar_name(DType s) const {
  switch (s.scalar_type) {
  case Scalar::Bool: return "_Bool";
  case Scalar::Int8: return "signed char";
  case Scalar::UInt8: return "unsigned char";
  case Scalar::Int16: return "short";
  case Scalar::UInt16: return "unsigned short";
  case Scalar::Int32: return "int";
  case Scalar::UInt32: return "unsigned int";
  case Scalar::Int64: return "long long";
  case Scalar::UInt64: return "unsigned long long";
  case Scalar::Float16: return "half";
  case Scalar::BFloat16: return "bf16";
  case Scalar::Float32: return "float";
  case Scalar::Float64: return "double";
  default: LOUPE_ASSERT(false, "no C type for ", s.name());
  }
  return {};
}

std::string CStyleRenderer::type_name(DType dt) const {
  if (dt.is_ptr) return type_name(dt.base()) + "*";
  if (dt.count == 1) return scalar_name(dt.scalar());
  return vector_name(dt);
}

std::string CStyleRenderer::vector_name(DType dt) const {
  std::string s = scalar_name(dt.scalar());
  std::replace(s.begin(), s.end(), ' ', '_');
  return s + std::to_string(dt.count);
}

std::string CStyleRenderer::special_expr(const std::string& name) const {
  LOUPE_ASSERT(false, caps_.device, " kernels have no launch ids, got SPECIAL ", name);
  return {};
}

std::string CStyleRenderer::math_call(const std::string& fn, DType s, const std::string& x) const {
  return fn + (s.scalar_type == Scalar::Float64 ? "" : "f") + "(" + x + ")";
}

std::string CStyleRenderer::inline_bitcast(DType from, DType to, const std::string& x) const {
  if (from.scalar_type != Scalar::Float16 && to.scalar_type != Scalar::Float16) return "";
  // a GNU statement expression: copy the bits through locals
  return "({ " + type_name(from) + " bc_in = " + x + "; " + type_name(to) + " bc_out; __builtin_memcpy(&bc_out, &bc_in, sizeof bc_out); bc_out; })";
}

std::string CStyleRenderer::infinity(DType) const { return "INFINITY"; }
std::string CStyleRenderer::nan(DType) const { return "NAN"; }
std::vector<std::string> CStyleRenderer::type_preamble(const std::vector<DType>&) const { return {}; }

namespace {

// Operations whose result can leave a narrow integer type before C converts it back.
bool can_overflow(Ops op) {
  return op == Ops::ADD || op == Ops::SUB || op == Ops::MUL || op == Ops::NEG || op == Ops::SHL || op == Ops::MULACC;
}

bool strips_left(Ops op) {
  return op == Ops::ADD || op == Ops::MUL || op == Ops::AND || op == Ops::OR || op == Ops::XOR;
}

// One operand of an ALU op: its text, its C type, and the constant behind it (re-spelled in another type
// instead of cast).
struct Operand {
  // its text: a rendered node's own (not copied) or a lane spelled for it
  const std::string& text() const { return shown ? *shown : spelled; }
  const std::string* shown = nullptr;
  std::string spelled;
  DType type;
  const UOp* node = nullptr;
  const Arg* cval = nullptr;
  bool inlined = false;
};

class KernelWriter {
public:
  KernelWriter(const CStyleRenderer& r, const UOpList& uops) : R(r), L(r.lang()), uops_(uops) {}
  RenderedKernel run(const std::string& name);

private:
  const CStyleRenderer& R;
  const CLanguage& L;
  const UOpList& uops_;
  // What the writer knows of each node it meets (the listed ones and the constants they read).
  struct NodeInfo {
    bool inlined = false;    // its text is an expression written where it is used
    bool is_mutable = false; // a buffer some STORE writes
    bool has_text = false;
    bool grouped = false;    // its inlined text is one parenthesized group (known without a scan)
    std::string text;
  };
  FlatPtrMap<const UOp*, NodeInfo*> info_;
  std::deque<NodeInfo> infos_;  // stable addresses as it grows
  NodeInfo& info(const UOp* u) {
    auto [slot, added] = info_.try_emplace(u);
    if (added) *slot = &infos_.emplace_back();
    return **slot;
  }
  bool inlined(const UOp* u) { return info(u).inlined; }
  void set_text(const UOp* u, std::string t) {
    NodeInfo& i = info(u);
    i.text = std::move(t);
    i.has_text = true;
  }
  std::vector<std::pair<std::string, int>> counters_;  // per name prefix (a handful)
  std::vector<std::pair<DType, std::string>> type_names_;  // C names of the types declared so far
  std::vector<std::string> body_;
  int depth_ = 1;
  std::vector<std::string> helper_order_;
  std::unordered_map<std::string, std::string> helpers_;
  std::vector<DType> used_types_;
  const UOp* split_range_ = nullptr;
  std::set<int64_t> open_axes_;
  RenderedKernel out_;

  [[noreturn]] void fail(const UOp* u, const std::string& why) const {
    raise_internal(__FILE__, __LINE__, cat("render ", R.caps().device, ": ", why, " at ", uop_label(*u)));
  }
  DType rtype(const UOp* u) const { return c_resolve(u->dtype, u->vmin(), u->vmax()); }
  void use_type(DType t) {
    t = t.base();
    if (std::find(used_types_.begin(), used_types_.end(), t) == used_types_.end()) used_types_.push_back(t);
  }
  std::string call(const std::string& kind, DType t, const std::string& args, DType to = {}) {
    CHelper h = R.helper(kind, t, to);
    if (!helpers_.count(h.name)) {
      helpers_[h.name] = h.code;
      helper_order_.push_back(h.name);
    }
    return h.name + "(" + args + ")";
  }
  // A line of the body at the current depth, joined from its pieces in one allocation.
  void emit(std::initializer_list<std::string_view> parts) {
    size_t n = 2 * static_cast<size_t>(depth_);
    for (std::string_view p : parts) n += p.size();
    std::string& out = body_.emplace_back();
    out.reserve(n);
    out.append(2 * static_cast<size_t>(depth_), ' ');
    for (std::string_view p : parts) out.append(p);
  }
  void emit(const std::string& line) { emit({std::string_view(line)}); }
  std::string fresh(const std::string& prefix) {
    auto it = std::find_if(counters_.begin(), counters_.end(), [&](const auto& c) { return c.first == prefix; });
    if (it == counters_.end()) it = counters_.insert(counters_.end(), {prefix, 0});
    return prefix + std::to_string(it->second++);
  }
  const std::string& type_name(DType t) {
    for (const auto& [dt, name] : type_names_)
      if (dt == t) return name;
    return type_names_.emplace_back(t, R.type_name(t)).second;
  }

  void analyze();
  const std::string& text(const UOp* u);
  Operand operand(const UOp* u, int lane = -1);
  std::string lane(const UOp* u, int i);
  std::string convert(const std::string& x, DType have, DType want);
  std::string conv(const Operand& o, DType want) {
    if (o.type == want) return o.text();
    if (o.cval) return c_constant(R, *o.cval, want);
    return convert(o.text(), o.type, want);
  }
  std::string vec_literal(DType vt, const std::vector<std::string>& lanes);
  std::string constant(const UOp* u);
  // An ALU op's operands (at most three), built in place: one per node rendered.
  struct Operands {
    std::array<Operand, 3> items;
    size_t count = 0;
    std::span<const Operand> view() const { return {items.data(), count}; }
  };
  Operands operands(const UOp* u, int lane);  // lane -1: whole values
  std::string scalar_alu(const UOp* u, Ops op, DType res, std::span<const Operand> xs);
  std::string explicit_fma(Ops op, DType m, std::span<const Operand> xs);
  std::string value_expr(const UOp* u);
  const CVectorSpelling V{R.caps()};
  bool vector_operator(const UOp* u) const { return V.vector_operator(u); }
  bool is_mask(const UOp* u) const { return V.is_mask(u); }
  static DType mask_type(const UOp* u) { return CVectorSpelling::mask_type(u); }
  bool vector_conversion(const UOp* u) const { return V.vector_conversion(u); }
  std::string vector_alu(const UOp* u);
  std::string index_expr(const UOp* u);
  void declare(const UOp* u, const std::string& prefix, const std::string& expr);
  void render_one(const UOp* u);
  void render_definition(const UOp* u);
  void render_control(const UOp* u);
  void render_memory(const UOp* u);
  void render_value(const UOp* u);
};

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
  if (!L.explicit_fma || (op != Ops::ADD && op != Ops::SUB) || (m != dtypes::float32 && m != dtypes::float64)) return {};
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

void KernelWriter::declare(const UOp* u, const std::string& prefix, const std::string& expr) {
  DType t = is_mask(u) ? mask_type(u) : rtype(u);
  std::string name = fresh(prefix);
  set_text(u, name);
  if (t.count > 1 && t.scalar().is_bool()) {
    use_type(t.scalar());
    emit(R.scalar_name(t.scalar()) + " " + name + "[" + std::to_string(t.count) + "] = " + expr + ";");
    return;
  }
  use_type(t);
  emit({type_name(t), " ", name, " = ", expr, ";"});
}

void KernelWriter::render_one(const UOp* u) {
  switch (u->op) {
  case Ops::NAME:
  case Ops::SINK: return;
  case Ops::DEFINE_GLOBAL:
  case Ops::DEFINE_VAR:
  case Ops::SPECIAL:
  case Ops::DEFINE_LOCAL: render_definition(u); return;
  case Ops::RANGE:
  case Ops::ENDRANGE:
  case Ops::ENDIF:
  case Ops::IF:
  case Ops::BARRIER: render_control(u); return;
  case Ops::CONST:
  case Ops::VCONST: text(u); return;
  case Ops::NOOP: set_text(u, text(u->src.at(0).get())); return;
  case Ops::INDEX: set_text(u, index_expr(u)); return;
  case Ops::DEFINE_ACC:
  case Ops::ASSIGN:
  case Ops::LOAD:
  case Ops::STORE:
  case Ops::ASYNC_COPY:
  case Ops::LOAD_MATRIX: render_memory(u); return;
  case Ops::WMMA: {  // a warp-wide matrix multiply-accumulate: the dialect's helper, one call per lane
    if (!R.caps().tensor_cores) fail(u, "WMMA on a device without tensor cores");
    std::string args;
    for (const UOpPtr& s : u->src) args += (args.empty() ? "" : ", ") + text(s.get());
    declare(u, "wmma", call("wmma_" + u->arg.as_string(), rtype(u->src.at(0).get()), args));
    return;
  }
  case Ops::SHUFFLE_XOR: {  // another lane's value of a register: the dialect's intrinsic
    const Arg::Tuple& a = u->arg.as_tuple();
    std::string read = R.warp_shuffle_xor(text(u->src.at(0).get()), a.at(0).as_int(), a.at(1).as_int());
    if (!R.caps().warp_shuffle || read.empty()) fail(u, "SHUFFLE_XOR on a device without warp shuffles");
    declare(u, "shfl", read);
    return;
  }
  default: render_value(u); return;
  }
}

// Kernel parameters, launch ids and local memory.
void KernelWriter::render_definition(const UOp* u) {
  switch (u->op) {
  case Ops::DEFINE_GLOBAL: {
    LOUPE_ASSERT(u->arg.is_int() && u->dtype.is_ptr, "DEFINE_GLOBAL needs an int arg and a pointer dtype: ",
                 uop_label(*u));
    for (const BufferParam& b : out_.buffers)
      if (b.index == u->arg.as_int()) fail(u, "two DEFINE_GLOBALs with the same index");
    set_text(u, "data" + std::to_string(u->arg.as_int()));
    out_.buffers.push_back({u->arg.as_int(), u->dtype, info(u).is_mutable});
    use_type(u->dtype.base());
    return;
  }
  case Ops::DEFINE_VAR: {
    const auto& t = u->arg.as_tuple();
    std::string name = t.at(0).as_string();
    if (!is_c_identifier(name)) fail(u, "variable name is not a C identifier");
    set_text(u, name);
    out_.vars.push_back({name, t.at(1).as_int(), t.at(2).as_int()});
    return;
  }
  case Ops::SPECIAL: {
    std::string name = u->arg.is_string() ? u->arg.as_string() : u->arg.as_tuple().at(0).as_string();
    const UOp* size = u->src.at(0).get();
    if (size->op != Ops::CONST) fail(u, "symbolic launch sizes are not supported yet");
    int dim = name.back() - '0';
    if (dim < 0 || dim > 2) fail(u, "SPECIAL name must end in 0, 1 or 2");
    (name[0] == 'l' ? out_.local : out_.global)[dim] = size->const_int();
    set_text(u, name);
    emit(R.type_name(rtype(u)) + " " + name + " = " + R.special_expr(name) + "; /* " + std::to_string(size->const_int()) +
         " */");
    return;
  }
  default: {  // DEFINE_LOCAL
    std::string name = u->arg.is_string() ? u->arg.as_string() : fresh("temp");
    set_text(u, name);
    use_type(u->dtype.base());
    emit(L.smem_prefix + R.type_name(u->dtype.base()) + " " + name + "[" + std::to_string(u->dtype.ptr_size) + "];");
    return;
  }
  }
}

// Loops, conditionals and barriers.
void KernelWriter::render_control(const UOp* u) {
  switch (u->op) {
  case Ops::RANGE: {
    DType t = rtype(u);
    int64_t axis = u->arg.is_int() ? u->arg.as_int() : 0;
    while (open_axes_.count(axis)) axis++;
    open_axes_.insert(axis);
    std::string name = "ridx" + std::to_string(axis);
    set_text(u, name);
    std::string T = R.type_name(t);
    if (u == split_range_) {
      out_.split_loop = true;
      out_.global = {u->src[0]->const_int(), 1, 1};
      emit("for (" + T + " " + name + " = loop_start; " + name + " < loop_end; " + name + "++) {");
    } else {
      emit("for (" + T + " " + name + " = 0; " + name + " < " + conv(operand(u->src.at(0).get()), t) + "; " + name +
           "++) {");
    }
    depth_++;
    return;
  }
  case Ops::ENDRANGE:
  case Ops::ENDIF:
    if (u->src.empty()) fail(u, "END without its RANGE/IF");
    if (u->op == Ops::ENDRANGE) {
      const std::string& nm = text(u->src[0].get());
      if (u->src[0]->op != Ops::RANGE || nm.rfind("ridx", 0) != 0) fail(u, "ENDRANGE of something that is not an open loop: " + nm);
      open_axes_.erase(std::stoll(nm.substr(4)));
    }
    depth_--;
    emit("}");
    return;
  case Ops::IF:
    emit("if (" + text(u->src.at(0).get()) + ") {");
    depth_++;
    return;
  default:  // BARRIER (over asynchronous copies: waits for them first, all but its arg's last ones)
    for (const UOpPtr& s : u->src)
      if (s->op == Ops::ASYNC_COPY) {
        emit(R.async_copy_wait(u->arg.is_int() ? u->arg.as_int() : 0));
        break;
      }
    if (!L.barrier.empty()) emit(L.barrier);
    return;
  }
}

// Accumulators, loads and stores.
void KernelWriter::render_memory(const UOp* u) {
  switch (u->op) {
  case Ops::DEFINE_ACC: declare(u, "acc", text(u->src.at(0).get())); return;
  case Ops::ASSIGN:
    set_text(u, text(u->src.at(0).get()));
    emit(text(u) + " = " + text(u->src.at(1).get()) + ";");
    return;
  case Ops::LOAD: {
    std::string ptr = text(u->src.at(0).get());
    std::string e = "*" + ptr;
    if (u->src.size() == 3) e = "(" + text(u->src[2].get()) + "?*" + ptr + ":" + text(u->src[1].get()) + ")";
    else if (u->src.size() != 1) fail(u, "LOAD takes (INDEX) or (INDEX, alt, gate)");
    declare(u, "val", e);
    return;
  }
  case Ops::LOAD_MATRIX: {  // an array of the lane's values, filled by the dialect's statement
    const Arg::Tuple& a = u->arg.as_tuple();
    DType t = rtype(u).scalar();
    std::string name = fresh("mat");
    set_text(u, name);
    use_type(t);
    std::string st = R.load_matrix(name, R.type_name(t), text(u->src.at(0).get()), a.at(0).as_int(), a.at(1).as_bool());
    if (st.empty()) fail(u, "this dialect has no matrix loads");
    emit(st);
    return;
  }
  case Ops::ASYNC_COPY: {
    if (u->src.size() < 2 || !u->arg.is_int()) fail(u, "ASYNC_COPY takes (shared INDEX, global INDEX[, gate][, barrier]) and a count");
    const UOp* gate = async_copy_gate(u);
    std::string st = R.async_copy(text(u->src[0].get()), text(u->src[1].get()),
                                  u->arg.as_int() * static_cast<int64_t>(u->src[0]->dtype.base().scalar().itemsize()),
                                  gate ? text(gate) : std::string());
    if (st.empty()) fail(u, "this dialect has no asynchronous copies");
    emit(st);
    return;
  }
  default: {  // STORE
    if (u->src.size() < 2) fail(u, "STORE takes (INDEX, value[, gate])");
    std::string st = "*" + text(u->src[0].get()) + " = " + text(u->src[1].get()) + ";";
    if (u->src.size() == 3) st = "if (" + text(u->src[2].get()) + ") " + st;
    emit(st);
    return;
  }
  }
}

// A value op: its expression written inline where it is used, or as a named variable.
void KernelWriter::render_value(const UOp* u) {
  if (!is_value_op(u->op) && u->op != Ops::GEP) fail(u, "op not allowed in a linearized C kernel");
  std::string e = value_expr(u);
  if (inlined(u)) {
    // a sum, product or bitwise op is spelled "(a+b)" (at most wrapped in a cast) or as a call: one
    // group whenever it starts with '(' (chains of them are stripped left to right below)
    info(u).grouped = strips_left(u->op) && (u->dtype.count == 1 || vector_operator(u)) && !e.empty() && e.front() == '(';
    set_text(u, e);
    return;
  }
  const char* prefix = u->op == Ops::GEP ? "gep" : (u->op == Ops::CAST || u->op == Ops::BITCAST || u->op == Ops::VECTORIZE) ? "cast" : "alu";
  declare(u, prefix, e);
}

RenderedKernel KernelWriter::run(const std::string& name) {
  if (!is_c_identifier(name)) throw Error(cat("kernel name '", name, "' is not a C identifier"));
  out_.name = name;
  out_.device = R.caps().device;
  analyze();
  body_.reserve(uops_.size());
  std::vector<int> body_line(uops_.size(), -1);  // the first line each UOp wrote
  for (size_t i = 0; i < uops_.size(); i++) {
    size_t before = body_.size();
    render_one(uops_[i].get());
    if (body_.size() > before) body_line[i] = static_cast<int>(before);
  }
  LOUPE_ASSERT(depth_ == 1, "unbalanced RANGE/IF in kernel ", name);
  std::sort(out_.buffers.begin(), out_.buffers.end(), [](auto& a, auto& b) { return a.index < b.index; });
  for (DType t : used_types_)
    if (R.type_name(t) == name) throw Error(cat("kernel name '", name, "' is also the name of a C type it uses"));
  if (name.rfind("loupe_", 0) == 0 || helpers_.count(name)) throw Error(cat("kernel name '", name, "' is reserved"));
  std::vector<std::string> params;
  for (BufferParam& b : out_.buffers) {
    bool ro = L.const_buffers && !b.is_mutable;
    params.push_back(L.buffer_prefix + (ro ? "const " : "") + R.type_name(b.dtype) + L.buffer_suffix + " data" +
                     std::to_string(b.index));
  }
  for (const VarParam& v : out_.vars) {
    bool fits = v.min >= std::numeric_limits<int32_t>::min() && v.max <= std::numeric_limits<int32_t>::max();
    params.push_back((fits ? L.arg_int_prefix : L.arg_long_prefix) + " " + v.name);
  }
  if (out_.split_loop) {
    std::string T = R.type_name(rtype(split_range_));
    params.push_back("const " + T + " loop_start");
    params.push_back("const " + T + " loop_end");
  }
  std::string src;
  for (const std::string& line : R.type_preamble(used_types_)) src += line + "\n";
  for (const std::string& h : helper_order_) src += helpers_[h] + "\n";
  src += L.kernel_prefix + "void " + name + "(";
  for (size_t i = 0; i < params.size(); i++) src += (i ? ", " : "") + params[i];
  src += ") {\n";
  const int signature_line = static_cast<int>(std::count(src.begin(), src.end(), '\n'));
  out_.uop_lines = uop_source_lines(uops_, body_line, signature_line + 1, signature_line);
  size_t body_size = 0;
  for (const std::string& line : body_) body_size += line.size() + 1;
  src.reserve(src.size() + body_size + 2);
  for (const std::string& line : body_) src.append(line).push_back('\n');
  src += "}\n";
  out_.source = std::move(src);
  return std::move(out_);
}

} // namespace

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

RenderedKernel CStyleRenderer::render(const std::string& name, const UOpList& uops) const {
  return KernelWriter(*this, uops).run(name);
}

} // namespace loupe
