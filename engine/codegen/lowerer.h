// The lowerer (reference map §10.2): turns an optimized kernel AST into index math. Each axis of the
// iteration space becomes a RANGE (a loop on the CPU; SPECIAL thread ids on GPUs), every view becomes
// its index and valid expressions, loads and stores address buffers through INDEX, and a reduce
// becomes an accumulator (DEFINE_ACC) updated by ASSIGN inside the reduce loops.
#pragma once
#include "codegen/kernel.h"

namespace loupe {

UOpPtr lower_kernel(const Kernel& k, const UOpPtr& optimized_ast);

// Identity element of a reduce op for a dtype (ADD 0, MUL 1, MAX the lowest value).
UOpPtr reduce_identity(Ops op, DType dtype);

} // namespace loupe
