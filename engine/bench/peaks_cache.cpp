#include "bench/peaks_cache.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/machine_probe.h"
#include "support/compile_cache.h"
#include "runtime/cpu/thread_pool.h"
#include "support/hash.h"

namespace loupe::bench {

namespace {

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 1);
  return "unknown cpu";
}

} // namespace

CpuPeaks cpu_peaks_cached() {
  CpuPeaks p;
  p.threads = cpu_thread_count();
  // An unoptimized build of the probe measures its own overhead, not the machine: keep them apart.
#ifdef __OPTIMIZE__
  const char* build = "optimized";
#else
  const char* build = "unoptimized";
#endif
  std::string key = cpu_model() + "|" + std::to_string(p.threads) + "|" + (cpu_has_avx2_fma() ? "avx2" : "scalar") + "|" + build;
  namespace fs = std::filesystem;
  StableHasher h;
  h.str(key);
  fs::path file = CompileCache::global().root() / "machine" / ("cpu-peaks-" + h.finish().hex() + ".txt");
  {
    std::ifstream in(file);
    if (in >> p.peak_gflops >> p.bandwidth_gbs && p.peak_gflops > 0 && p.bandwidth_gbs > 0) return p;
  }
  p.peak_gflops = measure_peak_gflops(p.threads).gflops;
  p.bandwidth_gbs = measure_copy_bandwidth_gbs(p.threads);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  fs::path tmp = file;
  tmp += ".tmp";
  std::ofstream out(tmp);
  out << p.peak_gflops << " " << p.bandwidth_gbs << "\n";
  out.close();
  if (out) fs::rename(tmp, file, ec);
  return p;
}

} // namespace loupe::bench
