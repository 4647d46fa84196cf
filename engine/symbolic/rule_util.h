// Small helpers shared by the symbolic rule files.
#pragma once
#include <source_location>

#include "rewrite/rule.h"

namespace loupe::sym {

// rule() whose callback may return its own root to mean "no change" (graph_rewrite needs null then).
inline Rule srule(std::string name, UPat pattern, RuleFn fn, std::source_location loc = std::source_location::current()) {
  return rule(
      std::move(name), std::move(pattern),
      [fn = std::move(fn)](const Match& m) -> UOpPtr {
        UOpPtr out = fn(m);
        return out == m.root() ? nullptr : out;
      },
      loc);
}

} // namespace loupe::sym
