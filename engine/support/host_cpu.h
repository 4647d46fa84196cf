#pragma once
// What the host CPU offers a kernel: the vector registers a CPU register tile is planned for, the caches
// a kernel blocks for, and the compiler flags that target the CPU. Read from the machine once; the
// environment variable LOUPE_CPU_TARGET=avx2 plans and compiles for an AVX2 CPU without AVX-512 on a
// machine that has it, so the narrower target can be measured and tested anywhere; LOUPE_CPU_L2 (bytes, or
// "512K", "2M") replaces the L2 size read from the machine.
#include <cstdint>
#include <string>
#include <vector>

namespace loupe {

struct HostCpu {
  std::string model;               // /proc/cpuinfo's model name ("unknown CPU" where it has none)
  std::string target = "native";  // "native", or the forced target ("avx2", "avx512")
  std::string vector_isa;         // what the kernels' vectors compile to: "avx512", "avx2", "neon", "sse"
  int vector_bytes = 32;          // the widest vector the C kernels use: AVX-512's 16 floats, else 8
  int vector_registers = 16;      // of vector_bytes each: AVX-512 has 32, AVX2 alone 16
  int64_t l1d_bytes = 32 << 10;   // per core
  int64_t l2_bytes = 1 << 20;     // per core
  std::vector<std::string> compile_flags;  // for the C compiler: -march=native and the target's vector width
  std::string llvm_features;               // appended to the LLVM JIT's host features ("-avx512f")
};

// The host as it is, or as LOUPE_CPU_TARGET forces it (an unknown name is an Error naming the choices).
const HostCpu& host_cpu();
// The host as `target` ("native", "avx2", "avx512") would make it; caches are the machine's own.
// "avx512" on a CPU without it is an Error: the kernels would not run here.
HostCpu host_cpu_for(const std::string& target);

} // namespace loupe
