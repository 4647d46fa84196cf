#pragma once
// A CPU kernel's C compiled in this process by clang's own libraries (libclang-cpp 15) and linked into
// the process by LLVM's ORC JIT: the compiler, flags and code of a clang process, without starting a
// driver, a compiler and a linker per kernel (about 60 ms each on the development machine, two thirds
// of what a matmul kernel costs to compile). Built where libclang-cpp's headers are (LOUPE_HAVE_CLANG).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/profile/code_map.h"

namespace loupe {

class ClangJit {
public:
  // Null where this build can compile in process; otherwise why not.
  static std::optional<std::string> unavailable_reason();
  static std::string version();  // "clang 15.0.6, in process"

  explicit ClangJit(std::vector<std::string> flags);  // a clang command's flags (-O2, -march=native, ...)
  ~ClangJit();
  ClangJit(const ClangJit&) = delete;
  ClangJit& operator=(const ClangJit&) = delete;

  // The object code of `source`, a C translation unit (thread-safe: one compiler per call); loupe::Error
  // with clang's diagnostics, naming `what`.
  std::string compile(const std::string& source, const std::string& what) const;
  // Links an object into this process, apart from every other one (kernels may share names): the
  // address of its function `entry`, and where each of its functions lies.
  struct Loaded {
    void* entry = nullptr;
    CodeMap code;
  };
  Loaded load(const std::string& object, const std::string& entry, const std::string& what);

private:
  struct State;
  std::vector<std::string> flags_;
  std::unique_ptr<State> state_;
};

} // namespace loupe
