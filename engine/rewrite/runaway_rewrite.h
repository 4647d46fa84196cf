// A rewrite that nests without end: a rule whose replacement contains the node it rewrote (x -> f(x))
// rewrites its own result again and again, one level deeper each time. The rewriter stops at a nesting
// depth no real graph reaches and throws this, naming the pass and the last rule, instead of running off
// the end of the stack; Python sees it as RecursionError, as tinygrad's recursive rewriter raises.
#pragma once
#include "support/error.h"

namespace loupe {

class RunawayRewrite : public Error {
public:
  using Error::Error;
};

} // namespace loupe
