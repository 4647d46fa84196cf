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
#include "render/c_renderer.h"
#include "render/linear_analysis.h"
#include "render/llvm_ir_writer.h"
#include "render/cstyle.h"
#include "render/cstyle_text.h"
#include "support/error.h"
#include "support/host_cpu.h"

namespace loupe {

namespace llvm_ir {

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
      const UOp* extent = u->src[0].get();
      out_.global = {extent->op == Ops::CONST ? extent->const_int() : static_cast<int64_t>(extent->vmax()), 1, 1};
      if (extent->op != Ops::CONST) out_.global_sym[0] = extent->ptr();  // evaluated at launch
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

} // namespace llvm_ir

using llvm_ir::resolve;
using llvm_ir::scalar_type;

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
  // the host's vectors, as the C backend's: register tiles of vector loads, stores and arithmetic,
  // compares, selects and casts (llvm_ir_values.cpp: vector_alu)
  caps_.vector_bytes = host_cpu().vector_bytes;
  caps_.vector_registers = host_cpu().vector_registers;
  caps_.vector_ops = {Ops::ADD, Ops::SUB, Ops::MUL, Ops::FDIV, Ops::MULACC, Ops::CMPLT, Ops::CMPNE, Ops::WHERE,
                     Ops::CAST, Ops::BITCAST, Ops::SHL, Ops::SHR, Ops::AND, Ops::OR, Ops::XOR};
}

RenderedKernel LlvmRenderer::render(const std::string& name, const UOpList& uops) const {
  return llvm_ir::IrWriter(caps_, uops).run(name);
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
