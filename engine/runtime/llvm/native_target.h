#pragma once
// What the in-process LLVM users (the LLVM device, the CPU device's clang) share: the host target
// registered once, and LLVM's errors as text.
#include <optional>
#include <string>

namespace llvm {
class Error;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace loupe {

// Registers the native target, its assembly printer and parser once per process (thread-safe) and
// checks that the JIT can target this host; null when that worked, else why not.
const std::optional<std::string>& llvm_native_target_problem();
std::string llvm_error_text(llvm::Error e);
// Calls a JIT's code makes (memcpy, libm, half conversions) resolve to this process's libraries;
// loupe::Error starting with `who` where the process cannot be searched.
void resolve_in_this_process(llvm::orc::LLJIT& jit, const std::string& who);

} // namespace loupe
