#include "tensor/host_data.h"

#include <cmath>
#include <cstring>

#include "support/error.h"

namespace loupe {

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    float af;
    std::memcpy(&af, &abs, 4);
    uint32_t m = static_cast<uint32_t>(std::nearbyint(af * 16777216.0f));  // 2^24
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t mant = abs & 0x7fffffu, exp = (abs >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0) {
    float f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  if (exp == 31) x = sign | 0x7f800000u | (mant << 13);
  else x = sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

float bfloat16_to_float(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

namespace {

// A double to half without rounding twice: the float in between is rounded to odd (truncated, its last
// bit set when inexact), so 65519.999 rounds down to 65504 as numpy does, not up to 65520 and then inf.
uint16_t double_to_half(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return float_to_half(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x |= 1u;
  std::memcpy(&f, &x, 4);
  return float_to_half(f);
}

} // namespace

void pack_value(DType dtype, double fv, int64_t iv, bool is_int, uint8_t* dst) {
  DType s = dtypes::strong(dtype.scalar());
  auto as_int = [&]() -> int64_t {
    if (is_int) return iv;
    if (std::isnan(fv)) return 0;
    if (fv >= 9.2233720368547758e18) return s.is_unsigned() ? static_cast<int64_t>(static_cast<uint64_t>(fv)) : INT64_MAX;
    if (fv <= -9.2233720368547758e18) return INT64_MIN;
    return static_cast<int64_t>(fv);  // truncation toward zero, like a C cast
  };
  auto as_float = [&]() -> double { return is_int ? static_cast<double>(iv) : fv; };
  switch (s.scalar_type) {
  case Scalar::Bool: dst[0] = is_int ? iv != 0 : fv != 0.0; return;
  case Scalar::Int8: case Scalar::UInt8: {
    uint8_t v = static_cast<uint8_t>(as_int());
    std::memcpy(dst, &v, 1);
    return;
  }
  case Scalar::Int16: case Scalar::UInt16: {
    uint16_t v = static_cast<uint16_t>(as_int());
    std::memcpy(dst, &v, 2);
    return;
  }
  case Scalar::Int32: case Scalar::UInt32: {
    uint32_t v = static_cast<uint32_t>(as_int());
    std::memcpy(dst, &v, 4);
    return;
  }
  case Scalar::Int64: case Scalar::UInt64: {
    uint64_t v = static_cast<uint64_t>(as_int());
    std::memcpy(dst, &v, 8);
    return;
  }
  case Scalar::Float16: {
    uint16_t v = double_to_half(as_float());
    std::memcpy(dst, &v, 2);
    return;
  }
  case Scalar::BFloat16: {
    uint16_t v = float_to_bfloat16(static_cast<float>(as_float()));
    std::memcpy(dst, &v, 2);
    return;
  }
  case Scalar::Float32: {
    float v = static_cast<float>(as_float());
    std::memcpy(dst, &v, 4);
    return;
  }
  case Scalar::Float64: {
    double v = as_float();
    std::memcpy(dst, &v, 8);
    return;
  }
  default: LOUPE_ASSERT(false, "cannot pack ", dtype.name());
  }
}

double unpack_double(DType dtype, const uint8_t* src) {
  DType s = dtypes::strong(dtype.scalar());
  switch (s.scalar_type) {
  case Scalar::Float16: {
    uint16_t v;
    std::memcpy(&v, src, 2);
    return half_to_float(v);
  }
  case Scalar::BFloat16: {
    uint16_t v;
    std::memcpy(&v, src, 2);
    return bfloat16_to_float(v);
  }
  case Scalar::Float32: {
    float v;
    std::memcpy(&v, src, 4);
    return v;
  }
  case Scalar::Float64: {
    double v;
    std::memcpy(&v, src, 8);
    return v;
  }
  case Scalar::UInt64: return static_cast<double>(static_cast<uint64_t>(unpack_int(dtype, src)));
  default: return static_cast<double>(unpack_int(dtype, src));
  }
}

int64_t unpack_int(DType dtype, const uint8_t* src) {
  DType s = dtypes::strong(dtype.scalar());
  switch (s.scalar_type) {
  case Scalar::Bool: return src[0] != 0;
  case Scalar::Int8: return static_cast<int8_t>(src[0]);
  case Scalar::UInt8: return src[0];
  case Scalar::Int16: { int16_t v; std::memcpy(&v, src, 2); return v; }
  case Scalar::UInt16: { uint16_t v; std::memcpy(&v, src, 2); return v; }
  case Scalar::Int32: { int32_t v; std::memcpy(&v, src, 4); return v; }
  case Scalar::UInt32: { uint32_t v; std::memcpy(&v, src, 4); return v; }
  case Scalar::Int64: case Scalar::UInt64: { int64_t v; std::memcpy(&v, src, 8); return v; }
  default: return static_cast<int64_t>(unpack_double(dtype, src));
  }
}

} // namespace loupe
