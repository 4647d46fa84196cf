// Rows a GPU work-group reduces together. A kernel that reads a reduce over its last axis's row (a
// softmax's max and sum of exps, a layer norm's mean and variance) would recompute it in every thread
// of that row; instead the row's elements go to one work-group, whose threads split the reduce between
// them and combine their partials (warp shuffles, shared memory), so each row is read once per reduce
// and the whole softmax is one kernel. The scheduler fuses such reduces where a group can cover the
// row, the GPU heuristics give the row to one group, and the lowerer has the group's threads share
// the reduce's loop. Only on devices with warp shuffles (CUDA): without them each thread would fold
// every lane's partial from shared memory (PoCL's softmax_4096x1024: 15.7 ms in 3 kernels, 25.0 ms
// fused that way).
#pragma once
#include <cstdint>

namespace loupe {

// Rows longer than this are not covered by one work-group (threads x upcast lanes).
constexpr int64_t kCooperativeRowMax = 4096;
// Adjacent elements a thread takes of its row where the row allows (a float4).
constexpr int64_t kCooperativeRowVector = 4;

// The threads of a work-group that share a row of `n` elements: the largest power of two from 32 (a
// warp) to 256 that divides n; 0 where none does (no cooperative reduce).
inline int64_t cooperative_row_lanes(int64_t n) {
  if (n <= 0 || n > kCooperativeRowMax) return 0;
  for (int64_t lanes = 256; lanes >= 32; lanes /= 2)
    if (n % lanes == 0) return lanes;
  return 0;
}

} // namespace loupe
