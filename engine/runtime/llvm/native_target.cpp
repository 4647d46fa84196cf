#include "runtime/llvm/native_target.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include "support/error.h"

namespace loupe {

std::string llvm_error_text(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

const std::optional<std::string>& llvm_native_target_problem() {
  static const std::optional<std::string> problem = []() -> std::optional<std::string> {
    if (llvm::InitializeNativeTarget() || llvm::InitializeNativeTargetAsmPrinter() || llvm::InitializeNativeTargetAsmParser())
      return std::string("no native target for this host in LLVM ") + LLVM_VERSION_STRING;
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) return "cannot target this host: " + llvm_error_text(jtmb.takeError());
    return std::nullopt;
  }();
  return problem;
}

void resolve_in_this_process(llvm::orc::LLJIT& jit, const std::string& who) {
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit.getDataLayout().getGlobalPrefix());
  if (!gen) throw Error(who + ": cannot search the process for symbols: " + llvm_error_text(gen.takeError()));
  jit.getMainJITDylib().addGenerator(std::move(*gen));
}

} // namespace loupe
