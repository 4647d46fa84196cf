// Where a compiled kernel's machine code lies in this process: its functions' addresses and sizes, so
// a sampled instruction pointer can be named as (function, offset) — the form in which it is recorded
// and matched to a disassembly later (exec/hotspot_annotation.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace loupe {

struct CodeSymbol {
  std::string name;      // the function's symbol, e.g. "r_16_16" or "loupe_entry"
  uint64_t address = 0;  // where it starts in this process
  uint64_t size = 0;     // bytes
};

// A kernel's functions, sorted by address, non-overlapping.
class CodeMap {
public:
  CodeMap() = default;
  explicit CodeMap(std::vector<CodeSymbol> symbols);

  bool empty() const { return symbols_.empty(); }
  const std::vector<CodeSymbol>& symbols() const { return symbols_; }
  // The function holding `ip`, or null when the address is none of this kernel's code.
  const CodeSymbol* find(uint64_t ip) const;

private:
  std::vector<CodeSymbol> symbols_;
};

} // namespace loupe
