// The shape of a CPU register tile's row, shared by the heuristics that plan the tile
// (codegen/heuristics.cpp) and the tensor ops that lay out its operands for it
// (tensor/matmul_operands.cpp): the matmul packs its right operand into panels a row wide, which must
// agree with the tile or the packed view's index no longer folds; a convolution lays its weights out
// along the axis the tile's vectors will run.
#pragma once
#include <algorithm>
#include <cstdint>

namespace loupe {

// The columns of a tile row of `item`-byte accumulators over an output axis of `columns`, on a target
// of `registers` vector registers of `vector_bytes`: two vectors, at least 8 columns; with 16 registers
// the preferred row is three, taken where `columns` divides into them (4 rows of 3 vectors fill AVX2's
// 16 registers: 12 accumulators, the row's 3 loads and a broadcast; 4x16 left 5 idle: transformer_block
// 16.5 -> 15.0 ms) or pads to them (cpu_tile_padded_columns). With 32 the 8x32 tile stays: 8 rows of 3
// vectors were slower (qkv 1.7 -> 2.45 ms). 16 columns for a target without vectors of its own (its C
// compiler vectorizes them for AVX2).
inline int64_t cpu_tile_two_vector_columns(int vector_bytes, int64_t item) {
  return vector_bytes > 0 ? std::max<int64_t>(2 * std::max<int64_t>(vector_bytes / item, 1), 8) : 16;
}
inline int64_t cpu_tile_preferred_row_columns(int vector_bytes, int registers, int64_t item) {
  const int64_t lanes = std::max<int64_t>(vector_bytes / item, 1);
  if (vector_bytes > 0 && registers <= 16 && 3 * lanes >= 8) return 3 * lanes;
  return cpu_tile_two_vector_columns(vector_bytes, item);
}
inline int64_t cpu_tile_row_columns(int vector_bytes, int registers, int64_t item, int64_t columns) {
  const int64_t preferred = cpu_tile_preferred_row_columns(vector_bytes, registers, item);
  return columns % preferred == 0 ? preferred : cpu_tile_two_vector_columns(vector_bytes, item);
}

// The columns an output axis of `columns` is padded to for a tile row of `row` (the padded columns are
// computed and thrown away): the next multiple of `row` where that adds at most 1/32 more work, else
// `columns` itself. A matmul's 1024 columns become 1032 for AVX2's 4x24 tile (12 accumulators; the 4x16
// one has 8, as many as the FMA units' latency needs, and stalls on any miss: matmul_2048 84 -> 73 ms).
inline int64_t cpu_tile_padded_columns(int64_t columns, int64_t row) {
  const int64_t padded = (columns + row - 1) / row * row;
  return padded != columns && 32 * (padded - columns) <= columns ? padded : columns;
}

// Whether a tile's vectors run along an operand's contiguous axis of `operand_columns` instead of the
// output's contiguous axis of `output_columns`: where the output's does not fill whole vectors and the
// operand's does (a convolution's 56-pixel rows are 3.5 AVX-512 vectors, its 64 output channels 4). The
// output is then stored lane by lane, once per reduce; the vectors run every step of it.
inline bool cpu_tile_vectors_along_operand(int vector_bytes, int64_t item, int64_t output_columns, int64_t operand_columns) {
  const int64_t lanes = vector_bytes / item;
  return lanes > 1 && output_columns % lanes != 0 && operand_columns % lanes == 0;
}

} // namespace loupe
