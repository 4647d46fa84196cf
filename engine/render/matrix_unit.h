// The matrix units a GPU multiplies small tiles with, one warp (wave) at a time: what the TC opt plans
// for, the WMMA op computes, a renderer spells and the interpreter emulates. Each unit fixes the tile
// (M x N output, K deep), how many lanes hold it, and which element of which matrix each lane's
// fragment register holds (its layout). D[r][c] = C[r][c] + sum over k of A[r][k] * B[k][c], with A
// M x K, B K x N, C and D M x N; inputs half or bfloat16, accumulators float32.
#pragma once
#include <optional>
#include <string>

#include "ir/dtype.h"

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

struct FragmentPlace {
  int row = 0, col = 0;
};

const MatrixUnitShape& matrix_unit_shape(MatrixUnit unit);
// Where element i of lane `lane`'s fragment sits in A (row m, col k), B (row k, col n) and C/D (row m, col n).
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
