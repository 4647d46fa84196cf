// A realistic profile for the profile-panel tests and screenshots: three training steps of a small
// CNN, 14 kernels on the CPU and 16 on a CUDA GPU, with tinygrad-style kernel names and estimates.
// Run times follow a simple roofline model of each device plus launch overhead and deterministic
// jitter, so kernels land where they would on a real machine.
#pragma once
#include <algorithm>
#include <cmath>

#include "profile/profiledata.h"

using namespace loupe::views;

inline ProfileInput sampleProfile() {
  struct K {
    const char* name;
    const char* device;
    double flops, bytes; // per run
    int perStep;         // runs per training step
    const char* opts;
    double efficiency; // fraction of the roof reached
  };
  static const K kernels[] = {
      {"E_4096", "CPU", 0, 16384, 1, "", 0.5},
      {"r_32_784", "CPU", 25088, 100352, 1, "UPCAST(0, 4)", 0.4},
      {"E_32_28_28", "CPU", 50176, 200704, 2, "UPCAST(1, 4)", 0.5},
      {"r_256_256_4", "CPU", 524288, 786432, 1, "UPCAST(0, 4) UNROLL(0, 4)", 0.45},
      {"r_16_16_16_4_4_4", "CPU", 2.1e6, 49152, 1, "UPCAST(1, 4) UPCAST(0, 4) UNROLL(0, 4)", 0.6},
      {"r_64_64_64", "CPU", 528384, 49152, 1, "", 0.08},
      {"E_2_16_4", "CPU", 512, 1536, 3, "", 0.02},
      {"r_10_32", "CPU", 640, 1408, 2, "", 0.01},
      {"E_10_32n1", "CPU", 320, 1408, 2, "", 0.01},
      {"r_32_10", "CPU", 640, 1320, 1, "", 0.01},
      {"E_3_3_16", "CPU", 288, 1152, 2, "", 0.01},
      {"r_8_8_4_4_8_8", "CPU", 4.2e6, 262144, 1, "UPCAST(0, 4) UPCAST(1, 4) UNROLL(0, 8)", 0.5},
      {"E_1024_4", "CPU", 4096, 49152, 2, "UPCAST(0, 4)", 0.6},
      {"r_512_4_64", "CPU", 262144, 532480, 1, "UPCAST(0, 4) UNROLL(0, 4)", 0.5},
      {"r_8_16_2_2_16_4_4_4_3_3", "CUDA", 2.9e8, 3.3e6, 1, "TC(0, 2) UPCAST(0, 4) LOCAL(0, 16) LOCAL(1, 2)", 0.55},
      {"r_4_32_7_7_16_4_4_3_3", "CUDA", 5.8e8, 6.1e6, 1, "UPCAST(0, 4) UPCAST(1, 4) LOCAL(0, 16) GROUPTOP(0, 16)", 0.5},
      {"r_2_64_7_7_8_4_4_16_3_3", "CUDA", 4.6e8, 9.4e6, 2, "UPCAST(0, 4) LOCAL(1, 8) LOCAL(0, 4)", 0.45},
      {"E_8_32_28_28_4", "CUDA", 3.2e6, 2.6e7, 2, "UPCAST(0, 4) LOCAL(0, 32)", 0.7},
      {"r_32_2_16_196_4", "CUDA", 1.6e6, 1.3e7, 1, "GROUPTOP(0, 16) UPCAST(0, 4)", 0.6},
      {"E_4_32_14_14_4", "CUDA", 8.0e5, 6.4e6, 2, "UPCAST(0, 4) LOCAL(0, 32)", 0.55},
      {"r_256_16_4_4_49", "CUDA", 4.1e7, 3.3e6, 1, "UPCAST(0, 4) LOCAL(0, 16) GROUP(0, 4)", 0.35},
      {"r_10_32_16_4", "CUDA", 1.0e6, 8.2e5, 1, "LOCAL(0, 32) GROUP(0, 16)", 0.2},
      {"E_32_10", "CUDA", 960, 2560, 3, "", 0.02},
      {"r_32_10n1", "CUDA", 640, 1320, 2, "", 0.01},
      {"E_16_3_3_16_4", "CUDA", 9216, 36864, 2, "UPCAST(0, 4) LOCAL(0, 16)", 0.1},
      {"E_64_784_4", "CUDA", 2.0e5, 1.6e6, 1, "UPCAST(0, 4) LOCAL(0, 64)", 0.4},
      {"r_64_16_49_4", "CUDA", 2.0e5, 1.6e6, 1, "GROUPTOP(0, 16) LOCAL(0, 64)", 0.3},
      {"E_2_32_28_28_4n1", "CUDA", 1.6e6, 1.3e7, 1, "UPCAST(0, 4) LOCAL(0, 32)", 0.65},
      {"r_16_16_8_8_4_4_3_3", "CUDA", 1.2e8, 2.4e6, 1, "TC(0, 0) UPCAST(1, 4) LOCAL(0, 8)", 0.3},
      {"copy_cuda_to_cpu_40", "CUDA", 0, 40, 1, "", 0.01},
  };
  const ProfileInput peaksOnly{{}, {{"CPU", 198.0, 24.5}, {"CUDA", 51200.0, 1980.0}}};
  ProfileInput in = peaksOnly;
  // Cheap deterministic jitter in [0.9, 1.1).
  quint32 seed = 12345;
  auto jitter = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return 0.9 + 0.2 * double(seed >> 8) / double(1u << 24);
  };
  qint64 clock[2] = {0, 0};
  const int steps = 3;
  for (int step = 0; step < steps; ++step) {
    for (int ki = 0; ki < int(std::size(kernels)); ++ki) {
      const K& k = kernels[ki];
      const int dev = QString(k.device) == "CPU" ? 0 : 1;
      const DevicePeak& peak = in.peaks[dev];
      for (int rep = 0; rep < k.perStep; ++rep) {
        const double ideal = std::max(k.flops / peak.peakGflops, k.bytes / peak.bandwidthGbs); // ns
        const double launch = dev == 0 ? 1500 : 4000;                                          // ns
        const qint64 duration = qint64((ideal / k.efficiency + launch * 0.3) * jitter());
        ProfileRun r;
        r.kernelId = ki;
        r.name = k.name;
        r.device = k.device;
        r.opts = k.opts;
        r.startNs = clock[dev] + qint64(launch * jitter());
        r.durationNs = std::max<qint64>(duration, 200);
        r.flops = k.flops;
        r.bytes = k.bytes;
        in.runs.append(r);
        clock[dev] = r.startNs + r.durationNs;
      }
    }
    // The GPU waits for the CPU's part of the step.
    clock[1] = std::max(clock[1], clock[0]) + 20000;
    clock[0] = clock[1];
  }
  return in;
}
