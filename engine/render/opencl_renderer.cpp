#include "render/opencl_renderer.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

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

OpSet gpu_native_ops() {
  OpSet ops = OpSet::group(kALU);
  OpSet out;
  ops.for_each([&](Ops op) {
    if (op != Ops::EXP2 && op != Ops::LOG2 && op != Ops::SIN && op != Ops::POW && op != Ops::THREEFRY) out.add(op);
  });
  return out;
}

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
  l.vector_literal_braces = false;
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

RenderedKernel OpenCLRenderer::render(const std::string& name, const UOpList& uops) const {
  RenderedKernel k = CStyleRenderer::render(name, strip_barrier_sources(uops));
  k.source = opencl_spelling(k.source);
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

std::string OpenCLRenderer::inline_bitcast(DType, DType to, const std::string& x) const { return as_type(*this, to, x); }

CHelper OpenCLRenderer::helper(const std::string& kind, DType t, DType to) const {
  return gpu_helper(*this, kind, t, to, [this](DType, DType dst, const std::string& x) { return as_type(*this, dst, x); });
}

} // namespace loupe
