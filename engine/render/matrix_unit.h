// The matrix units a GPU multiplies small tiles with, one warp (wave) at a time: what the TC opt plans
// for, the WMMA op computes, a renderer spells and the interpreter emulates. Each unit fixes the tile
// (M x N output, K deep), how many lanes hold it, and which element of which matrix each lane's
// fragment register holds (its layout). D[r][c] = C[r][c] + sum over k of A[r][k] * B[k][c], with A
// M x K, B K x N, C and D M x N; inputs half or bfloat16, accumulators float32.
#pragma once
#include <optional>
#include <string>

#include "ir/dtype.h"
#include "ir/uop.h"
#include "support/error.h"

namespace loupe {

enum class MatrixUnit {
  none,
  mma_m16n8k16,       // NVIDIA sm_80+: mma.sync.m16n8k16, warps of 32 (PTX ISA, "Matrix Fragments for mma.m16n8k16")
  wmma_16x16x16_w32,  // AMD RDNA3 (gfx11): v_wmma_f32_16x16x16_{f16,bf16} in wave32 (RDNA3 ISA, "WMMA")
  mfma_16x16x16_w64,  // AMD CDNA3 (gfx94x): v_mfma_f32_16x16x16{f16,bf16_1k} in wave64 (CDNA3 ISA, "MFMA")
};

struct MatrixUnitShape {
  int m = 0, n = 0, k = 0;  // the tile
  int lanes = 0;            // the warp or wave that holds it
  int a = 0, b = 0, c = 0;  // fragment elements per lane of A, B and C (= D)
};

const MatrixUnitShape& matrix_unit_shape(MatrixUnit unit);

struct FragmentPlace {
  int row = 0, col = 0;
};

// Where element i of lane `lane`'s fragment sits in A (row m, col k), B (row k, col n) and C/D (row m,
// col n). One layout for both uses: `lane` is a lane number (the interpreter, FragmentPlace) or a lane
// id expression (the lowerer gathering a lane's fragments, FragmentAt<UOpPtr>).
template <class Lane>
struct FragmentAt {
  Lane row, col;
};
inline int fragment_floordiv(int lane, int d) { return lane / d; }  // lanes are never negative
inline int fragment_floormod(int lane, int d) { return lane % d; }
inline int fragment_constant(int, int v) { return v; }
inline UOpPtr fragment_floordiv(const UOpPtr& lane, int d) { return floordiv(lane, d); }
inline UOpPtr fragment_floormod(const UOpPtr& lane, int d) { return floormod(lane, d); }
inline UOpPtr fragment_constant(const UOpPtr&, int v) { return UOp::cnst_int(dtypes::index, v); }

// mma.m16n8k16: lane l is thread t = l%4 of row group g = l/4 in each 8x8 block. A: rows g + 8*((i>>1)&1),
// columns 2t + (i&1) + 8*(i>>2); B: rows 2t + (i&1) + 8*(i>>1), column g; C: rows g + 8*(i>>1), columns 2t + (i&1).
// RDNA3 WMMA (wave32): lanes 16-31 repeat lanes 0-15's A and B. A: row l%16, column i; B: row i,
// column l%16; C: row 2i + l/16, column l%16 (8 rows per lane, interleaved between the two half-waves).
// CDNA3 MFMA 16x16x16 (wave64): the four 16-lane quarters q = l/16 hold K (A, B) and M (C) in fours.
// A: row l%16, column 4q + i; B: row 4q + i, column l%16; C: row 4q + i, column l%16.
template <class Lane>
FragmentAt<Lane> fragment_a_at(MatrixUnit unit, const Lane& lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16:
    return {fragment_floordiv(lane, 4) + 8 * ((i >> 1) & 1), fragment_floormod(lane, 4) * 2 + ((i & 1) + 8 * (i >> 2))};
  case MatrixUnit::wmma_16x16x16_w32: return {fragment_floormod(lane, 16), fragment_constant(lane, i)};
  case MatrixUnit::mfma_16x16x16_w64: return {fragment_floormod(lane, 16), fragment_floordiv(lane, 16) * 4 + i};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}
template <class Lane>
FragmentAt<Lane> fragment_b_at(MatrixUnit unit, const Lane& lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return {fragment_floormod(lane, 4) * 2 + ((i & 1) + 8 * (i >> 1)), fragment_floordiv(lane, 4)};
  case MatrixUnit::wmma_16x16x16_w32: return {fragment_constant(lane, i), fragment_floormod(lane, 16)};
  case MatrixUnit::mfma_16x16x16_w64: return {fragment_floordiv(lane, 16) * 4 + i, fragment_floormod(lane, 16)};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}
template <class Lane>
FragmentAt<Lane> fragment_c_at(MatrixUnit unit, const Lane& lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return {fragment_floordiv(lane, 4) + 8 * (i >> 1), fragment_floormod(lane, 4) * 2 + (i & 1)};
  case MatrixUnit::wmma_16x16x16_w32: return {fragment_floordiv(lane, 16) + 2 * i, fragment_floormod(lane, 16)};
  case MatrixUnit::mfma_16x16x16_w64: return {fragment_floordiv(lane, 16) * 4 + i, fragment_floormod(lane, 16)};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}

FragmentPlace fragment_a_place(MatrixUnit unit, int lane, int i);
FragmentPlace fragment_b_place(MatrixUnit unit, int lane, int i);
FragmentPlace fragment_c_place(MatrixUnit unit, int lane, int i);

// The WMMA op's arg for a unit and input type ("m16n8k16_f16_f32", "wmma_16x16x16_bf16_f32_w32", ...):
// its operands are the lane's A, B and C fragment elements in that order, its dtype float32 x c.
std::string matrix_op_kind(MatrixUnit unit, DType in);
// The unit and input type of a WMMA arg; nullopt for an arg no unit has.
struct MatrixOpKind {
  MatrixUnit unit = MatrixUnit::none;
  DType in;
};
std::optional<MatrixOpKind> matrix_op_of_kind(const std::string& kind);
std::string matrix_unit_name(MatrixUnit unit);

} // namespace loupe
