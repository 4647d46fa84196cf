// The function symbols of an ELF64 file (a relocatable object or a shared object), read straight from
// its symbol table: what the hot-spot sampler needs to know where each function of a compiled kernel
// starts and how long it is. No LLVM: the CPU device compiles through a clang process too.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loupe {

struct ElfFunction {
  std::string name;
  uint64_t value = 0;  // a shared object's address of it; an object's offset in its section
  uint64_t size = 0;   // bytes of code
  uint16_t section = 0;  // the section holding it (functions of one section lie together when loaded)
  bool global = false;   // visible outside the file (a JIT can look it up by name)
};

// Every defined function symbol (STT_FUNC with a section and a size) of `.symtab`, else `.dynsym`.
// loupe::Error naming `what` and the problem when the image is not a little-endian ELF64 file or a
// table points outside it.
std::vector<ElfFunction> elf_functions(std::string_view image, const std::string& what);

} // namespace loupe
