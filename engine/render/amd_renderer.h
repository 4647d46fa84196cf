// The AMD GPU renderer (device AMD): HIP-style C that clang compiles for its amdgcn target
// (`-x c -target amdgcn-amd-amdhsa -mcpu=ARCH -nogpulib`, inspect/machine_code.cpp). Kernels carry
// __attribute__((amdgpu_kernel)) and the work-group size they are planned for, launch ids come from the
// amdgcn builtins, shared temps are LDS arrays (address space 3) and barriers are s_barrier between the
// fences that make LDS writes visible. WMMA ops call the arch's matrix builtin: RDNA3's
// v_wmma_f32_16x16x16 (wave32) or CDNA3's v_mfma_f32_16x16x16 (wave64).
// No runtime runs these kernels here (no AMD GPU): the interpreter runs their plans (INTERP_TARGET=AMD).
#pragma once
#include <optional>
#include <string>

#include "render/opencl_renderer.h"

namespace loupe {

// The AMD GPUs planned for. LLVM 15 (Debian 12's) knows gfx940 but not gfx942: CDNA3 code is assembled
// for gfx940, the same ISA family.
struct AmdArch {
  std::string target;  // "AMD:gfx1100": what INTERP_TARGET, --target and the Step panel name it
  std::string gfx;     // "gfx1100", "gfx942": the GPU
  std::string mcpu;    // what LLVM 15 assembles it as: "gfx1100", "gfx940"
  std::string family;  // "RDNA3", "CDNA3"
  MatrixUnit matrix_unit = MatrixUnit::none;  // its lanes are the wave (matrix_unit_shape)
  std::string title() const;  // "AMD RDNA3 (gfx1100)", "AMD CDNA3 (gfx942, as gfx940)"
};

const AmdArch& amd_rdna3();
const AmdArch& amd_cdna3();
// "AMD" (= gfx1100), "AMD:gfx1100" or "AMD:gfx942", in any case; nullopt for a target that is not AMD's ("CUDA"),
// loupe::Error naming the known ones for an AMD target this build does not plan for ("AMD:gfx90a").
std::optional<AmdArch> amd_arch_of_target(const std::string& target);

class AMDRenderer : public CStyleRenderer {
public:
  explicit AMDRenderer(const AmdArch& arch = amd_rdna3());
  const AmdArch& arch() const { return arch_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  std::string special_expr(const std::string& name) const override;
  std::string math_call(const std::string& fn, DType scalar, const std::string& x) const override;
  std::string infinity(DType scalar) const override;
  std::string nan(DType scalar) const override;
  std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const override;
  CHelper helper(const std::string& kind, DType t, DType to = {}) const override;

private:
  AmdArch arch_;
};

} // namespace loupe
