#include "support/host_cpu.h"

#include <cstdlib>
#include <fstream>

#include "support/error.h"

namespace loupe {

namespace {

struct Isa {
  bool avx2 = false, avx512 = false, neon = false;
};

Isa machine_isa() {
  Isa isa;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  __builtin_cpu_init();  // idempotent; needed when asked from a static initializer
  isa.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  isa.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#elif defined(__aarch64__)
  isa.neon = true;
#endif
  return isa;
}

// sysfs's cache size text ("48K", "2048K", "1M")
int64_t parse_size(const std::string& s) {
  char* end = nullptr;
  long long n = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || n <= 0) return 0;
  if (*end == 'K') return n << 10;
  if (*end == 'M') return n << 20;
  return n;
}

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// cpu0's data and unified caches by level, from sysfs (left as they are where it says nothing)
void read_caches(HostCpu& cpu) {
  for (int i = 0; i < 8; i++) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    int64_t size = parse_size(read_line(dir + "size"));
    if (level.empty()) break;
    if (size == 0 || type == "Instruction") continue;
    if (level == "1") cpu.l1d_bytes = size;
    if (level == "2") cpu.l2_bytes = size;
  }
  // LOUPE_CPU_L2=2M plans as if for that L2 (what a test of tile shapes assumes, on any machine)
  if (const char* l2 = std::getenv("LOUPE_CPU_L2"))
    if (int64_t size = parse_size(l2); size > 0) cpu.l2_bytes = size;
}

std::string model_name() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      size_t at = line.find_first_not_of(" \t", line.find(':') + 1);
      return at == std::string::npos ? "unknown CPU" : line.substr(at);
    }
  return "unknown CPU";
}

HostCpu plan(const std::string& target, const Isa& isa) {
  HostCpu cpu;
  cpu.model = model_name();
  cpu.target = target;
  read_caches(cpu);
  cpu.compile_flags = {"-march=native"};
  bool avx512 = isa.avx512;
  if (target == "avx2") {
    if (!isa.avx2) throw Error("LOUPE_CPU_TARGET=avx2: this CPU has no AVX2 and FMA");
    if (avx512) {  // AVX-512 off: 16 vector registers, no EVEX encodings
      cpu.compile_flags.push_back("-mno-avx512f");
      cpu.llvm_features = "-avx512f";
    }
    avx512 = false;
  } else if (target == "avx512") {
    if (!isa.avx512) throw Error("LOUPE_CPU_TARGET=avx512: this CPU has no AVX-512 (F and VL)");
  } else if (target != "native") {
    throw Error(cat("LOUPE_CPU_TARGET='", target, "' is not a CPU target (native, avx2, avx512)"));
  }
  cpu.vector_isa = avx512 ? "avx512" : isa.avx2 ? "avx2" : isa.neon ? "neon" : "sse";
  cpu.vector_registers = avx512 || isa.neon ? 32 : 16;
  if (avx512) {  // 16-float vectors; clang otherwise splits them in two where it prefers 256 bits
    cpu.vector_bytes = 64;
    cpu.compile_flags.push_back("-mprefer-vector-width=512");
  }
  return cpu;
}

} // namespace

HostCpu host_cpu_for(const std::string& target) { return plan(target, machine_isa()); }

const HostCpu& host_cpu() {
  static const HostCpu cpu = [] {
    const char* forced = std::getenv("LOUPE_CPU_TARGET");
    return host_cpu_for(forced && *forced ? forced : "native");
  }();
  return cpu;
}

} // namespace loupe
