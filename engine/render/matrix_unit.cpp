#include "render/matrix_unit.h"

#include "support/error.h"

namespace loupe {

namespace {
const MatrixUnitShape kNone{};
const MatrixUnitShape kMma{16, 8, 16, 32, 8, 4, 4};
const MatrixUnitShape kWmma{16, 16, 16, 32, 16, 16, 8};
const MatrixUnitShape kMfma{16, 16, 16, 64, 4, 4, 4};

// The input-type part of a kind string: "f16" or "bf16".
std::string input_tag(DType in) { return in == dtypes::bfloat16 ? "bf16" : "f16"; }
} // namespace

const MatrixUnitShape& matrix_unit_shape(MatrixUnit unit) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return kMma;
  case MatrixUnit::wmma_16x16x16_w32: return kWmma;
  case MatrixUnit::mfma_16x16x16_w64: return kMfma;
  case MatrixUnit::none: break;
  }
  return kNone;
}

// mma.m16n8k16: lane l is thread t = l%4 of row group g = l/4 in each 8x8 block. A: rows g + 8*((i>>1)&1),
// columns 2t + (i&1) + 8*(i>>2); B: rows 2t + (i&1) + 8*(i>>1), column g; C: rows g + 8*(i>>1), columns 2t + (i&1).
// RDNA3 WMMA (wave32): lanes 16-31 repeat lanes 0-15's A and B. A: row l%16, column i; B: row i,
// column l%16; C: row 2i + l/16, column l%16 (8 rows per lane, interleaved between the two half-waves).
// CDNA3 MFMA 16x16x16 (wave64): the four 16-lane quarters q = l/16 hold K (A, B) and M (C) in fours.
// A: row l%16, column 4q + i; B: row 4q + i, column l%16; C: row 4q + i, column l%16.
FragmentPlace fragment_a_place(MatrixUnit unit, int lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return {lane / 4 + 8 * ((i >> 1) & 1), 2 * (lane % 4) + (i & 1) + 8 * (i >> 2)};
  case MatrixUnit::wmma_16x16x16_w32: return {lane % 16, i};
  case MatrixUnit::mfma_16x16x16_w64: return {lane % 16, 4 * (lane / 16) + i};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}

FragmentPlace fragment_b_place(MatrixUnit unit, int lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return {2 * (lane % 4) + (i & 1) + 8 * (i >> 1), lane / 4};
  case MatrixUnit::wmma_16x16x16_w32: return {i, lane % 16};
  case MatrixUnit::mfma_16x16x16_w64: return {4 * (lane / 16) + i, lane % 16};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}

FragmentPlace fragment_c_place(MatrixUnit unit, int lane, int i) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return {lane / 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1)};
  case MatrixUnit::wmma_16x16x16_w32: return {2 * i + lane / 16, lane % 16};
  case MatrixUnit::mfma_16x16x16_w64: return {4 * (lane / 16) + i, lane % 16};
  case MatrixUnit::none: break;
  }
  throw InternalError("a fragment of no matrix unit");
}

std::string matrix_op_kind(MatrixUnit unit, DType in) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return "m16n8k16_" + input_tag(in) + "_f32";
  case MatrixUnit::wmma_16x16x16_w32: return "wmma_16x16x16_" + input_tag(in) + "_f32_w32";
  case MatrixUnit::mfma_16x16x16_w64: return "mfma_16x16x16_" + input_tag(in) + "_f32_w64";
  case MatrixUnit::none: break;
  }
  throw InternalError("a WMMA of no matrix unit");
}

std::optional<MatrixOpKind> matrix_op_of_kind(const std::string& kind) {
  for (MatrixUnit u : {MatrixUnit::mma_m16n8k16, MatrixUnit::wmma_16x16x16_w32, MatrixUnit::mfma_16x16x16_w64})
    for (DType in : {dtypes::float16, dtypes::bfloat16})
      if (matrix_op_kind(u, in) == kind) return MatrixOpKind{u, in};
  return std::nullopt;
}

std::string matrix_unit_name(MatrixUnit unit) {
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return "mma.sync m16n8k16 (warp of 32)";
  case MatrixUnit::wmma_16x16x16_w32: return "WMMA 16x16x16 (wave32)";
  case MatrixUnit::mfma_16x16x16_w64: return "MFMA 16x16x16 (wave64)";
  case MatrixUnit::none: break;
  }
  return "none";
}

} // namespace loupe
