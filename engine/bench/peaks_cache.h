// The measured limits of the devices, kept between runs: traces carry them so the app can draw a
// roofline per device, and measuring them carefully takes a second or two, which a traced run should
// not pay every time. Kept in the compile cache's folder, keyed by the CPU model and thread count, or
// the GPU's model and architecture.
#pragma once
#include <optional>
#include <string>

#include "bench/gpu_probe.h"
#include "observe/records.h"

namespace loupe {
class Device;
}

namespace loupe::bench {

struct CpuPeaks {
  int threads = 0;
  double peak_gflops = 0;    // FP32 FMA over all threads (measure_peak_gflops)
  double bandwidth_gbs = 0;  // copy bandwidth (measure_copy_bandwidth_gbs)
};

// Read from the cache when this machine was measured before; otherwise measured now and stored.
CpuPeaks cpu_peaks_cached();
// A CUDA device's peaks (measure_gpu_peaks); nullopt for other devices.
std::optional<GpuPeaks> gpu_peaks_cached(Device& dev);
// The peaks a trace records for a device's roofline: the host's for CPU and LLVM (their kernels run on
// its cores), the GPU's for CUDA; nullopt where Loupe cannot measure the device (OpenCL).
std::optional<DevicePeaks> device_peaks_cached(const std::string& device);

} // namespace loupe::bench
