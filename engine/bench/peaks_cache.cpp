#include "bench/peaks_cache.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu_probe.h"
#include "bench/machine_probe.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/device.h"
#include "support/compile_cache.h"
#include "support/hash.h"
#include "support/host_cpu.h"

namespace loupe::bench {

namespace {

namespace fs = std::filesystem;

// An unoptimized build of a probe measures its own overhead, not the machine: keep them apart.
const char* build_kind() {
#ifdef __OPTIMIZE__
  return "optimized";
#else
  return "unoptimized";
#endif
}

fs::path cache_file(const std::string& prefix, const std::string& key) {
  StableHasher h;
  h.str(key);
  return CompileCache::global().root() / "machine" / (prefix + "-" + h.finish().hex() + ".txt");
}

// `n` positive numbers stored before, or empty.
std::vector<double> read_numbers(const fs::path& file, size_t n) {
  std::ifstream in(file);
  std::vector<double> v(n);
  for (double& x : v)
    if (!(in >> x) || !(x >= 0)) return {};
  return v;
}

// Written to a temporary file and renamed into place; a cache that cannot be written is not an error.
void write_numbers(const fs::path& file, const std::vector<double>& v) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  fs::path tmp = file;
  tmp += ".tmp";
  std::ofstream out(tmp);
  for (double x : v) out << x << " ";
  out << "\n";
  out.close();
  if (out) fs::rename(tmp, file, ec);
}

} // namespace

CpuPeaks cpu_peaks_cached() {
  CpuPeaks p;
  p.threads = cpu_thread_count();
  std::string key = host_cpu().model + "|" + std::to_string(p.threads) + "|" + host_cpu().vector_isa + "|" + build_kind();
  fs::path file = cache_file("cpu-peaks", key);
  if (std::vector<double> v = read_numbers(file, 2); !v.empty() && v[0] > 0 && v[1] > 0) {
    p.peak_gflops = v[0];
    p.bandwidth_gbs = v[1];
    return p;
  }
  p.peak_gflops = measure_peak_gflops(p.threads).gflops;
  p.bandwidth_gbs = measure_copy_bandwidth_gbs(p.threads);
  write_numbers(file, {p.peak_gflops, p.bandwidth_gbs});
  return p;
}

std::optional<GpuPeaks> gpu_peaks_cached(Device& dev) {
  auto* cuda = dynamic_cast<CUDADevice*>(&dev);
  if (!cuda) return std::nullopt;
  fs::path file = cache_file("gpu-peaks", cuda->gpu_name() + "|" + cuda->arch() + "|" + build_kind());
  if (std::vector<double> v = read_numbers(file, 3); !v.empty() && v[0] > 0 && v[1] > 0) return GpuPeaks{v[0], v[1], v[2]};
  std::optional<GpuPeaks> g = measure_gpu_peaks(dev);
  if (g) write_numbers(file, {g->fp32_gflops, g->bandwidth_gbs, g->tensor_gflops});
  return g;
}

std::optional<DevicePeaks> device_peaks_cached(const std::string& device) {
  if (runs_on_host_cores(device)) {
    CpuPeaks c = cpu_peaks_cached();
    return DevicePeaks{device, c.peak_gflops, c.bandwidth_gbs};
  }
  const std::string canonical = canonical_device_name(device);
  if (canonical.substr(0, canonical.find(':')) == "CUDA" && device_status(device).available)
    if (std::optional<GpuPeaks> g = gpu_peaks_cached(get_device(device))) return DevicePeaks{device, g->fp32_gflops, g->bandwidth_gbs};
  return std::nullopt;
}

} // namespace loupe::bench
