#include "render/opencl_renderer.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "ir/print.h"
#include "render/c_renderer.h"
#include "render/cstyle_text.h"
#include "support/error.h"

namespace loupe {

UOpList strip_barrier_sources(const UOpList& uops) {
  std::unordered_map<const UOp*, UOpPtr> remade;
  UOpList out;
  out.reserve(uops.size());
  for (const UOpPtr& u : uops) {
    UOpList src;
    bool changed = false;
    for (const UOpPtr& s : u->src) {
      auto it = remade.find(s.get());
      src.push_back(it != remade.end() ? it->second : s);
      changed = changed || it != remade.end();
    }
    if (u->op == Ops::LOAD && src.size() == 2 && src[1]->op == Ops::BARRIER) {
      src.pop_back();
      changed = true;
    }
    UOpPtr n = changed ? UOp::make(u->op, u->dtype, std::move(src), u->arg) : u;
    if (changed) remade[u.get()] = n;
    out.push_back(n);
  }
  return out;
}

CHelper gpu_helper(const CStyleRenderer& r, const std::string& kind, DType t, DType to, const BitcastSpelling& bitcast) {
  const std::string& pre = r.lang().helper_prefix;
  if (kind == "bitcast") {
    std::string name = "loupe_bitcast_" + dtype_tag(t) + "_" + dtype_tag(to), To = r.type_name(to);
    return {name, pre + " " + To + " " + name + "(" + r.type_name(t) + " x) { return " + bitcast(t, to, "x") + "; }"};
  }
  if (kind == "f2bf") {
    std::string BF = r.scalar_name(dtypes::bfloat16), U = r.scalar_name(dtypes::uint32);
    // tinygrad's rounding: to nearest even, a NaN keeps a payload bit so it stays NaN
    return {"loupe_f2bf", pre + " " + BF + " loupe_f2bf(float f) { " + U + " u = " + bitcast(dtypes::float32, dtypes::uint32, "f") +
                              "; if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u); else if (u & 0xffffu) "
                              "u |= 0x10000u; return (" + BF + ")(u >> 16); }"};
  }
  if (kind == "bf2f") {
    std::string BF = r.scalar_name(dtypes::bfloat16), U = r.scalar_name(dtypes::uint32);
    return {"loupe_bf2f", pre + " float loupe_bf2f(" + BF + " b) { return " +
                              bitcast(dtypes::uint32, dtypes::float32, "((" + U + ")b << 16)") + "; }"};
  }
  return c_helper(r, kind, t, to);
}

int64_t local_size_of(const UOpList& uops) {
  int64_t n = 1;
  for (const UOpPtr& u : uops)
    if (u->op == Ops::SPECIAL && u->var_name().rfind("lidx", 0) == 0 && !u->src.empty() && u->src[0]->op == Ops::CONST)
      n *= u->src[0]->const_int();
  return n;
}

OpSet gpu_native_ops() { return c_native_ops(); }

namespace {
RendererCaps opencl_caps() {
  RendererCaps c;
  c.device = "OPENCL";
  c.has_local = true;
  c.has_shared = true;
  c.supports_float4 = true;
  c.global_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};  // tinygrad's defaults: the device checks the real limits
  c.local_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
  c.shared_max = 32768;
  c.code_for_op = gpu_native_ops();
  return c;
}

CLanguage opencl_language() {
  CLanguage l;
  l.kernel_prefix = "__kernel ";
  l.buffer_prefix = "__global ";
  l.const_buffers = true;
  l.arg_int_prefix = "const int";
  l.arg_long_prefix = "const long";
  l.smem_prefix = "__local ";
  l.barrier = "barrier(CLK_LOCAL_MEM_FENCE);";
  l.helper_prefix = "static inline";
  l.vector_literal = CLanguage::VectorLiteral::Parens;
  l.gep_brackets = false;
  return l;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
} // namespace

std::string opencl_spelling(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  auto word_at = [&](size_t i, const std::string& w) {
    return s.compare(i, w.size(), w) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
           (i + w.size() >= s.size() || !ident_char(s[i + w.size()]));
  };
  for (size_t i = 0; i < s.size();) {
    if (word_at(i, "unsigned long long")) {
      out += "ulong";
      i += 18;
    } else if (word_at(i, "long long")) {
      out += "long";
      i += 9;
    } else if (std::isdigit(static_cast<unsigned char>(s[i])) && (i == 0 || (!ident_char(s[i - 1]) && s[i - 1] != '.'))) {
      size_t j = i;
      while (j < s.size() && (ident_char(s[j]) || s[j] == '.')) j++;
      std::string tok = s.substr(i, j - i);
      bool hex = tok.size() > 1 && (tok[1] == 'x' || tok[1] == 'X');
      if (!hex && tok.size() > 3 && tok.compare(tok.size() - 3, 3, "ull") == 0) tok = tok.substr(0, tok.size() - 3) + "UL";
      else if (!hex && tok.size() > 2 && tok.compare(tok.size() - 2, 2, "ll") == 0) tok = tok.substr(0, tok.size() - 2) + "L";
      out += tok;
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

OpenCLRenderer::OpenCLRenderer() : CStyleRenderer(opencl_caps(), opencl_language()) {}

UOpList emulate_half_uops(const UOpList& uops, std::vector<int64_t>& bits_buffers) {
  const DType f32 = dtypes::float32, u16 = dtypes::uint16;
  auto is_half = [](DType d) { return d.scalar_type == Scalar::Float16; };
  auto value_of = [](const Arg& a) { return a.is_bool() ? double(a.as_bool()) : a.is_int() ? double(a.as_int()) : a.as_double(); };
  // A half constant keeps its float value, like the C renderer spells it in float arithmetic; every half
  // result computed from it is rounded anyway.
  auto exact_half = [&](const Arg& a) { return static_cast<double>(static_cast<float>(value_of(a))); };
  std::unordered_map<const UOp*, UOpPtr> map;
  UOpList out;
  auto src_of = [&](const UOpPtr& s) -> UOpPtr {
    if (auto it = map.find(s.get()); it != map.end()) return it->second;
    if (s->op == Ops::CONST && is_half(s->dtype) && s->dtype.count == 1 && !s->dtype.is_ptr)  // constants may be unlisted
      return map[s.get()] = UOp::cnst(f32, exact_half(s->arg));
    return s;
  };
  auto add = [&](UOpPtr n) {
    out.push_back(n);
    return n;
  };
  auto to_bits = [&](const UOpPtr& x) { return add(UOp::make(Ops::BITCAST, u16, {x})); };
  auto from_bits = [&](const UOpPtr& b) { return add(UOp::make(Ops::BITCAST, f32, {b})); };
  auto bits_index = [](const UOpPtr& idx) {
    return idx->op == Ops::INDEX && idx->src[0]->op == Ops::DEFINE_GLOBAL && idx->dtype.base().scalar_type == Scalar::UInt16 &&
           idx->src[0]->arg.is_int();
  };
  std::vector<int64_t> bits;
  for (const UOpPtr& u : uops) {
    UOpList src;
    for (const UOpPtr& s : u->src) src.push_back(src_of(s));
    DType dt = u->dtype;
    bool half_ptr = dt.is_ptr && is_half(dt.base());
    bool half_val = !dt.is_ptr && is_half(dt);
    if ((half_val || half_ptr) && dt.base().count > 1)
      throw Error(cat("OPENCL: half vectors need cl_khr_fp16, which this device lacks (", uop_label(*u), ")"));
    UOpPtr n;
    switch (u->op) {
    case Ops::DEFINE_GLOBAL:
      if (half_ptr) {
        n = add(UOp::make(Ops::DEFINE_GLOBAL, u16.ptr(dt.ptr_size), {}, u->arg));
        bits.push_back(u->arg.as_int());
      }
      break;
    case Ops::DEFINE_LOCAL:  // a shared temp holds the float values directly
      if (half_ptr) n = add(UOp::make(Ops::DEFINE_LOCAL, f32.ptr(dt.ptr_size, true), {}, u->arg));
      break;
    case Ops::INDEX:
      if (half_ptr) n = add(UOp::make(Ops::INDEX, src[0]->dtype, src, u->arg));
      break;
    case Ops::CONST:
      if (half_val) n = add(UOp::cnst(f32, exact_half(u->arg)));
      break;
    case Ops::LOAD:
      if (half_val && bits_index(src[0])) {
        UOpList ls{src[0]};
        if (src.size() == 3) {
          const UOpPtr& alt = u->src[1];
          uint16_t alt_bits = alt->op == Ops::CONST ? round_to_half_bits(static_cast<float>(value_of(alt->arg))) : 0;
          if (alt->op != Ops::CONST) throw Error(cat("OPENCL: a gated half load needs a constant alternative (", uop_label(*u), ")"));
          ls.push_back(UOp::cnst_int(u16, alt_bits));
          ls.push_back(src[2]);
        }
        n = from_bits(add(UOp::make(Ops::LOAD, u16, std::move(ls))));
      } else if (half_val) {
        n = add(UOp::make(Ops::LOAD, f32, src, u->arg));
      }
      break;
    case Ops::STORE:
      if (bits_index(src[0])) {
        src[1] = to_bits(src[1]);
        n = add(UOp::make(Ops::STORE, dt, src, u->arg));
      }
      break;
    case Ops::BITCAST:
      if (is_half(u->src[0]->dtype)) {  // half -> a 16-bit type: its bits
        UOpPtr b = to_bits(src[0]);
        n = dt == u16 ? b : add(UOp::make(Ops::BITCAST, dt, {b}));
      } else if (half_val) {  // a 16-bit type -> half
        UOpPtr b = src[0]->dtype == u16 ? src[0] : add(UOp::make(Ops::BITCAST, u16, {src[0]}));
        n = from_bits(b);
      }
      break;
    case Ops::DEFINE_ACC:
    case Ops::ASSIGN:  // the value assigned is already rounded
      if (half_val) n = add(UOp::make(u->op, f32, src, u->arg));
      break;
    default:
      if (half_val) n = from_bits(to_bits(add(UOp::make(u->op, f32, src, u->arg))));  // compute in float, round
      break;
    }
    if (!n) {
      bool changed = false;
      for (size_t i = 0; i < src.size(); i++) changed = changed || src[i] != u->src[i];
      n = add(changed ? UOp::make(u->op, dt, std::move(src), u->arg) : u);
    }
    if (n != u) map[u.get()] = n;
  }
  bits_buffers = std::move(bits);
  return out;
}

RenderedKernel OpenCLRenderer::render(const std::string& name, const UOpList& uops) const {
  std::vector<int64_t> bits;
  UOpList list = strip_barrier_sources(uops);
  if (emulate_half_) list = emulate_half_uops(list, bits);
  RenderedKernel k = CStyleRenderer::render(name, list);
  k.source = opencl_spelling(k.source);
  for (BufferParam& b : k.buffers)  // the caller passes half buffers: the kernel reads their bits
    if (std::find(bits.begin(), bits.end(), b.index) != bits.end()) b.dtype = dtypes::float16.ptr(b.dtype.ptr_size);
  return k;
}

std::string OpenCLRenderer::scalar_name(DType s) const {
  switch (s.scalar_type) {
  case Scalar::Bool: return "bool";
  case Scalar::Int8: return "char";
  case Scalar::UInt8: return "uchar";
  case Scalar::UInt16: return "ushort";
  case Scalar::UInt32: return "uint";
  case Scalar::Int64: return "long";
  case Scalar::UInt64: return "ulong";
  default: return CStyleRenderer::scalar_name(s);
  }
}

std::string OpenCLRenderer::special_expr(const std::string& name) const {
  std::string dim = name.substr(name.size() - 1);
  if (name.rfind("gidx", 0) == 0) return "get_group_id(" + dim + ")";
  if (name.rfind("lidx", 0) == 0) return "get_local_id(" + dim + ")";
  if (name.rfind("idx", 0) == 0) return "get_global_id(" + dim + ")";
  LOUPE_ASSERT(false, "unknown launch id ", name);
  return {};
}

std::string OpenCLRenderer::math_call(const std::string& fn, DType, const std::string& x) const {
  return fn + "(" + x + ")";  // the builtins are overloaded on float and double
}

std::string OpenCLRenderer::infinity(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "((double)INFINITY)" : "INFINITY";
}

std::string OpenCLRenderer::nan(DType s) const { return s.scalar_type == Scalar::Float64 ? "((double)NAN)" : "NAN"; }

std::vector<std::string> OpenCLRenderer::type_preamble(const std::vector<DType>& used) const {
  auto uses = [&](Scalar s) {
    return std::any_of(used.begin(), used.end(), [&](DType d) { return d.scalar_type == s; });
  };
  std::vector<std::string> lines;
  if (uses(Scalar::Float16)) lines.push_back("#pragma OPENCL EXTENSION cl_khr_fp16 : enable");
  if (uses(Scalar::Float64)) lines.push_back("#pragma OPENCL EXTENSION cl_khr_fp64 : enable");
  if (uses(Scalar::BFloat16)) lines.push_back("typedef ushort bf16;  /* bfloat16 bits */");
  return lines;
}

namespace {
// as_<type>(x): OpenCL's reinterpreting cast (bfloat16 is its ushort bits)
std::string as_type(const CStyleRenderer& r, DType to, const std::string& x) {
  return "as_" + (to.scalar_type == Scalar::BFloat16 ? std::string("ushort") : r.type_name(to)) + "(" + x + ")";
}
} // namespace

namespace {
bool is_half_marker(DType from, DType to) {
  return (from == dtypes::float32 && to == dtypes::uint16) || (from == dtypes::uint16 && to == dtypes::float32);
}
} // namespace

std::string OpenCLRenderer::inline_bitcast(DType from, DType to, const std::string& x) const {
  return is_half_marker(from, to) ? "" : as_type(*this, to, x);
}

CHelper OpenCLRenderer::helper(const std::string& kind, DType t, DType to) const {
  // the half emulation's conversions (emulate_half_uops): the CPU's rounding, to nearest even
  if (kind == "bitcast" && t == dtypes::float32 && to == dtypes::uint16)
    return {"loupe_float_to_half_bits",
            "static inline ushort loupe_float_to_half_bits(float f) { uint x = as_uint(f); uint sign = (x >> 16) & 0x8000u; "
            "uint ax = x & 0x7fffffffu; if (ax > 0x7f800000u) return (ushort)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); "
            "if (ax >= 0x47800000u) return (ushort)(sign | 0x7c00u); if (ax < 0x38800000u) return (ushort)(sign | "
            "(uint)rint(as_float(ax) * 16777216.0f)); uint h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13); "
            "uint rest = ax & 0x1fffu; if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; return (ushort)(sign | h); }"};
  if (kind == "bitcast" && t == dtypes::uint16 && to == dtypes::float32)
    return {"loupe_half_bits_to_float",
            "static inline float loupe_half_bits_to_float(ushort h) { uint sign = (uint)(h & 0x8000u) << 16; uint e = (h >> 10) & "
            "0x1fu, m = h & 0x3ffu; if (e == 0) return as_float(sign | as_uint((float)m * 5.9604644775390625e-8f)); if (e == 31) "
            "return as_float(sign | 0x7f800000u | (m << 13)); return as_float(sign | ((e + 112u) << 23) | (m << 13)); }"};
  return gpu_helper(*this, kind, t, to, [this](DType, DType dst, const std::string& x) { return as_type(*this, dst, x); });
}

} // namespace loupe
