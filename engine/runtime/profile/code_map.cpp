#include "runtime/profile/code_map.h"

#include <algorithm>

namespace loupe {

CodeMap::CodeMap(std::vector<CodeSymbol> symbols) : symbols_(std::move(symbols)) {
  std::sort(symbols_.begin(), symbols_.end(), [](const CodeSymbol& a, const CodeSymbol& b) { return a.address < b.address; });
}

const CodeSymbol* CodeMap::find(uint64_t ip) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), ip, [](uint64_t v, const CodeSymbol& s) { return v < s.address; });
  if (it == symbols_.begin()) return nullptr;
  --it;
  return ip - it->address < it->size ? &*it : nullptr;
}

} // namespace loupe
