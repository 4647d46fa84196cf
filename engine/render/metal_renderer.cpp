#include "render/metal_renderer.h"

#include <algorithm>

#include "support/error.h"

namespace loupe {

namespace {
RendererCaps metal_caps() {
  RendererCaps c;
  c.device = "METAL";
  c.has_local = true;
  c.has_shared = true;
  c.supports_float4 = true;
  c.global_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
  c.local_max = {1024, 1024, 1024};
  c.shared_max = 32768;  // threadgroup memory on Apple GPUs
  c.code_for_op = gpu_native_ops();
  return c;
}

CLanguage metal_language() {
  CLanguage l;
  l.kernel_prefix = "kernel ";
  l.buffer_prefix = "device ";
  l.const_buffers = true;
  l.arg_int_prefix = "constant int&";
  l.arg_long_prefix = "constant long&";
  l.smem_prefix = "threadgroup ";
  l.barrier = "threadgroup_barrier(mem_flags::mem_threadgroup);";
  l.helper_prefix = "static inline";
  l.gep_brackets = false;
  return l;
}

std::string as_type(const CStyleRenderer& r, DType to, const std::string& x) {
  return "as_type<" + r.type_name(to) + ">(" + x + ")";
}
} // namespace

MetalRenderer::MetalRenderer() : CStyleRenderer(metal_caps(), metal_language()) {}

RenderedKernel MetalRenderer::render(const std::string& name, const UOpList& uops) const {
  for (const UOpPtr& u : uops)
    if (u->dtype.scalar().scalar_type == Scalar::Float64)
      throw Error(cat("METAL: kernel ", name, " uses float64, which Metal does not have"));
  RenderedKernel k = CStyleRenderer::render(name, strip_barrier_sources(uops));
  k.source = opencl_spelling(k.source);  // Metal also spells 64-bit integers long/ulong
  // the launch ids are parameters with attributes
  std::string head = lang_.kernel_prefix + "void " + name + "(";
  size_t at = k.source.find(head);
  LOUPE_ASSERT(at != std::string::npos, "Metal kernel signature not found for ", name);
  size_t close = k.source.find(") {\n", at);
  LOUPE_ASSERT(close != std::string::npos, "Metal kernel signature not closed for ", name);
  bool empty = k.source[close - 1] == '(';
  k.source.insert(close, std::string(empty ? "" : ", ") +
                             "uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]");
  return k;
}

std::string MetalRenderer::scalar_name(DType s) const {
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

std::string MetalRenderer::special_expr(const std::string& name) const {
  std::string axis(1, "xyz"[name.back() - '0']);
  if (name.rfind("gidx", 0) == 0) return "gid." + axis;
  if (name.rfind("lidx", 0) == 0) return "lid." + axis;
  // NOLOCALS kernels run with one thread per threadgroup here, so the group id is the global id
  if (name.rfind("idx", 0) == 0) return "gid." + axis;
  LOUPE_ASSERT(false, "unknown launch id ", name);
  return {};
}

std::string MetalRenderer::math_call(const std::string& fn, DType, const std::string& x) const {
  return fn + "(" + x + ")";  // overloaded in metal_stdlib
}

std::vector<std::string> MetalRenderer::type_preamble(const std::vector<DType>& used) const {
  std::vector<std::string> lines{"#include <metal_stdlib>", "using namespace metal;"};
  if (std::any_of(used.begin(), used.end(), [](DType d) { return d.scalar_type == Scalar::BFloat16; }))
    lines.push_back("typedef ushort bf16;  /* bfloat16 bits */");
  return lines;
}

std::string MetalRenderer::inline_bitcast(DType, DType to, const std::string& x) const { return as_type(*this, to, x); }

CHelper MetalRenderer::helper(const std::string& kind, DType t, DType to) const {
  return gpu_helper(*this, kind, t, to, [this](DType, DType dst, const std::string& x) { return as_type(*this, dst, x); });
}

} // namespace loupe
