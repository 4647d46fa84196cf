// The CUDA C renderer (device CUDA; compiled by NVRTC, runtime/cuda/): blockIdx/threadIdx launch ids,
// __shared__ temps with __syncthreads(), `extern "C" __global__` kernels with __launch_bounds__ of their
// work-group size, cp.async for ASYNC_COPY and ldmatrix for
// LOAD_MATRIX (sm_80 and newer, as tensor cores), __shfl_xor_sync for SHUFFLE_XOR, half from cuda_fp16.h, bfloat16 as its bits with the CPU's rounding helpers.
#pragma once
#include "render/opencl_renderer.h"

namespace loupe {

// A block's static __shared__ arrays total at most 48 KB on every CUDA GPU; more is dynamic (opted into).
constexpr int64_t kStaticSharedMax = 49152;

class CUDARenderer : public CStyleRenderer {
public:
  CUDARenderer();
  // The GPU's compute capability decides what the optimizer may use: tensor cores, cp.async and
  // ldmatrix from sm_80.
  void set_compute_capability(int major, int minor);
  // The shared memory a block may opt into (sm_90: 227 KB): kernels planned for more than 48 KB declare it
  // dynamic (RenderedKernel::dynamic_shared_bytes). Without a GPU the plan keeps to 48 KB.
  void set_shared_memory_optin(int64_t bytes);
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  std::string scalar_name(DType scalar) const override;
  std::string vector_name(DType dt) const override;  // CUDA's built-in vector types: float4, uint4, longlong2
  std::string special_expr(const std::string& name) const override;
  std::string infinity(DType scalar) const override;
  std::string nan(DType scalar) const override;
  std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const override;
  std::string inline_bitcast(DType from, DType to, const std::string& x) const override;
  CHelper helper(const std::string& kind, DType t, DType to = {}) const override;
  std::string async_copy(const std::string& dst, const std::string& src, int64_t bytes,
                         const std::string& gate) const override;  // cp.async
  std::string async_copy_wait(int64_t pending) const override;
  std::string load_matrix(const std::string& name, const std::string& type, const std::string& row, int64_t count,
                          bool transposed) const override;  // ldmatrix
  std::string warp_shuffle_xor(const std::string& value, int64_t lane_xor, int64_t lanes) const override;  // __shfl_xor_sync
};

} // namespace loupe
