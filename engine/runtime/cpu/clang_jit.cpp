#include "runtime/cpu/clang_jit.h"

#include "support/error.h"

#ifndef LOUPE_HAVE_CLANG

namespace loupe {

// Built without clang's libraries: every kernel compiles in a compiler process.
struct ClangJit::State {};
std::optional<std::string> ClangJit::unavailable_reason() {
  return std::string("CPU: built without clang's libraries (libclang-15-dev, libclang-cpp15-dev)");
}
std::string ClangJit::version() { return "none"; }
ClangJit::ClangJit(std::vector<std::string>) { throw Error(*unavailable_reason()); }
ClangJit::~ClangJit() = default;
std::string ClangJit::compile(const std::string&, const std::string&) const { throw Error(*unavailable_reason()); }
ClangJit::Loaded ClangJit::load(const std::string&, const std::string&, const std::string&) { throw Error(*unavailable_reason()); }

} // namespace loupe

#else

#include <algorithm>
#include <mutex>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "runtime/llvm/native_target.h"
#include "support/elf_symbols.h"

namespace loupe {

namespace {

constexpr const char* kSourceName = "loupe-kernel.c";

} // namespace

struct ClangJit::State {
  std::mutex driver_mutex;  // the driver's argument parsing, once per compile (cheap)
  std::mutex link_mutex;    // adding and looking up objects
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  int64_t next_library = 0;
};

std::optional<std::string> ClangJit::unavailable_reason() {
  if (const auto& why = llvm_native_target_problem()) return "CPU: clang in process: " + *why;
  return std::nullopt;
}

std::string ClangJit::version() { return "clang " + std::string(CLANG_VERSION_STRING) + ", in process"; }

ClangJit::ClangJit(std::vector<std::string> flags) : flags_(std::move(flags)), state_(std::make_unique<State>()) {
  if (auto why = unavailable_reason()) throw Error(*why);
  std::erase_if(flags_, [](const std::string& f) { return f == "-shared"; });  // an object, not a library
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) throw Error("CPU: cannot start the JIT for in-process kernels: " + llvm_error_text(jit.takeError()));
  state_->lljit = std::move(*jit);
  resolve_in_this_process(*state_->lljit, "CPU");
}

ClangJit::~ClangJit() = default;

std::string ClangJit::compile(const std::string& source, const std::string& what) const {
  std::vector<const char*> args{"clang"};
  for (const std::string& f : flags_) args.push_back(f.c_str());
  args.insert(args.end(), {"-c", "-x", "c", kSourceName, "-o", "loupe-kernel.o"});
  std::string diagnostics;
  llvm::raw_string_ostream diag_os(diagnostics);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_opts(new clang::DiagnosticOptions());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags = clang::CompilerInstance::createDiagnostics(
      diag_opts.get(), new clang::TextDiagnosticPrinter(diag_os, diag_opts.get()), /*ShouldOwnClient=*/true);
  std::shared_ptr<clang::CompilerInvocation> invocation;
  {
    std::lock_guard lock(state_->driver_mutex);
    clang::CreateInvocationOptions opts;
    opts.Diags = diags;
    invocation = clang::createInvocation(args, opts);
  }
  if (!invocation) throw Error(cat("CPU: clang in process refuses the flags for ", what, ":\n", diag_os.str()));
  clang::CompilerInstance ci;
  ci.setInvocation(invocation);
  ci.setDiagnostics(diags.get());
  ci.setVerboseOutputStream(diag_os);  // "1 error generated." with the errors, not on stderr
  ci.getPreprocessorOpts().addRemappedFile(kSourceName, llvm::MemoryBuffer::getMemBufferCopy(source, kSourceName).release());
  llvm::SmallVector<char, 0> object;
  ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
  llvm::LLVMContext context;
  clang::EmitObjAction action(&context);
  if (!ci.ExecuteAction(action) || diags->hasErrorOccurred())
    throw Error(cat("CPU: ", version(), " failed compiling ", what, ":\n", diag_os.str(), "\n--- source ---\n", source));
  return std::string(object.begin(), object.end());
}

ClangJit::Loaded ClangJit::load(const std::string& object, const std::string& entry, const std::string& what) {
  std::lock_guard lock(state_->link_mutex);
  llvm::orc::LLJIT& jit = *state_->lljit;
  auto library = jit.createJITDylib("kernel" + std::to_string(state_->next_library++));
  if (!library) throw Error(cat("CPU: cannot make a library for ", what, ": ", llvm_error_text(library.takeError())));
  library->addToLinkOrder(jit.getMainJITDylib());
  if (llvm::Error e = jit.addObjectFile(*library, llvm::MemoryBuffer::getMemBufferCopy(object, what)))
    throw Error(cat("CPU: cannot link ", what, ": ", llvm_error_text(std::move(e))));
  auto sym = jit.lookup(*library, entry);
  if (!sym) throw Error(cat("CPU: ", what, " has no entry point: ", llvm_error_text(sym.takeError())));
  Loaded out{sym->toPtr<void*>(), {}};
  // The linker keeps a section whole: every function of the entry's section lies at the entry's address
  // plus its distance from the entry in the object (static helpers too, which have no name to look up).
  std::vector<ElfFunction> functions;
  try {
    functions = elf_functions(object, what);
  } catch (const Error&) {
    return out;  // hot spots then name no function; running does not depend on it
  }
  auto anchor = std::find_if(functions.begin(), functions.end(), [&](const ElfFunction& f) { return f.name == entry; });
  if (anchor != functions.end()) {
    std::vector<CodeSymbol> code;
    const uint64_t base = sym->getValue() - anchor->value;
    for (const ElfFunction& f : functions)
      if (f.section == anchor->section) code.push_back({f.name, base + f.value, f.size});
    out.code = CodeMap(std::move(code));
  }
  return out;
}

} // namespace loupe

#endif // LOUPE_HAVE_CLANG
