// The STAGE opt: a factor of a GPU kernel's sum of products (a TC kernel's A or B, or either load of
// a matmul-like reduce) read through shared memory. Each iteration of the K loop, the threads of a
// work-group copy the operand's whole tile (every value the group will read in that iteration) from
// global into shared memory with 16-byte asynchronous copies (ASYNC_COPY: CUDA's cp.async, coalesced
// along the operand's contiguous axis), wait at a barrier, and then read their values from shared
// memory. Without it a TC kernel's lanes gather their fragments with 2-byte global loads, one of the
// two operands 4096 elements apart per pair.
//
// The tile keeps the operand's own layout: its rows are the tile axes along which the operand is not
// contiguous, each row the contiguous run (padded by 16 bytes, so the lanes of a fragment read fall
// in different banks). A barrier at the top of each iteration keeps the next copies from overwriting
// a tile that slower warps still read. With two stages (STAGE's arg 2) each operand has two tiles:
// the first is copied before the K loop, and each iteration copies the next iteration's tile into
// the other one before it waits for its own, so the copies run while the arithmetic does. Where a
// TC tile's rows allow, a warp reads its fragments with ldmatrix (LOAD_MATRIX: four 8x8 matrices of A
// or two of B per instruction) instead of one 2-byte load per value.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel.h"

namespace loupe {

struct StagedTile {
  DType dtype;
  std::vector<int64_t> shape;          // the kernel's full shape
  std::vector<size_t> outer_axes;      // across rows, row-major (the first axis outermost)
  std::vector<size_t> run_axes;        // along a row, outermost first: contiguous in global memory
  std::vector<int64_t> run_strides;    // their strides, in global memory and along a row alike
  std::vector<size_t> thread_axes;     // the work-group's threads (local axes), the first fastest
  int64_t rows = 1, row_elems = 1, pitch = 1;  // a row holds row_elems values, then padding up to pitch
  int64_t chunk_elems = 1;             // values per 16-byte copy
  int64_t threads = 1, copies_per_thread = 1;
  int64_t bytes() const { return rows * pitch * static_cast<int64_t>(dtype.itemsize()); }
};

// The tile of operand `operand` (StagingUse) for the kernel's current axes; nullopt with the reason
// in *why when it cannot be staged (a masked or non-strided view, no contiguous run of 16 bytes, an
// address not 16-byte aligned, copies that do not divide among the threads).
std::optional<StagedTile> plan_staged_tile(const Kernel& k, int operand, std::string* why = nullptr);

// Lowering (codegen/lowerer.cpp). The shared memory of an operand's tiles (`stages` of them, one after
// the other), the copies of one tile into tile number `slot`, and the value the operand's load reads
// at `idxs` from tile `slot` once `ready` (the barrier after the copies) has passed. Chunk j of thread
// tid is piece j * threads + tid of the tile, so consecutive threads copy consecutive 16 bytes; `idxs`
// are the kernel's axis indices (the K loop's may be another iteration's); `after` (may be null)
// orders the copies after the barrier that ends the reads of the tile they overwrite; `gate` (may be
// null) skips them where false.
UOpPtr staged_tile_memory(const StagedTile& t, int stages, const std::string& name);
UOpList lower_staged_copies(const StagedTile& t, const UOpPtr& smem, const UOpPtr& slot, const UOpPtr& buffer,
                            const ShapeTracker& view, const UOpList& idxs, const UOpPtr& after, const UOpPtr& gate = nullptr);
UOpPtr lower_staged_read(const StagedTile& t, const UOpPtr& smem, const UOpPtr& slot, const UOpList& idxs, const UOpPtr& ready);

// ldmatrix for staged fragments: `reads` are one mma operand's fragment values in the mma's order (8 of
// A or 4 of B), reads of one staged tile. A candidate is the row address each lane gives and whether
// the 8x8 matrices are read transposed; the first one that hands every lane of a warp exactly its
// reads (checked by evaluating the addresses for all 32 lanes, lane = 4 * lane_m + lane_n, with every
// other index at 0 and then one at a time at 1) becomes one LOAD_MATRIX, whose lanes replace the reads.
// nullopt when none does (or a row is not 16-byte aligned).
struct MatrixRows {
  UOpPtr address;  // an element offset into the tile
  bool transposed;
};
std::optional<UOpList> fragments_as_matrices(const UOpList& reads, const std::vector<MatrixRows>& candidates,
                                             const UOpPtr& lane_n, const UOpPtr& lane_m);

} // namespace loupe
