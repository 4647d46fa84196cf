#include "render/cuda_renderer.h"

#include <algorithm>
#include <sstream>

#include "support/error.h"

namespace loupe {

namespace {
RendererCaps cuda_caps() {
  RendererCaps c;
  c.device = "CUDA";
  c.has_local = true;
  c.has_shared = true;
  c.supports_float4 = true;
  // 16-byte loads and stores of 4- and 8-byte elements, as CUDA's built-in vector types (float4, int4,
  // double2; no half8 or char16); they have no arithmetic operators, so ALU ops stay per lane
  c.vector_bytes = 16;
  c.vector_min_item = 4;
  c.vector_aligned = true;  // a float4 at an address not a multiple of 16 bytes faults
  c.global_max = {2147483647, 65535, 65535};  // grid limits of every CUDA GPU since sm_30
  c.local_max = {1024, 1024, 64};
  c.shared_max = kStaticSharedMax;  // until the GPU says how much a block may opt into
  c.code_for_op = gpu_native_ops();
  c.warp_shuffle = true;  // __shfl_xor_sync: every CUDA GPU since sm_30, warps of 32
  return c;
}

CLanguage cuda_language() {
  CLanguage l;
  l.kernel_prefix = "extern \"C\" __global__ ";
  l.const_buffers = true;
  l.arg_int_prefix = "const int";
  l.arg_long_prefix = "const long long";
  l.smem_prefix = "__shared__ __align__(16) ";  // cp.async and ldmatrix move 16-byte rows
  l.static_shared_max = kStaticSharedMax;        // more is dynamic: the device raises the kernel's limit
  l.dynamic_smem = "extern __shared__ __align__(16) unsigned char";
  l.barrier = "__syncthreads();";
  l.helper_prefix = "static __device__ __forceinline__";
  l.vector_literal = CLanguage::VectorLiteral::MakeFunction;
  l.gep_brackets = false;
  l.explicit_fma = true;
  return l;
}

// The CUDA intrinsic that reinterprets `from` as `to`, or "" when there is none for the pair.
std::string intrinsic_bitcast(DType from, DType to, const std::string& x) {
  auto is = [](DType d, Scalar s) { return d.scalar_type == s; };
  if (is(from, Scalar::Float32) && is(to, Scalar::UInt32)) return "__float_as_uint(" + x + ")";
  if (is(from, Scalar::Float32) && is(to, Scalar::Int32)) return "__float_as_int(" + x + ")";
  if (is(from, Scalar::UInt32) && is(to, Scalar::Float32)) return "__uint_as_float(" + x + ")";
  if (is(from, Scalar::Int32) && is(to, Scalar::Float32)) return "__int_as_float(" + x + ")";
  if (is(from, Scalar::Float64) && is(to, Scalar::Int64)) return "__double_as_longlong(" + x + ")";
  if (is(from, Scalar::Int64) && is(to, Scalar::Float64)) return "__longlong_as_double(" + x + ")";
  return "";
}
} // namespace

CUDARenderer::CUDARenderer() : CStyleRenderer(cuda_caps(), cuda_language()) {}

void CUDARenderer::set_compute_capability(int major, int /*minor*/) {
  caps_.matrix_unit = major >= 8 ? MatrixUnit::mma_m16n8k16 : MatrixUnit::none;
  caps_.async_copy = major >= 8;
}

void CUDARenderer::set_shared_memory_optin(int64_t bytes) { caps_.shared_max = std::max<int64_t>(kStaticSharedMax, bytes); }

RenderedKernel CUDARenderer::render(const std::string& name, const UOpList& uops) const {
  RenderedKernel k = CStyleRenderer::render(name, strip_barrier_sources(uops));
  // the block size is known here, so the compiler can budget registers for it
  std::string head = lang_.kernel_prefix + "void " + name + "(";
  size_t at = k.source.find(head);
  LOUPE_ASSERT(at != std::string::npos, "CUDA kernel signature not found for ", name);
  k.source.insert(at + lang_.kernel_prefix.size() + 5, "__launch_bounds__(" + std::to_string(local_size_of(uops)) + ") ");
  return k;
}

std::string CUDARenderer::scalar_name(DType s) const {
  if (s.scalar_type == Scalar::Bool) return "bool";  // CUDA is C++: no _Bool
  return CStyleRenderer::scalar_name(s);
}

std::string CUDARenderer::vector_name(DType dt) const {
  switch (dt.scalar_type) {
  case Scalar::UInt32: return "uint" + std::to_string(dt.count);
  case Scalar::Int64: return "longlong" + std::to_string(dt.count);
  case Scalar::UInt64: return "ulonglong" + std::to_string(dt.count);
  default: return CStyleRenderer::vector_name(dt);
  }
}

std::string CUDARenderer::special_expr(const std::string& name) const {
  std::string axis(1, "xyz"[name.back() - '0']);
  if (name.rfind("gidx", 0) == 0) return "blockIdx." + axis;
  if (name.rfind("lidx", 0) == 0) return "threadIdx." + axis;
  if (name.rfind("idx", 0) == 0) return "(blockIdx." + axis + "*blockDim." + axis + "+threadIdx." + axis + ")";
  LOUPE_ASSERT(false, "unknown launch id ", name);
  return {};
}

// NVRTC compiles without math.h: infinity and NaN from their bits.
std::string CUDARenderer::infinity(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "__longlong_as_double(0x7ff0000000000000ll)" : "__int_as_float(0x7f800000)";
}

std::string CUDARenderer::nan(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "__longlong_as_double(0x7ff8000000000000ll)" : "__int_as_float(0x7fc00000)";
}

std::vector<std::string> CUDARenderer::type_preamble(const std::vector<DType>& used) const {
  auto uses = [&](Scalar s) {
    return std::any_of(used.begin(), used.end(), [&](DType d) { return d.scalar_type == s; });
  };
  std::vector<std::string> lines;
  if (uses(Scalar::Float16)) lines.push_back("#include <cuda_fp16.h>");
  if (uses(Scalar::BFloat16)) lines.push_back("typedef unsigned short bf16;  /* bfloat16 bits */");
  return lines;
}

std::string CUDARenderer::inline_bitcast(DType from, DType to, const std::string& x) const {
  if (from.scalar_type == Scalar::Float16) return "((" + type_name(to) + ")__half_as_ushort(" + x + "))";
  if (to.scalar_type == Scalar::Float16) return "__ushort_as_half((unsigned short)(" + x + "))";
  return intrinsic_bitcast(from, to, x);
}

// cp.async (sm_80 and newer): the copy bypasses registers (and L1: .cg) and is a group of its own, so
// a wait can leave a known number of the latest copies in flight. Shared addresses come from the
// generic pointer by cvta in the same asm (no dependence on NVRTC's headers); the memory clobbers keep
// the compiler from moving shared-memory accesses across the copies.
std::string CUDARenderer::async_copy(const std::string& dst, const std::string& src, int64_t bytes, const std::string& gate) const {
  if (gate.empty())
    return cat("asm volatile(\"{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], ", bytes,
               "; cp.async.commit_group; }\" :: \"l\"(", dst, "), \"l\"(", src, ") : \"memory\");");
  // predicated, not branched around (a branch keeps the warp's copies from coalescing); the group is
  // committed either way, so the waits count the same
  return cat("asm volatile(\"{ .reg .u64 s; .reg .pred p; setp.ne.b32 p, %2, 0; cvta.to.shared.u64 s, %0; @p cp.async.cg.shared.global [s], [%1], ",
             bytes, "; cp.async.commit_group; }\" :: \"l\"(", dst, "), \"l\"(", src, "), \"r\"((int)(", gate, ")) : \"memory\");");
}

// ldmatrix into a 16-byte aligned array the mma helper reads again value by value (the compiler keeps
// it in the four registers ldmatrix wrote).
std::string CUDARenderer::load_matrix(const std::string& name, const std::string& type, const std::string& row, int64_t count,
                                      bool transposed) const {
  std::string regs, outs;
  for (int64_t i = 0; i < count; i++) {
    regs += cat(i ? ", " : "", "%", i);
    outs += cat(i ? ", " : "", "\"=r\"(*(unsigned*)&", name, "[", 2 * i, "])");
  }
  return cat("__align__(16) ", type, " ", name, "[", 2 * count, "]; asm volatile(\"{ .reg .u64 s; cvta.to.shared.u64 s, %", count,
             "; ldmatrix.sync.aligned.m8n8.x", count, transposed ? ".trans" : "", ".shared.b16 {", regs, "}, [s]; }\" : ", outs,
             " : \"l\"(", row, ") : \"memory\");");
}

std::string CUDARenderer::warp_shuffle_xor(const std::string& value, int64_t lane_xor, int64_t lanes) const {
  std::ostringstream members;  // the lanes taking part: all 32, or the first `lanes` of a smaller block
  members << "0x" << std::hex << (lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1) << "u";
  return cat("__shfl_xor_sync(", members.str(), ", ", value, ", ", lane_xor, ")");
}

std::string CUDARenderer::async_copy_wait(int64_t pending) const {
  return cat("asm volatile(\"cp.async.wait_group ", pending, ";\" ::: \"memory\");");
}

namespace {
// mma.sync.m16n8k16 with float accumulators: 8 A and 4 B values of this lane packed two per register
// (the lower-numbered element in the low half), 4 C values in, 4 D values out.
CHelper wmma_helper(const CUDARenderer& r, const std::string& kind, DType in) {
  const bool bf16 = in.scalar_type == Scalar::BFloat16;
  std::string name = "loupe_" + kind, T = r.type_name(in.scalar());
  std::string params, pack;
  for (int i = 0; i < 8; i++) params += cat(T, " a", i, ", ");
  for (int i = 0; i < 4; i++) params += cat(T, " b", i, ", ");
  for (int i = 0; i < 4; i++) params += cat("float c", i, i < 3 ? ", " : "");
  auto bits = [&](const std::string& v) { return bf16 ? "(unsigned)" + v : "(unsigned)__half_as_ushort(" + v + ")"; };
  for (int i = 0; i < 4; i++) pack += cat("a[", i, "] = ", bits(cat("a", 2 * i)), " | (", bits(cat("a", 2 * i + 1)), " << 16); ");
  for (int i = 0; i < 2; i++) pack += cat("b[", i, "] = ", bits(cat("b", 2 * i)), " | (", bits(cat("b", 2 * i + 1)), " << 16); ");
  std::string code = cat(
      r.lang().helper_prefix, " float4 ", name, "(", params, ") {\n  unsigned a[4], b[2];\n  ", pack,
      "\n  float4 d;\n  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.", bf16 ? "bf16.bf16" : "f16.f16",
      ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\"\n"
      "      : \"=f\"(d.x), \"=f\"(d.y), \"=f\"(d.z), \"=f\"(d.w)\n"
      "      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]), \"f\"(c0), \"f\"(c1), \"f\"(c2), \"f\"(c3));\n"
      "  return d;\n}");
  return {name, code};
}
} // namespace

CHelper CUDARenderer::helper(const std::string& kind, DType t, DType to) const {
  if (kind.rfind("wmma_", 0) == 0) return wmma_helper(*this, kind, t);
  if (kind == "bitcast") {  // pairs without an intrinsic copy the bytes (memcpy is a device builtin)
    std::string name = "loupe_bitcast_" + dtype_tag(t) + "_" + dtype_tag(to), To = type_name(to);
    return {name, lang_.helper_prefix + " " + To + " " + name + "(" + type_name(t) + " x) { " + To +
                      " y; memcpy(&y, &x, sizeof y); return y; }"};
  }
  return gpu_helper(*this, kind, t, to, [](DType from, DType dst, const std::string& x) { return intrinsic_bitcast(from, dst, x); });
}

} // namespace loupe
