#include "bench/gpu_probe.h"

#include <algorithm>

#include "runtime/allocator.h"
#include "runtime/device.h"
#include "runtime/program.h"

namespace loupe::bench {

namespace {

// 8 independent chains per thread: more than the FMA latency (4 cycles) times the issue rate, so the
// pipes never wait on a result; the sum is stored so the compiler keeps every chain.
const char* kCudaFma = R"(extern "C" __global__ void __launch_bounds__(256) loupe_probe_fma(float* out, const int iters) {
  float x = threadIdx.x * 1e-7f;
  float a0 = x, a1 = x + 1e-3f, a2 = x + 2e-3f, a3 = x + 3e-3f, a4 = x + 4e-3f, a5 = x + 5e-3f, a6 = x + 6e-3f, a7 = x + 7e-3f;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 16; j++) {
      a0 = fmaf(a0, 0.9999f, 1e-5f); a1 = fmaf(a1, 0.9999f, 1e-5f); a2 = fmaf(a2, 0.9999f, 1e-5f); a3 = fmaf(a3, 0.9999f, 1e-5f);
      a4 = fmaf(a4, 0.9999f, 1e-5f); a5 = fmaf(a5, 0.9999f, 1e-5f); a6 = fmaf(a6, 0.9999f, 1e-5f); a7 = fmaf(a7, 0.9999f, 1e-5f);
    }
  }
  out[blockIdx.x * 256 + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
})";

const char* kCudaCopy = R"(extern "C" __global__ void __launch_bounds__(256) loupe_probe_copy(float4* dst, const float4* src, const int n4) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n4; i += gridDim.x * 256) dst[i] = src[i];
})";

// Four independent accumulator sets per warp keep the tensor cores busy (an mma's latency is several
// issues); the operands are halves of 1.0, so the sums stay finite.
const char* kCudaMma = R"(extern "C" __global__ void __launch_bounds__(256) loupe_probe_mma(float* out, const int iters) {
  unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0;
  float c[4][4] = {};
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 4; j++)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                   : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  float s = 0.0f;
  for (int j = 0; j < 4; j++) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  out[blockIdx.x * 256 + threadIdx.x] = s;
})";

RenderedKernel probe_kernel(const std::string& name, const char* source, int nbufs, const std::string& var, int64_t var_max,
                            int64_t blocks) {
  RenderedKernel k;
  k.name = name;
  k.device = "CUDA";
  k.source = source;
  for (int i = 0; i < nbufs; i++) k.buffers.push_back({i, dtypes::float32.ptr(), i == 0});
  k.vars.push_back({var, 0, var_max});
  k.global = {blocks, 1, 1};
  k.local = {256, 1, 1};
  return k;
}

// Best of `trials` launches (the first one warms up the clocks and is not counted).
double best_seconds(Program& p, const std::vector<void*>& bufs, int64_t var, int trials) {
  double best = 1e30;
  for (int t = 0; t <= trials; t++) {
    double s = p.run(bufs, {var}, p.kernel().global, p.kernel().local, true);
    if (t > 0 && s > 0) best = std::min(best, s);
  }
  return best;
}

// GFLOPS of a compute probe: `blocks` blocks of 256 threads, `flops_per_block` per iteration.
double compute_gflops(Device& dev, const char* name, const char* source, int64_t blocks, int iters, double flops_per_block) {
  auto prog = dev.compile(probe_kernel(name, source, 1, "iters", 1 << 20, blocks));
  Allocator& mem = dev.allocator();
  size_t bytes = static_cast<size_t>(blocks) * 256 * sizeof(float);
  void* out = mem.alloc(bytes);
  double s = best_seconds(*prog, {out}, iters, 5);
  mem.free(out, bytes);
  return static_cast<double>(blocks) * iters * flops_per_block / s * 1e-9;
}

} // namespace

std::optional<GpuPeaks> measure_gpu_peaks(Device& dev) {
  if (dev.renderer().caps().device != "CUDA") return std::nullopt;
  GpuPeaks r;
  // many waves on any current GPU (an H100 has 132 SMs); per iteration a thread does 16 x 8 FMAs, a warp
  // 4 mmas of 16x8x16
  r.fp32_gflops = compute_gflops(dev, "loupe_probe_fma", kCudaFma, 132 * 32, 256, 256 * 16 * 8 * 2.0);
  if (dev.renderer().caps().matrix_unit == MatrixUnit::mma_m16n8k16)
    r.tensor_gflops = compute_gflops(dev, "loupe_probe_mma", kCudaMma, 132 * 16, 1024, (256 / 32) * 4 * (2.0 * 16 * 8 * 16));
  {
    Allocator& mem = dev.allocator();
    const int64_t n4 = int64_t(1) << 26;  // 1 GiB per array
    size_t bytes = static_cast<size_t>(n4) * 16;
    auto prog = dev.compile(probe_kernel("loupe_probe_copy", kCudaCopy, 2, "n4", n4, 132 * 16));
    void* dst = mem.alloc(bytes);
    void* src = mem.alloc(bytes);
    double s = best_seconds(*prog, {dst, src}, n4, 5);
    mem.free(dst, bytes);
    mem.free(src, bytes);
    r.bandwidth_gbs = 2.0 * static_cast<double>(bytes) / s * 1e-9;
  }
  return r;
}

} // namespace loupe::bench
