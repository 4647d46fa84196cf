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

FragmentPlace fragment_a_place(MatrixUnit unit, int lane, int i) {
  FragmentAt<int> at = fragment_a_at(unit, lane, i);
  return {at.row, at.col};
}

FragmentPlace fragment_b_place(MatrixUnit unit, int lane, int i) {
  FragmentAt<int> at = fragment_b_at(unit, lane, i);
  return {at.row, at.col};
}

FragmentPlace fragment_c_place(MatrixUnit unit, int lane, int i) {
  FragmentAt<int> at = fragment_c_at(unit, lane, i);
  return {at.row, at.col};
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
