#include "runtime/cpu/cpu_device.h"

#include <chrono>
#include <dlfcn.h>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runtime/cpu/clang_jit.h"
#include "support/elf_symbols.h"
#include "support/error.h"
#include "support/host_cpu.h"
#include "support/isolate.h"
#include "support/process.h"

namespace loupe {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

// The compiler command: the requested one, else $CC (strictly), else clang (Debian's clang-15 package
// installs only the versioned name), else gcc. Empty if none is found.
bool compiler_requested(const std::string& requested) {
  const char* cc = std::getenv("CC");
  return !requested.empty() || (cc && *cc);
}

// `in_process`: kernels compile in this process with clang 15's libraries; the command (for listings of
// what ran) is then clang 15's too where it is installed.
std::vector<std::string> resolve_compiler(const std::string& requested, bool in_process = false) {
  std::vector<std::string> candidates;
  if (!requested.empty()) candidates = {requested};
  else if (const char* cc = std::getenv("CC"); cc && *cc) candidates = {cc};
  else if (in_process) candidates = {"clang-15", "clang", "clang-14", "gcc"};
  else candidates = {"clang", "clang-15", "clang-14", "gcc"};
  for (const std::string& c : candidates) {
    auto words = split_words(c);
    if (words.empty()) continue;
    if (auto exe = find_executable(words[0])) {
      words[0] = *exe;
      return words;
    }
  }
  return {};
}

// Adds the time until it goes out of scope to `ns`: a compile is counted whether it succeeds or fails.
struct CountedTime {
  std::atomic<int64_t>& ns;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~CountedTime() { ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); }
};


} // namespace

CpuDevice::CpuDevice(Options opts, std::string name)
    : Device(std::move(name)), cache_(opts.cache ? opts.cache : &CompileCache::global()) {
  const bool in_process = !compiler_requested(opts.cc) && !ClangJit::unavailable_reason();
  cc_ = resolve_compiler(opts.cc, in_process);
  if (cc_.empty())
    throw Error(opts.cc.empty() ? *cpu_unavailable_reason() : cat("CPU: C compiler '", opts.cc, "' not found"));
  flags_ = {"-O2", "-fPIC", "-shared", "-fno-math-errno", "-fwrapv", "-w"};
  const std::vector<std::string>& target = host_cpu().compile_flags;  // -march=native (and a forced target's limits)
  flags_.insert(flags_.begin() + 1, target.begin(), target.end());
  if (in_process) in_process_ = std::make_unique<ClangJit>(flags_);
}

CpuDevice::~CpuDevice() = default;

std::string CpuDevice::identity() {
  std::lock_guard lock(mutex_);
  if (identity_.empty() && in_process_) identity_ = ClangJit::version() + "\n" + host_cpu().model;  // no process to ask
  if (identity_.empty()) {
    fs::path log = CompileCache::temp_path("version.txt");
    std::vector<std::string> argv = cc_;
    argv.push_back("--version");
    run_process(argv, log);
    std::string v = read_text_file(log);
    fs::remove(log);
    identity_ = cc_[0] + "\n" + v.substr(0, v.find('\n')) + "\n" + host_cpu().model;
  }
  return identity_;
}

std::string CpuDevice::compile_unit(const RenderedKernel& k) const {
  // The kernel is called through a volatile pointer, so the compiler never inlines it into the shim: the
  // code that runs is the kernel's own function, as the Machine code panel disassembles it from the
  // kernel's source alone, and hot spots are named in it.
  std::string shim = "\nvoid loupe_entry(void** bufs, const long long* vars, long long start, long long end) {\n  __typeof__(&" + k.name +
                     ") volatile loupe_kernel = " + k.name + ";\n  loupe_kernel(";
  std::vector<std::string> args;
  for (size_t i = 0; i < k.buffers.size(); i++)
    args.push_back("(" + std::string(k.buffers[i].is_mutable ? "" : "const ") + renderer_.type_name(k.buffers[i].dtype) +
                   ")bufs[" + std::to_string(i) + "]");
  for (size_t i = 0; i < k.vars.size(); i++) {
    bool fits = k.vars[i].min >= INT32_MIN && k.vars[i].max <= INT32_MAX;
    args.push_back(std::string(fits ? "(int)" : "") + "vars[" + std::to_string(i) + "]");
  }
  if (k.split_loop) {
    args.push_back("start");
    args.push_back("end");
  }
  for (size_t i = 0; i < args.size(); i++) shim += (i ? ", " : "") + args[i];
  shim += ");\n  (void)bufs; (void)vars; (void)start; (void)end;\n}\n";
  return k.source + shim;
}

CpuDevice::CompileRun CpuDevice::compile_file(const std::string& unit, const std::string& kernel_name, const fs::path& out,
                                               const CompileFileOptions& options) const {
  // temporary names are the compile cache's own (temp_path never lets a name leave its private folder)
  const bool own_source = options.source.empty();
  const fs::path src = own_source ? CompileCache::temp_path("kernel.c") : options.source;
  const fs::path log = own_source ? CompileCache::temp_path("kernel.log") : fs::path(options.source).replace_extension(".log");
  {
    std::ofstream f(src);
    f << unit;
    if (!f) throw Error(cat("CPU: cannot write ", src.string()));
  }
  std::vector<std::string> argv = cc_;
  argv.insert(argv.end(), flags_.begin(), flags_.end());
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  argv.insert(argv.end(), {"-x", "c", src.string(), "-o", out.string(), "-lm"});
  ProcessOutcome ran = options.limits.any() ? run_process(argv, log, options.limits) : ProcessOutcome{run_process(argv, log)};
  std::string msg = read_text_file(log);
  std::error_code ec;
  if (own_source) fs::remove(src, ec);
  fs::remove(log, ec);
  if (ran.timed_out || ran.too_large)
    throw Error(cat("CPU: ", cc_[0], " compiling kernel ", kernel_name, " ", ran.describe(options.limits)));
  if (ran.status != 0)
    throw Error(cat("CPU: ", cc_[0], ran.status < 0 ? " could not be started" : " failed", " compiling kernel ", kernel_name,
                    " (exit ", ran.status, "):\n", msg, "\n--- source ---\n", unit));
  return {argv, src.filename().string()};
}

namespace {
// What a Program knows beyond its compiled text: two kernels with the same text (a split loop hides its
// extent) may still differ in buffer sizes and launch sizes.
std::string launch_signature(const RenderedKernel& k) {
  std::string s = k.name;
  for (const BufferParam& b : k.buffers)
    s += cat("|", b.index, ":", b.dtype.name(), ":", b.dtype.ptr_size, ":", b.is_mutable);
  for (const VarParam& v : k.vars) s += cat("|", v.name, ":", v.min, ":", v.max);
  s += cat("|", k.global[0], ",", k.global[1], ",", k.global[2], "|", k.local[0], ",", k.local[1], ",", k.local[2], "|",
           k.split_loop);
  return s;
}
} // namespace

namespace {
// Where the functions of a loaded shared object lie: its symbols' addresses past the base it was mapped
// at. Read while the file is still there (the cache may remove it); a file that cannot be read leaves
// the map empty (hot spots then name no function: the run itself does not depend on it).
CodeMap library_code(const fs::path& so, void* entry, const std::string& name) {
  Dl_info info{};
  if (!dladdr(entry, &info) || !info.dli_fbase) return {};
  std::ifstream f(so, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f && !f.eof()) return {};
  std::vector<CodeSymbol> code;
  try {
    for (const ElfFunction& fn : elf_functions(image, "kernel " + name + "'s library"))
      code.push_back({fn.name, reinterpret_cast<uint64_t>(info.dli_fbase) + fn.value, fn.size});
  } catch (const Error&) {
    return {};
  }
  return CodeMap(std::move(code));
}

// Units from this size on compile in an interruptible child. Measured with clang 15 -O2 on a 2-core
// Xeon, realizing an elementwise chain: 26 KB 0.65 s, 53 KB 1.8 s, 106 KB 4-6 s, 212 KB 15-17 s; the
// largest bench kernels (tiled matmuls, convolutions) are 13-40 KB.
constexpr size_t kInterruptibleCompileBytes = 32 << 10;
} // namespace

CpuDevice::Loaded CpuDevice::load_in_process(const std::string& name, const std::string& unit, const std::string& key) {
  std::optional<std::string> object = cache_->get("cpu-object", key);
  if (!object) {
    compiler_runs_++;
    {
      CountedTime timed{compiler_ns_};
      // clang cannot be cancelled in this process: a long compile runs in a forked child, which Ctrl-C
      // kills (the fork costs milliseconds; a unit this size compiles for a second or more)
      if (unit.size() >= kInterruptibleCompileBytes) {
        object = run_interruptible([&] { return in_process_->compile(unit, "kernel " + name); }, "CPU: compiling kernel " + name);
      } else {
        ForkGuard inside_clang;
        object = in_process_->compile(unit, "kernel " + name);
      }
    }
    cache_->put("cpu-object", key, *object);
  }
  ForkGuard inside_the_jit;
  ClangJit::Loaded linked = in_process_->load(*object, "loupe_entry", "kernel " + name);
  return {nullptr, reinterpret_cast<CpuEntryFn>(linked.entry), std::move(linked.code)};
}

std::shared_ptr<Program> CpuDevice::compile(const RenderedKernel& k) {
  if (k.device != "CPU") throw Error(cat("CPU cannot run kernel ", k.name, " rendered for ", k.device));
  std::string unit = compile_unit(k);
  std::string flags;
  for (const std::string& f : flags_) flags += f + " ";
  // an in-process object and a compiler process's library are different artifacts
  std::string key = cache_key({in_process_ ? "loupe-cpu-object-1" : "loupe-cpu-1", identity(), flags, unit});
  std::string pkey = key + "\n" + launch_signature(k);
  Loaded loaded;
  {
    std::lock_guard lock(mutex_);
    if (auto it = programs_.find(pkey); it != programs_.end()) return it->second;
    if (auto it = libs_.find(key); it != libs_.end()) loaded = it->second;
  }
  if (!loaded.entry && in_process_) {
    loaded = load_in_process(k.name, unit, key);
  } else if (!loaded.entry) {
    fs::path so = cache_->get_or_create("cpu", key, ".so", [&](const fs::path& tmp) {
      compiler_runs_++;
      CountedTime timed{compiler_ns_};
      compile_file(unit, k.name, tmp);
    });
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw Error(cat("CPU: cannot load kernel ", k.name, " from ", so.string(), ": ", dlerror()));
    std::shared_ptr<void> lib(handle, [](void* h) { dlclose(h); });
    auto fn = reinterpret_cast<CpuEntryFn>(dlsym(handle, "loupe_entry"));
    if (!fn) throw Error(cat("CPU: kernel ", k.name, " has no entry point in ", so.string()));
    loaded = {lib, fn, library_code(so, reinterpret_cast<void*>(fn), k.name)};
    if (!cache_->enabled()) {
      std::error_code ec;
      fs::remove(so, ec);  // the mapping stays valid
    }
  }
  auto program = std::make_shared<HostProgram>(k, loaded.entry, loaded.code, loaded.library);
  std::lock_guard lock(mutex_);
  libs_.emplace(key, loaded);
  return programs_.emplace(pkey, program).first->second;
}

std::optional<std::string> cpu_unavailable_reason() {
  if (!resolve_compiler("").empty()) return std::nullopt;
  const char* cc = std::getenv("CC");
  if (cc && *cc) return cat("CPU: C compiler CC=", cc, " not found");
  return std::string("CPU: no C compiler found (tried clang, clang-15, clang-14, gcc; set CC)");
}

std::unique_ptr<Device> make_cpu_device(const std::string& canonical) {
  return std::make_unique<CpuDevice>(CpuDevice::Options{}, canonical);
}

} // namespace loupe
