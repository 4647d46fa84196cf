// Vector accesses on targets that fault on misaligned ones (the GPUs; VectorTarget::aligned): after
// the vectorizer, a vector load or store is kept only where its index is provably a multiple of its
// width, and aligned runs of scalar loads that the stores' vectors did not reach join into vectors.
#pragma once
#include "codegen/vectorizer.h"

namespace loupe {

// On targets whose vector accesses must be aligned (VectorTarget::aligned): every vector load or store
// whose index is not provably a multiple of its width (a padded conv's shifted rows, a shrink's odd
// offset) goes back to its lanes, one scalar access each. The rest are left as they are.
UOpPtr split_unaligned_vectors(const UOpPtr& sink, const VectorTarget& target);

// On targets whose vector accesses must be aligned (the GPUs): scalar loads of one global buffer at
// base + c, base + c+1, ... (c a multiple of the width, base provably one too) become one vector load
// and its lanes. They are what the stores' vectors do not reach: a matmul's rows read along its
// unrolled reduce axis, four floats a thread at a time.
UOpPtr join_aligned_loads(const UOpPtr& sink, const VectorTarget& target);

} // namespace loupe
