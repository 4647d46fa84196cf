// Per-call memo for the nested simplifications some rules run (div/mod folding compares candidate
// forms by simplifying them). While a MemoScope is open on this thread, simplify() and div/mod
// folding remember their results; the outermost scope forgets everything when it closes, so nothing
// is kept between top-level calls and every entry holds its nodes alive (no stale pointers).
#pragma once
#include "ir/uop.h"
#include "support/flat_ptr_map.h"

namespace loupe::sym {

class MemoScope {
public:
  MemoScope();
  ~MemoScope();
  MemoScope(const MemoScope&) = delete;
  MemoScope& operator=(const MemoScope&) = delete;
};

struct Memo {
  UOpMap<UOpPtr> simplified;  // input -> simplify(input)
  UOpMap<UOpPtr> divmod;      // FLOORDIV/FLOORMOD node -> its folding (null: none)
  // Results of simplify() (held alive as values of `simplified`): at symbolic()'s fixed point with
  // everything below them, so a later simplify() of a candidate built on them does not visit them.
  FlatPtrSet<const UOp*> fixed;
};

// The open scope's memo, or null outside any scope.
Memo* memo();
// Whether a scope is open on this thread (a call made from inside a rule).
bool in_scope();

} // namespace loupe::sym
