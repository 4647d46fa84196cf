// The limits of a GPU device, measured with hand-written kernels compiled and launched through the
// device itself (the CPU probe in machine_probe.h measures the host instead): FP32 FMA peak and the
// bandwidth of a device-to-device copy, and the tensor cores' half-precision rate through the same
// mma.sync instruction the TC opt emits. CUDA only for now; other devices answer nullopt.
#pragma once
#include <optional>

namespace loupe {
class Device;
}

namespace loupe::bench {

struct GpuPeaks {
  double fp32_gflops = 0;    // independent fmaf chains in every thread of a grid that fills the GPU
  double bandwidth_gbs = 0;  // float4 copy of 1 GiB, bytes read + written over the kernel's event time
  double tensor_gflops = 0;  // half mma.sync m16n8k16 with float accumulators (what TC kernels use); 0 before sm_80
};

// nullopt when `dev` is not a GPU device this probe knows how to program.
std::optional<GpuPeaks> measure_gpu_peaks(Device& dev);

} // namespace loupe::bench
