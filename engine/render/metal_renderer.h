// The Metal Shading Language renderer (device METAL; source only: Linux has no Metal runtime, so its
// output is checked by golden files). Launch ids come from uint3 gid/lid parameters, shared temps are
// threadgroup arrays, 64-bit integers are long/ulong, and there is no double.
#pragma once
#include "render/opencl_renderer.h"

namespace loupe {

class MetalRenderer : public CStyleRenderer {
public:
  MetalRenderer();
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  std::string scalar_name(DType scalar) const override;
  std::string special_expr(const std::string& name) const override;
  std::string math_call(const std::string& fn, DType scalar, const std::string& x) const override;
  std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const override;
  std::string inline_bitcast(DType from, DType to, const std::string& x) const override;
  CHelper helper(const std::string& kind, DType t, DType to = {}) const override;
};

} // namespace loupe
