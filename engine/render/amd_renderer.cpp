#include "render/amd_renderer.h"

#include <algorithm>
#include <cctype>

#include "render/c_renderer.h"
#include "support/error.h"

namespace loupe {

std::string AmdArch::title() const { return cat("AMD ", family, " (", gfx, gfx == mcpu ? "" : ", as " + mcpu, ")"); }

const AmdArch& amd_rdna3() {
  static const AmdArch a{"AMD:gfx1100", "gfx1100", "gfx1100", "RDNA3", MatrixUnit::wmma_16x16x16_w32};
  return a;
}

const AmdArch& amd_cdna3() {
  static const AmdArch a{"AMD:gfx942", "gfx942", "gfx940", "CDNA3", MatrixUnit::mfma_16x16x16_w64};
  return a;
}

namespace {
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
} // namespace

std::optional<AmdArch> amd_arch_of_target(const std::string& target) {
  const std::string t = upper(target);  // names are read in any case: "amd:GFX942" is AMD:gfx942
  if (t.substr(0, t.find(':')) != "AMD") return std::nullopt;
  if (t == "AMD" || t == upper(amd_rdna3().target)) return amd_rdna3();
  if (t == upper(amd_cdna3().target)) return amd_cdna3();
  throw Error(cat("unknown AMD target '", target, "': AMD (= AMD:gfx1100, RDNA3) or AMD:gfx942 (CDNA3)"));
}

namespace {
RendererCaps amd_caps(const AmdArch& arch) {
  RendererCaps c;
  c.device = "AMD";
  c.has_local = true;
  c.has_shared = true;
  c.supports_float4 = true;
  // 16-byte loads and stores (global_load_b128 / ds_read_b128) of 4- and 8-byte elements; the vector
  // types have operators, but like CUDA the ALU ops stay per lane so every backend rounds alike
  c.vector_bytes = 16;
  c.vector_min_item = 4;
  c.vector_aligned = true;  // ext_vector_type values are aligned to their size
  c.global_max = {2147483647, 65535, 65535};  // HSA dispatch grid limits as the HIP runtime sets them
  c.local_max = {1024, 1024, 1024};           // work-items per group (and per dimension)
  c.shared_max = 65536;                       // LDS per work-group on RDNA3 and CDNA3
  c.code_for_op = gpu_native_ops();
  c.matrix_unit = arch.matrix_unit;
  c.warp_shuffle = false;  // ds_bpermute is not spelled: a GROUP reduce goes through LDS
  c.async_copy = false;
  return c;
}

CLanguage amd_language() {
  CLanguage l;
  l.kernel_prefix = "__attribute__((amdgpu_kernel)) ";
  l.buffer_suffix = " restrict";
  l.const_buffers = true;
  l.arg_int_prefix = "const int";
  l.arg_long_prefix = "const long long";
  // LDS: a function-scope static in address space 3; C would zero-initialize it, which LDS cannot be
  l.smem_prefix = "static __attribute__((address_space(3), loader_uninitialized, aligned(16))) ";
  // the release fence makes this work-item's LDS (and global) writes visible to the group before the
  // s_barrier, the acquire fence keeps later reads from moving above it
  l.barrier = "__builtin_amdgcn_fence(__ATOMIC_RELEASE, \"workgroup\"); __builtin_amdgcn_s_barrier(); "
              "__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"workgroup\");";
  l.helper_prefix = "static inline __attribute__((always_inline))";
  l.vector_literal = CLanguage::VectorLiteral::Braces;
  l.gep_brackets = true;
  return l;
}

// The matrix builtin of a WMMA kind, one call per lane: the lane's A, B and C fragment elements as
// scalars in, its D fragment out (render/matrix_unit.h for the layouts).
CHelper matrix_helper(const AMDRenderer& r, const std::string& kind, DType in) {
  std::optional<MatrixOpKind> op = matrix_op_of_kind(kind.substr(5));  // after "wmma_"
  if (!op || op->unit != r.arch().matrix_unit)
    throw InternalError(cat("AMD ", r.arch().gfx, ": no matrix builtin for ", kind));
  const MatrixUnitShape& s = matrix_unit_shape(op->unit);
  const bool bf16 = in.scalar_type == Scalar::BFloat16;
  const bool wmma = op->unit == MatrixUnit::wmma_16x16x16_w32;
  // the builtins take half vectors, or the bfloat16 bits as short vectors
  std::string elem = bf16 ? "short" : "half", vec = cat("loupe_", elem, s.a);
  std::string T = r.type_name(in.scalar()), D = r.type_name(dtypes::float32.vec(s.c));
  std::string builtin = wmma ? (bf16 ? "__builtin_amdgcn_wmma_f32_16x16x16_bf16_w32" : "__builtin_amdgcn_wmma_f32_16x16x16_f16_w32")
                             : (bf16 ? "__builtin_amdgcn_mfma_f32_16x16x16bf16_1k" : "__builtin_amdgcn_mfma_f32_16x16x16f16");
  std::string name = "loupe_" + kind, params, a, b, c;
  for (int i = 0; i < s.a; i++) params += cat(T, " a", i, ", ");
  for (int i = 0; i < s.b; i++) params += cat(T, " b", i, ", ");
  for (int i = 0; i < s.c; i++) params += cat("float c", i, i + 1 < s.c ? ", " : "");
  auto list = [&](const char* p, int n, const std::string& cast) {
    std::string out;
    for (int i = 0; i < n; i++) out += cat(i ? ", " : "", cast, p, i);
    return out;
  };
  std::string cast = bf16 ? "(short)" : "";
  std::string code = cat("typedef ", elem, " ", vec, " __attribute__((ext_vector_type(", s.a, ")));\n", r.lang().helper_prefix, " ",
                         D, " ", name, "(", params, ") {\n  ", vec, " a = {", list("a", s.a, cast), "};\n  ", vec, " b = {",
                         list("b", s.b, cast), "};\n  ", D, " c = {", list("c", s.c, ""), "};\n  return ", builtin, "(a, b, c",
                         wmma ? "" : ", 0, 0, 0", ");\n}");
  return {name, code};
}
} // namespace

AMDRenderer::AMDRenderer(const AmdArch& arch) : CStyleRenderer(amd_caps(arch), amd_language()), arch_(arch) {}

// clang 15 takes amdgpu_flat_work_group_size only on OpenCL or HIP kernels, not on a C amdgpu_kernel:
// the code is compiled for LLVM's default bound of 1024 work-items, which every plan here stays within.
RenderedKernel AMDRenderer::render(const std::string& name, const UOpList& uops) const {
  RenderedKernel k = CStyleRenderer::render(name, strip_barrier_sources(uops));
  k.device = arch_.target;
  return k;
}

std::string AMDRenderer::special_expr(const std::string& name) const {
  const char axis = "xyz"[name.back() - '0'];
  const std::string group = cat("__builtin_amdgcn_workgroup_id_", axis, "()"), item = cat("__builtin_amdgcn_workitem_id_", axis, "()");
  if (name.rfind("gidx", 0) == 0) return "(int)" + group;
  if (name.rfind("lidx", 0) == 0) return "(int)" + item;
  if (name.rfind("idx", 0) == 0)  // the group's size is in the HSA dispatch packet: u16 workgroup_size_x at byte 4
    return cat("(int)(", group, "*((__attribute__((address_space(4))) const unsigned short*)__builtin_amdgcn_dispatch_ptr())[",
               2 + (name.back() - '0'), "]+", item, ")");
  LOUPE_ASSERT(false, "unknown launch id ", name);
  return {};
}

// clang's builtins lower to LLVM intrinsics the amdgcn backend expands itself (no device library)
std::string AMDRenderer::math_call(const std::string& fn, DType s, const std::string& x) const {
  return "__builtin_" + fn + (s.scalar_type == Scalar::Float64 ? "" : "f") + "(" + x + ")";
}

std::string AMDRenderer::infinity(DType s) const { return s.scalar_type == Scalar::Float64 ? "__builtin_inf()" : "__builtin_inff()"; }

std::string AMDRenderer::nan(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "__builtin_nan(\"\")" : "__builtin_nanf(\"\")";
}

std::vector<std::string> AMDRenderer::type_preamble(const std::vector<DType>& used) const {
  auto uses = [&](Scalar s) {
    return std::any_of(used.begin(), used.end(), [&](DType d) { return d.scalar_type == s; });
  };
  std::vector<std::string> lines;
  if (uses(Scalar::Float16)) lines.push_back("typedef _Float16 half;");
  if (uses(Scalar::BFloat16)) lines.push_back("typedef unsigned short bf16;  /* bfloat16 bits */");
  for (DType d : used) {
    if (d.count == 1 || d.is_ptr || d.scalar().is_bool()) continue;
    lines.push_back("typedef " + scalar_name(d.scalar()) + " " + type_name(d) + " __attribute__((ext_vector_type(" +
                    std::to_string(d.count) + ")));");
  }
  return lines;
}

CHelper AMDRenderer::helper(const std::string& kind, DType t, DType to) const {
  if (kind.rfind("wmma_", 0) == 0) return matrix_helper(*this, kind, t);
  return c_helper(*this, kind, t, to);
}

} // namespace loupe
