// The CPU device: kernels rendered as C, compiled by clang in this process where the build has clang's
// libraries (runtime/cpu/clang_jit.h), else by a clang process (or gcc where clang is missing; CC
// overrides both) into a shared object loaded with dlopen, and called through a generated entry shim
// `loupe_entry(void** bufs, const long long* vars, long long start, long long end)`, so calling any kernel
// needs no per-signature glue and a thread pool can later pass sub-ranges of the outer loop.
// Timing is the wall clock around the call.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "render/c_renderer.h"
#include "runtime/cpu/host_program.h"
#include "support/compile_cache.h"
#include "support/process.h"
#include "runtime/device.h"

namespace loupe {

class ClangJit;

// The entry point every compiled CPU kernel exports as `loupe_entry`.
using CpuEntryFn = HostEntryFn;

struct CpuDeviceOptions {
  std::string cc;                 // compiler command; empty: $CC, else clang, else gcc
  CompileCache* cache = nullptr;  // null: CompileCache::global()
};

class CpuDevice : public Device {
public:
  using Options = CpuDeviceOptions;
  explicit CpuDevice(Options opts = {}, std::string name = "CPU");
  ~CpuDevice() override;

  const Renderer& renderer() const override { return renderer_; }
  Allocator& allocator() override { return allocator_; }
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;
  bool compiles_concurrently() const override { return true; }

  const std::vector<std::string>& compiler_command() const { return cc_; }  // resolved, e.g. {"/usr/bin/clang"}
  const std::vector<std::string>& flags() const { return flags_; }
  int64_t compiler_runs() const { return compiler_runs_; }  // times this device actually ran the compiler
  bool compiles_in_process() const { return in_process_ != nullptr; }
  double compiler_seconds() const { return compiler_ns_ * 1e-9; }  // wall time spent in those runs
  // The C text compiled for a kernel: its source plus the entry shim.
  std::string compile_unit(const RenderedKernel& kernel) const;
  // Compiles C text with this device's command and flags (and `extra`, e.g. -g) into the shared object
  // `out`. loupe::Error with the compiler's message and the text when it fails. The command run and
  // the name the source file had (what the object's line info names).
  struct CompileRun {
    std::vector<std::string> command;
    std::string source_name;
  };
  struct CompileFileOptions {
    std::vector<std::string> extra;  // more flags, e.g. -g
    std::filesystem::path source;    // where to write the C text; empty: a private temporary file
    ProcessLimits limits;            // for a source from a trace: the compiler is stopped past them
  };
  CompileRun compile_file(const std::string& unit, const std::string& kernel_name, const std::filesystem::path& out,
                          const CompileFileOptions& options = {}) const;

private:
  // The compiler (path and version line of the command, or the in-process version) + host CPU model:
  // part of every cache key.
  std::string identity();
  // A compiled kernel in this process: the library holding it (null in process), its entry, its code.
  struct Loaded {
    std::shared_ptr<void> library;
    CpuEntryFn entry = nullptr;
    CodeMap code;
  };
  // A kernel's unit compiled (or found in the cache under `key`) and linked by the in-process compiler.
  Loaded load_in_process(const std::string& name, const std::string& unit, const std::string& key);

  CRenderer renderer_;
  HostAllocator allocator_;
  CompileCache* cache_;
  std::vector<std::string> cc_, flags_;
  std::unique_ptr<ClangJit> in_process_;  // null: kernels compile in a compiler process
  std::string identity_;
  std::mutex mutex_;
  std::unordered_map<std::string, Loaded> libs_;  // by cache key
  std::unordered_map<std::string, std::shared_ptr<Program>> programs_;  // by cache key + launch signature
  std::atomic<int64_t> compiler_runs_{0};
  std::atomic<int64_t> compiler_ns_{0};
};

// Null when a C compiler is found, else why the CPU device cannot start.
std::optional<std::string> cpu_unavailable_reason();
std::unique_ptr<Device> make_cpu_device(const std::string& canonical);

} // namespace loupe
