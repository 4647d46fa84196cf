// The C renderer of the CPU device: plain C compiled by clang or gcc. Like tinygrad's CPU backend it
// has no exp2/log2/sin (those become polynomials, codegen/transcendental.h), uses GNU vector types
// for float4 loads and stores, and takes [start, end) of its outermost parallel loop.
#pragma once
#include "render/cstyle.h"

namespace loupe {

class CRenderer : public CStyleRenderer {
public:
  CRenderer();
  std::string math_call(const std::string& fn, DType scalar, const std::string& x) const override;
  std::string infinity(DType scalar) const override;
  std::string nan(DType scalar) const override;
  std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const override;
};

// The ALU ops a C compiler gives us directly (everything but the transcendentals and THREEFRY).
OpSet c_native_ops();

} // namespace loupe
