// How a matrix product's operands are laid out before a host device (CPU, LLVM) multiplies them. The
// host's register tile (codegen/heuristics.cpp) reads a row of the right operand as vectors of adjacent
// columns and broadcasts one scalar of the left operand across them; operands that do not suit that are
// copied or computed once first, where the product reads them often enough to pay for it.
#pragma once
#include <utility>

#include "tensor/tensor.h"

namespace loupe {

// x (..., M, K) and w (..., K, N), or values equal to them laid out for the host's tiles; unchanged on
// other devices and for products of few rows.
std::pair<Tensor, Tensor> operands_for_host_tiles(const Tensor& x, const Tensor& w);

// A convolution's weight (cout, cin, *window) as the host's tile reads it for output rows of
// `output_row` pixels: with the output channels adjacent in memory where the tile's vectors run along
// them (cpu_tile_vectors_along_operand: 56-pixel rows on AVX-512); unchanged otherwise.
Tensor conv_weight_for_host_tiles(const Tensor& weight, int64_t groups, int64_t output_row);

} // namespace loupe
