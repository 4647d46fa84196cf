// The OpenCL C renderer (device OPENCL), plus the pieces every GPU dialect shares (OpenCL, CUDA, Metal):
// launch ids instead of loops, shared temps and barriers for GROUP reduces, bit casts without memcpy.
#pragma once
#include <functional>

#include "render/cstyle.h"

namespace loupe {

// ---- shared by the GPU dialects ----

// A LOAD from a shared temp carries its BARRIER as a second source (the linearizer orders it after the
// barrier); the C-style walk wants LOAD(INDEX), so the list is rebuilt without those sources.
UOpList strip_barrier_sources(const UOpList& uops);

// The C helpers with bit casts spelled by the dialect: `bitcast(from, to, x)` returns an expression that
// reinterprets x (same size) as `to`.
using BitcastSpelling = std::function<std::string(DType from, DType to, const std::string& x)>;
CHelper gpu_helper(const CStyleRenderer& r, const std::string& kind, DType t, DType to, const BitcastSpelling& bitcast);

// Product of the lidx launch sizes in a linearized kernel (CUDA's __launch_bounds__).
int64_t local_size_of(const UOpList& uops);

// ALU ops a GPU dialect renders natively. Like the CPU's C, exp2/log2/sin/pow become the polynomial
// approximations (codegen/transcendental.h) instead of the vendor's builtins, whose last bits differ
// between drivers: every backend then computes the same values as the CPU (random numbers included).
OpSet gpu_native_ops();

// ---- OpenCL ----

class OpenCLRenderer : public CStyleRenderer {
public:
  OpenCLRenderer();
  // Devices without cl_khr_fp16 (PoCL on a CPU) may only point at half: half buffers are then read and
  // written as their ushort bits, values live in float and every half result is rounded to half
  // precision by a helper, which computes exactly what the CPU's _Float16 code does.
  void set_emulate_half(bool on) { emulate_half_ = on; }
  bool emulate_half() const { return emulate_half_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  std::string scalar_name(DType scalar) const override;
  std::string special_expr(const std::string& name) const override;
  std::string math_call(const std::string& fn, DType scalar, const std::string& x) const override;
  std::string infinity(DType scalar) const override;
  std::string nan(DType scalar) const override;
  std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const override;
  std::string inline_bitcast(DType from, DType to, const std::string& x) const override;
  CHelper helper(const std::string& kind, DType t, DType to = {}) const override;

private:
  bool emulate_half_ = false;
};

// The half emulation as a rewrite of the linearized kernel (see OpenCLRenderer::set_emulate_half): half
// values become float, and BITCAST float->ushort / ushort->float (never valid otherwise: the sizes differ)
// stand for "round to half bits" / "half bits to float". Returns the new list; `bits_buffers` gets the
// DEFINE_GLOBAL indices that became ushort.
UOpList emulate_half_uops(const UOpList& uops, std::vector<int64_t>& bits_buffers);

// OpenCL C reserves `long long`: the shared C text's 64-bit spellings become long/ulong and L/UL suffixes.
std::string opencl_spelling(const std::string& c_source);

} // namespace loupe
