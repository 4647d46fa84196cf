// What the C-style and LLVM renderers both need to know of a linearized program before they write
// it: which loop can be split over CPU threads, and which values C writes inline into their one
// consumer (the LLVM renderer follows the same rule so that both compute the same floats: clang
// contracts a*b+c written in one C expression into a fused multiply-add).
#pragma once
#include <functional>
#include <vector>

#include "ir/uop.h"
#include "support/flat_ptr_map.h"

namespace loupe {

// ALU ops, casts, bitcasts and VECTORIZE: the nodes that compute a value from values.
bool is_value_op(Ops op);

// The DEFINE_GLOBAL or DEFINE_LOCAL an address (an INDEX, a vector CAST of one) points into, or null.
const UOp* buffer_of(const UOp* address);
// The DEFINE_ACC an ASSIGN (or a chain of them) names; any other node is itself.
const UOp* accumulator_of(const UOp* u);

// The outermost loop, when it can be split over threads: it encloses all the work, is not a
// reduction, and every store inside it writes an address that depends on it (so iterations never
// write the same place). Null otherwise.
const UOp* splittable_outer_loop(const UOpList& uops);

// The values written inline where they are used: constants, GEPs, INDEX and NOOP always; a value op
// with a single use unless it must be named (a vector read lane by lane, which `read_lane_by_lane`
// says of a consumer, or a vector of bools) or an accumulator it reads is assigned between its
// position and its use (the inlined text would read the new value), or it would nest more than
// kMaxInlineNesting inlined values deep (a chain of ops then reads named intermediate values).
constexpr int kMaxInlineNesting = 48;
FlatPtrSet<const UOp*> inlined_values(const UOpList& uops, const std::function<bool(const UOp*)>& read_lane_by_lane);

// The node whose C text stands for lane `lane` of u (-1: all of it), GEPs and inlined VECTORIZEs looked
// through as the C text spells them: where a product written inside a sum is found (the compiler
// contracts it into a fused multiply-add, which the LLVM renderer and the interpreter must repeat).
const UOp* c_spelled_node(const UOp* u, int lane, const FlatPtrSet<const UOp*>& inlined);

// RenderedKernel::uop_lines from where a writer put each UOp's own statement: `body_line[i]` is the
// index in the body of the line UOp i computes on (-1: none, e.g. inlined), the body starting on
// source line `body_start` (1-based); parameters (DEFINE_GLOBAL, DEFINE_VAR) get `signature_line`.
// A UOp with no line of its own gets the first line of its consumers (a value inlined into a store is
// on the store's line); one nothing uses and that wrote nothing gets 0.
std::vector<int> uop_source_lines(const UOpList& uops, const std::vector<int>& body_line, int body_start, int signature_line);

} // namespace loupe
