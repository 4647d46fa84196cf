// The LLVM device: kernels rendered as LLVM IR (render/llvm_renderer.h), optimized at O2 for the host
// CPU and its features, and compiled in process by ORC LLJIT (LLVM 15). Each kernel gets the entry shim
// of llvm_entry_shim, so it is called like a CPU kernel, and a split outer loop runs on the CPU thread
// pool. Compiled kernels are kept in memory by a hash of their IR (a JIT is cheap enough not to need
// the disk cache). The kernel stays a function of its own, never inlined into its entry, so what runs is
// the code compile_for_reading lists, and hot spots name its instructions by the kernel's name. Memory is host memory. This header has no LLVM includes: only llvm_device.cpp has.
// Built only when CMake finds LLVM 15 (LOUPE_HAVE_LLVM); otherwise the device reports why it is absent.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "render/llvm_renderer.h"
#include "runtime/device.h"
#include "runtime/profile/code_map.h"
#include "support/process.h"

namespace loupe {

class LlvmDevice : public Device {
public:
  explicit LlvmDevice(std::string name = "LLVM");
  ~LlvmDevice() override;

  const Renderer& renderer() const override { return renderer_; }
  Allocator& allocator() override { return allocator_; }
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;

  int64_t jit_compiles() const { return compiles_; }         // kernels actually compiled (cache misses)
  double jit_seconds() const { return compile_ns_ * 1e-9; }  // wall time spent compiling them
  std::string target() const;                                 // "x86_64-pc-linux-gnu, znver3, +avx2,..."
  // The optimized IR of a kernel as the JIT compiles it (for reading; does not add it to the JIT).
  std::string optimized_ir(const RenderedKernel& kernel);
  // What the JIT makes of a kernel's IR (without the entry shim; `function` kept external), for reading:
  // the IR after the O2 pipeline and the machine code as an ELF object (for a disassembler). Nothing is
  // added to the JIT. loupe::Error when the IR does not parse or the target cannot emit objects.
  struct Compiled {
    std::string optimized_ir;
    std::string object;  // bytes of a relocatable object file
  };
  // With `isolate`, the work runs in a forked child under those limits (support/isolate.h): IR from a
  // trace may crash LLVM (bad inline asm) or keep it busy for hours (a huge vector).
  Compiled compile_for_reading(const std::string& function, const std::string& ir, const ProcessLimits* isolate = nullptr);

  struct Jit;  // the LLJIT instance and its target (defined in the .cpp)

private:
  LlvmRenderer renderer_;
  HostAllocator allocator_;
  std::unique_ptr<Jit> jit_;
  std::mutex mutex_;
  struct Entry {
    void* fn = nullptr;
    CodeMap code;  // where the kernel and its entry lie, named as the kernel's source names them
  };
  std::unordered_map<std::string, Entry> entries_;                       // by IR hash
  std::unordered_map<std::string, std::shared_ptr<Program>> programs_;  // by IR hash + launch signature
  std::atomic<int64_t> compiles_{0}, compile_ns_{0};
  Compiled compile_for_reading_locked(const std::string& function, const std::string& ir);
};

// Null when the JIT can target this host, else why the LLVM device cannot start.
std::optional<std::string> llvm_unavailable_reason();
std::unique_ptr<Device> make_llvm_device(const std::string& canonical);

// Runs LLVM's parser and verifier on textual IR: null when it is valid, else the error messages.
std::optional<std::string> llvm_verify_ir(const std::string& ir);

} // namespace loupe
