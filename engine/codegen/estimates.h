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

// From a linearized kernel: loops multiply the counts of what they contain. A loop or grid size over
// the kernel's variables counts at their values in `vars`, or without them at its largest value (what
// the planner and BEAM compare kernels by).
Estimates estimate_linear(const UOpList& linear, const VarValues* vars = nullptr);

} // namespace loupe
