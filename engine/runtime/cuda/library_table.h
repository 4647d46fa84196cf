// Resolving a vendor library's entry points at run time: the first of several candidate files that
// dlopen loads, then every symbol a table of function pointers names. The engine builds without the
// vendor's headers or libraries; a machine without them gets the reason instead of a crash.
#pragma once
#include <dlfcn.h>

#include <string>
#include <type_traits>
#include <vector>

#include "support/error.h"

namespace loupe::cuda {

template <typename Table> struct LoadedTable {
  Table table{};
  bool ok = false;
  std::string why;
};

// `fill(table, sym)` calls sym(field, "symbolName") for each entry point; a missing one is the reason.
// `missing_lib` is the reason when no candidate loads ("CUPTI: libcupti.so not found ..."). The library
// stays loaded for the life of the process.
template <typename Table, typename Fill>
void load_table(LoadedTable<Table>& l, const std::vector<std::string>& candidates, const std::string& missing_lib, Fill fill) {
  void* lib = nullptr;
  for (const std::string& n : candidates)
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) {
    l.why = missing_lib;
    return;
  }
  std::string first_missing;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn && first_missing.empty()) first_missing = name;
  };
  fill(l.table, sym);
  if (!first_missing.empty()) {
    l.why = cat(missing_lib.substr(0, missing_lib.find(" not found")), " has no ", first_missing);
    return;
  }
  l.ok = true;
}

} // namespace loupe::cuda
