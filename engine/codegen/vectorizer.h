// The vectorizer: after the expander, the lanes of an upcast axis are separate scalar stores to
// consecutive addresses. This pass joins each run of them into one vector store and carries the vector
// down the stored value: consecutive loads become one vector load, the same ALU op on every lane one
// vector op, the lanes' accumulators one vector accumulator, a select under per-lane compares one
// select under a vector mask, casts of one width one conversion. What cannot be joined (a gather, a
// max, a compare read as a bool) is packed lane by lane, each lane reading its sources' vectors where
// those were joined. The lane expansion (codegen/lane_expansion.h) already builds most of these lanes
// as vectors: a run of GEPs 0..n-1 of one n-wide vector joins as that vector.
#pragma once
#include "ir/ops.h"
#include "ir/uop.h"

namespace loupe {

// Element types whose lanes join into vectors (a scalar, not a pointer, with vector ALU ops in C).
bool vector_element(DType t);

struct VectorTarget {
  int vector_bytes = 0;  // width of a vector register; runs are cut to it (and to at least 16 bytes)
  OpSet alu_ops;         // ALU ops the backend computes on whole vectors
  int min_item = 1;      // narrower elements stay scalar (CUDA has float4 and int4, no half8 or char16)
  bool aligned = false;  // a vector access must start at a multiple of its width (CUDA faults otherwise)
  // Whether lanes of this type join into vectors on this target.
  bool joins(DType t) const { return vector_element(t) && t.itemsize() >= min_item; }
};

// A lane's address as (base, constant offset): symbolic and the lane expansion leave `base + c` with
// the constant last; lanes of one base at offsets c, c+1, ... are consecutive elements.
struct AddressParts {
  const UOp* base = nullptr;  // null: the address is the constant alone
  int64_t offset = 0;
};
AddressParts split_address(const UOpPtr& idx);

// Lane k of vector v.
UOpPtr gep(const UOpPtr& v, size_t k);

// A pointer to the `width` consecutive elements that start at INDEX `first` (a vector load or store).
UOpPtr vector_pointer(const UOpPtr& first, int width);

// Applies to a lowered kernel (a SINK of STOREs after expansion and simplification). A target with
// vector_bytes 0 leaves the kernel as it is.
UOpPtr vectorize_stores(const UOpPtr& sink, const VectorTarget& target);

} // namespace loupe
