// What a kernel costs (reference map §13): FLOPs, bytes loaded and stored (re-reads counted), and the
// unique memory it touches. GFLOPS and GB/s in the DEBUG=2 line and the profile come from these.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/eval.h"
#include "ir/uop.h"

namespace loupe {

struct Estimates {
  int64_t ops = 0;  // ALU operations not used for addressing (MULACC counts 2)
  int64_t lds = 0;  // bytes loaded and stored, every iteration counted
  int64_t mem = 0;  // bytes of distinct buffer memory touched
};

// A kernel's estimates as a function of its variables' values (symbolic shapes): the counts of each loop
// nest, kept with the nest's loop and grid extents, multiplied out per call. A run at new values (a
// TinyJit replay) costs a few multiplications, not a walk of the kernel. An extent over the variables
// counts at their values in `vars`, or without them at its largest value (what the planner and BEAM
// compare kernels by).
class EstimatesByVars {
public:
  explicit EstimatesByVars(const UOpList& linear);
  Estimates at(const VarValues* vars = nullptr) const;

private:
  struct Nest {
    UOpList extents;  // of the loops (and launch ids) around it
    int64_t ops = 0, lds = 0;  // per iteration
  };
  std::vector<Nest> nests_;
  int64_t mem_ = 0;
};

// From a linearized kernel: loops multiply the counts of what they contain (EstimatesByVars(linear).at(vars)).
Estimates estimate_linear(const UOpList& linear, const VarValues* vars = nullptr);

} // namespace loupe
