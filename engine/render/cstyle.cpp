#include "render/cstyle.h"

#include <algorithm>
#include <cctype>

#include "ir/print.h"
#include "ir/shared_memory_ops.h"
#include "render/cstyle_writer.h"

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
namespace cstyle {

namespace {
// Where a DEFINE_LOCAL starts after `end` bytes of shared memory (cp.async and ldmatrix move 16-byte rows),
// and the bytes it takes.
int64_t shared_start(int64_t end) { return (end + 15) / 16 * 16; }
int64_t shared_bytes(const UOp* u) { return u->dtype.ptr_size * u->dtype.base().itemsize(); }
} // namespace

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
    if (!matrix_op_of_kind(u->arg.as_string()) || matrix_op_of_kind(u->arg.as_string())->unit != R.caps().matrix_unit)
      fail(u, cat("WMMA ", u->arg.as_string(), " on a device whose matrix unit is ", matrix_unit_name(R.caps().matrix_unit)));
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
    int dim = name.back() - '0';
    if (dim < 0 || dim > 2) fail(u, "SPECIAL name must end in 0, 1 or 2");
    std::string shown;
    if (size->op == Ops::CONST) {
      (name[0] == 'l' ? out_.local : out_.global)[dim] = size->const_int();
      shown = std::to_string(size->const_int());
    } else {
      // a grid size over the kernel's variables: the runtime evaluates it at launch
      if (name[0] == 'l') fail(u, "a work-group size must be a constant");
      out_.global[dim] = static_cast<int64_t>(size->vmax());
      out_.global_sym[static_cast<size_t>(dim)] = size->ptr();
      shown = render_expr(size->ptr());
    }
    set_text(u, name);
    emit(R.type_name(rtype(u)) + " " + name + " = " + R.special_expr(name) + "; /* " + shown + " */");
    return;
  }
  default: {  // DEFINE_LOCAL
    std::string name = u->arg.is_string() ? u->arg.as_string() : fresh("temp");
    set_text(u, name);
    use_type(u->dtype.base());
    const std::string T = R.type_name(u->dtype.base());
    if (out_.dynamic_shared_bytes == 0) {
      emit(L.smem_prefix + T + " " + name + "[" + std::to_string(u->dtype.ptr_size) + "];");
      return;
    }
    // a pointer into the one dynamic array
    const bool first = shared_next_ == 0;
    const int64_t at = shared_start(shared_next_);
    shared_next_ = at + shared_bytes(u);
    emit(cat(first ? L.dynamic_smem + " loupe_smem[]; " : "", T, "* ", name, " = (", T, "*)(loupe_smem + ", at, ");"));
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
      const UOp* end = u->src[0].get();
      out_.global = {end->op == Ops::CONST ? end->const_int() : static_cast<int64_t>(end->vmax()), 1, 1};
      if (end->op != Ops::CONST) out_.global_sym[0] = end->ptr();  // evaluated at launch
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
  if (L.static_shared_max > 0) {  // the shared memory the DEFINE_LOCALs take, laid out as render_definition lays them
    int64_t bytes = 0;
    for (const UOpPtr& u : uops_)
      if (u->op == Ops::DEFINE_LOCAL) bytes = shared_start(bytes) + shared_bytes(u.get());
    if (bytes > L.static_shared_max) out_.dynamic_shared_bytes = bytes;
  }
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


} // namespace cstyle

RenderedKernel CStyleRenderer::render(const std::string& name, const UOpList& uops) const {
  return cstyle::KernelWriter(*this, uops).run(name);
}

} // namespace loupe