// The CPU's measured limits, kept between runs: traces carry them so the app can draw rooflines, and
// measuring them carefully takes about two seconds, which a traced run should not pay every time.
#pragma once

namespace loupe::bench {

struct CpuPeaks {
  int threads = 0;
  double peak_gflops = 0;    // FP32 FMA over all threads (measure_peak_gflops)
  double bandwidth_gbs = 0;  // copy bandwidth (measure_copy_bandwidth_gbs)
};

// Read from the compile cache's folder when this machine (CPU model and thread count) was measured
// before; otherwise measured now and stored there. A cache that cannot be written is not an error.
CpuPeaks cpu_peaks_cached();

} // namespace loupe::bench
