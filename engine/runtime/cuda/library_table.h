// Resolving a vendor library's entry points at run time: the first of several candidate files that
// dlopen loads with every symbol a table of function pointers names. The engine builds without the
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

// `fill(table, sym)` calls sym(field, "symbolName") for each entry point. The first candidate that loads
// with every entry point wins: a machine can hold an older copy ahead of the one that has them (the GPU
// machines' Nsight Compute ships a CUPTI 10.2 host library). When none has them all, the reason names the
// first that loaded and what it lacked; `missing_lib` is the reason when none loads ("CUPTI: libcupti.so
// not found ..."). The library stays loaded for the life of the process.
template <typename Table, typename Fill>
void load_table(LoadedTable<Table>& l, const std::vector<std::string>& candidates, const std::string& missing_lib, Fill fill) {
  const std::string what = missing_lib.substr(0, missing_lib.find(':'));  // "CUPTI"
  for (const std::string& n : candidates) {
    void* lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    std::string first_missing;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && first_missing.empty()) first_missing = name;
    };
    Table table{};
    fill(table, sym);
    if (first_missing.empty()) {
      l.table = table;
      l.ok = true;
      l.why.clear();
      return;
    }
    if (l.why.empty()) l.why = cat(what, ": ", n, " has no ", first_missing);
    dlclose(lib);
  }
  if (l.why.empty()) l.why = missing_lib;
}

} // namespace loupe::cuda
