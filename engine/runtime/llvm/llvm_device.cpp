#include "runtime/llvm/llvm_device.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <cmath>
#include <cstdlib>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectTransformLayer.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "support/compile_cache.h"
#include "runtime/cpu/host_program.h"
#include "runtime/llvm/native_target.h"
#include "support/elf_symbols.h"
#include "support/error.h"
#include "support/host_cpu.h"
#include "support/isolate.h"

namespace loupe {

namespace {

// LLVM's problem with this host, as the device says it (null when there is none).
std::optional<std::string> native_target_problem() {
  if (const auto& why = llvm_native_target_problem()) return "LLVM: " + *why;
  return std::nullopt;
}

// Parses textual IR into a module of `ctx`; loupe::Error with LLVM's diagnostic (and the source) if it
// does not parse or does not verify.
std::unique_ptr<llvm::Module> parse_module(const std::string& text, const std::string& what, llvm::LLVMContext& ctx) {
  llvm::SMDiagnostic diag;
  auto mod = llvm::parseIR(llvm::MemoryBufferRef(text, what), diag, ctx);
  if (!mod) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print(what.c_str(), os, false);
    throw Error(cat("LLVM: cannot parse ", what, ": ", os.str(), "\n--- source ---\n", text));
  }
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (llvm::verifyModule(*mod, &os)) throw Error(cat("LLVM: ", what, " does not verify: ", os.str(), "\n--- source ---\n", text));
  return mod;
}

// Where the functions of a linked object lie: the linker keeps a section whole, so each function of the
// entry's section is at the entry's address plus its distance from it in the object. `names` renames
// symbols to what readers call them (the kernel's own name; "loupe_entry"). An unreadable object
// leaves the map empty: hot spots then name nothing, running does not depend on it.
CodeMap jit_code_map(const std::string& object, const std::string& entry, uint64_t entry_address,
                     const std::map<std::string, std::string>& names) {
  std::vector<ElfFunction> functions;
  try {
    functions = elf_functions(object, "the JIT's object");
  } catch (const Error&) {
    return {};
  }
  auto anchor = std::find_if(functions.begin(), functions.end(), [&](const ElfFunction& f) { return f.name == entry; });
  if (anchor == functions.end()) return {};
  std::vector<CodeSymbol> code;
  for (const ElfFunction& f : functions) {
    if (f.section != anchor->section) continue;
    auto renamed = names.find(f.name);
    code.push_back({renamed == names.end() ? f.name : renamed->second, entry_address - anchor->value + f.value, f.size});
  }
  return CodeMap(std::move(code));
}


std::string launch_signature(const RenderedKernel& k) {
  std::string s = k.name;
  for (const BufferParam& b : k.buffers) s += cat("|", b.index, ":", b.dtype.name(), ":", b.dtype.ptr_size, ":", b.is_mutable);
  for (const VarParam& v : k.vars) s += cat("|", v.name, ":", v.min, ":", v.max);
  s += cat("|", k.global[0], ",", k.global[1], ",", k.global[2], "|", k.split_loop);
  return s;
}

} // namespace

struct LlvmDevice::Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> tm;  // the same host target, for the optimizer
  std::string cpu, features;
  int64_t next_entry = 0;
  std::string* capture = nullptr;  // while a kernel is compiled (under the device's mutex): its object file

  // Sets the module's target, keeps only `keep` external (so kernels with the same name never clash in
  // the JIT), and runs the O2 pipeline with the host's cost model.
  void optimize(llvm::Module& mod, const std::string& keep, const std::string& also_keep = "") {
    mod.setDataLayout(tm->createDataLayout());
    mod.setTargetTriple(tm->getTargetTriple().str());
    for (llvm::Function& f : mod) {
      if (f.isDeclaration()) continue;
      if (f.getName() != keep && (also_keep.empty() || f.getName() != also_keep)) f.setLinkage(llvm::GlobalValue::InternalLinkage);
      f.addFnAttr("target-cpu", cpu);
      if (!features.empty()) f.addFnAttr("target-features", features);
    }
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    mpm.run(mod, mam);
  }
};

LlvmDevice::LlvmDevice(std::string name) : Device(std::move(name)), jit_(std::make_unique<Jit>()) {
  if (auto why = native_target_problem()) throw Error(*why);
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) throw Error("LLVM: cannot target this host: " + llvm_error_text(jtmb.takeError()));
  jtmb->setCPU(llvm::sys::getHostCPUName().str());
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  jit_->cpu = jtmb->getCPU();
  if (!host_cpu().llvm_features.empty()) jtmb->getFeatures().AddFeature(host_cpu().llvm_features);  // a forced narrower target
  jit_->features = jtmb->getFeatures().getString();
  auto tm = jtmb->createTargetMachine();
  if (!tm) throw Error("LLVM: cannot create a target machine: " + llvm_error_text(tm.takeError()));
  jit_->tm = std::move(*tm);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
  if (!jit) throw Error("LLVM: cannot start the JIT: " + llvm_error_text(jit.takeError()));
  jit_->lljit = std::move(*jit);
  resolve_in_this_process(*jit_->lljit, "LLVM");  // calls the optimizer emits (fmodf, memcpy, half conversions)
  // Each object the JIT links passes here (on the compiling thread, LLJIT compiles on lookup): kept while
  // a kernel is compiled, for its symbols' sizes (hot spots).
  jit_->lljit->getObjTransformLayer().setTransform(
      [jit = jit_.get()](std::unique_ptr<llvm::MemoryBuffer> object) -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
        if (jit->capture) jit->capture->assign(object->getBufferStart(), object->getBufferSize());
        return std::move(object);
      });
}

LlvmDevice::~LlvmDevice() = default;

std::string LlvmDevice::target() const {
  return jit_->tm->getTargetTriple().str() + ", " + jit_->cpu + ", " + jit_->features;
}

std::string LlvmDevice::optimized_ir(const RenderedKernel& k) {
  return compile_for_reading("loupe_entry", k.source + "\n" + llvm_entry_shim(k, "loupe_entry")).optimized_ir;
}

LlvmDevice::Compiled LlvmDevice::compile_for_reading(const std::string& function, const std::string& ir, const ProcessLimits* isolate) {
  std::lock_guard lock(mutex_);  // the target machine is shared with the JIT's optimizer
  if (!isolate) return compile_for_reading_locked(function, ir);
  // Held across the fork, so the child's copy of the JIT's state is consistent; the child never takes it.
  std::string packed = run_isolated(
      [&] {
        Compiled c = compile_for_reading_locked(function, ir);
        return std::to_string(c.optimized_ir.size()) + "\n" + c.optimized_ir + c.object;
      },
      *isolate, cat("LLVM compiling ", function));
  const size_t nl = packed.find('\n');
  const uint64_t n = nl == std::string::npos ? 0 : std::strtoull(packed.c_str(), nullptr, 10);
  if (nl == std::string::npos || n > packed.size() - nl - 1) throw Error(cat("LLVM compiling ", function, ": the child's result is garbled"));
  return {packed.substr(nl + 1, n), packed.substr(nl + 1 + n)};
}

LlvmDevice::Compiled LlvmDevice::compile_for_reading_locked(const std::string& function, const std::string& ir) {
  llvm::LLVMContext ctx;
  auto mod = parse_module(ir, "kernel " + function, ctx);
  Compiled out;
  jit_->optimize(*mod, function);
  llvm::raw_string_ostream ir_out(out.optimized_ir);
  mod->print(ir_out, nullptr);
  ir_out.flush();
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream obj_out(bytes);
  llvm::legacy::PassManager codegen;
  if (jit_->tm->addPassesToEmitFile(codegen, obj_out, nullptr, llvm::CGFT_ObjectFile))
    throw Error(cat("LLVM: the target ", target(), " cannot emit object files"));
  codegen.run(*mod);
  out.object.assign(bytes.begin(), bytes.end());
  return out;
}

std::shared_ptr<Program> LlvmDevice::compile(const RenderedKernel& k) {
  if (k.device != "LLVM") throw Error(cat("LLVM cannot run kernel ", k.name, " rendered for ", k.device));
  std::string key = cache_key({"loupe-llvm-1", target(), k.source});
  std::string pkey = key + "\n" + launch_signature(k);
  std::lock_guard lock(mutex_);  // one compile at a time: the JIT's session is shared
  if (auto it = programs_.find(pkey); it != programs_.end()) return it->second;
  Entry found;
  if (auto it = entries_.find(key); it != entries_.end()) found = it->second;
  if (!found.fn) {
    ForkGuard inside_llvm;  // no fork (an interruptible CPU compile) while LLVM may hold its locks
    auto t0 = std::chrono::steady_clock::now();
    const int64_t n = jit_->next_entry++;
    const std::string entry = "loupe_entry_" + std::to_string(n), kernel_symbol = k.name + "_loupe_" + std::to_string(n);
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = parse_module(k.source + "\n" + llvm_entry_shim(k, entry), "kernel " + k.name, *ctx);
    // the kernel keeps its own code (external, never inlined) under a name no other kernel in the JIT has
    if (llvm::Function* f = mod->getFunction(k.name)) {
      f->setName(kernel_symbol);
      f->addFnAttr(llvm::Attribute::NoInline);
    }
    jit_->optimize(*mod, entry, kernel_symbol);
    if (llvm::Error e = jit_->lljit->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
      throw Error(cat("LLVM: cannot add kernel ", k.name, " to the JIT: ", llvm_error_text(std::move(e))));
    std::string object;
    jit_->capture = &object;
    auto sym = jit_->lljit->lookup(entry);
    jit_->capture = nullptr;
    if (!sym) throw Error(cat("LLVM: cannot compile kernel ", k.name, ": ", llvm_error_text(sym.takeError())));
    found.fn = sym->toPtr<void*>();
    found.code = jit_code_map(object, entry, sym->getValue(), {{entry, "loupe_entry"}, {kernel_symbol, k.name}});
    compiles_++;
    compile_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    entries_.emplace(key, found);
  }
  auto program = std::make_shared<HostProgram>(k, reinterpret_cast<HostEntryFn>(found.fn), found.code);
  return programs_.emplace(pkey, program).first->second;
}

std::optional<std::string> llvm_unavailable_reason() { return native_target_problem(); }

std::unique_ptr<Device> make_llvm_device(const std::string& canonical) { return std::make_unique<LlvmDevice>(canonical); }

std::optional<std::string> llvm_verify_ir(const std::string& ir) {
  llvm::LLVMContext ctx;
  try {
    parse_module(ir, "IR", ctx);
  } catch (const Error& e) {
    std::string s = e.what();
    return s.substr(0, s.find("\n--- source ---"));
  }
  return std::nullopt;
}

} // namespace loupe
