#include "render/cstyle_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "render/cstyle.h"
#include "support/error.h"

namespace loupe {

DType c_resolve(DType d, __int128 lo, __int128 hi) {
  if (d.scalar_type == Scalar::WeakInt) {
    bool fits = lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max();
    d.scalar_type = fits ? Scalar::Int32 : Scalar::Int64;
  } else if (d.scalar_type == Scalar::WeakFloat) {
    d.scalar_type = Scalar::Float32;
  }
  return d;
}

std::string dtype_tag(DType s) {
  std::string t;
  switch (s.scalar_type) {
  case Scalar::Bool: t = "bool"; break;
  case Scalar::Int8: t = "i8"; break;
  case Scalar::UInt8: t = "u8"; break;
  case Scalar::Int16: t = "i16"; break;
  case Scalar::UInt16: t = "u16"; break;
  case Scalar::Int32: t = "i32"; break;
  case Scalar::UInt32: t = "u32"; break;
  case Scalar::Int64: t = "i64"; break;
  case Scalar::UInt64: t = "u64"; break;
  case Scalar::Float16: t = "f16"; break;
  case Scalar::BFloat16: t = "bf16"; break;
  case Scalar::Float32: t = "f32"; break;
  case Scalar::Float64: t = "f64"; break;
  default: LOUPE_ASSERT(false, "no C tag for dtype ", s.name());
  }
  if (s.count > 1) t += "x" + std::to_string(s.count);
  return t;
}

namespace {
std::string with_point(std::string s) {
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}
} // namespace

std::string float_literal(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return with_point(std::string(buf, res.ptr));
}

std::string double_literal(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return with_point(std::string(buf, res.ptr));
}

uint16_t round_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((ax >> 13) & 0x3ffu);  // NaN stays NaN
  if (ax >= 0x47800000u) return sign | 0x7c00u;                                                 // >= 2^16: inf
  if (ax < 0x38800000u) {  // below 2^-14: a half subnormal (or zero) in units of 2^-24
    float a;
    std::memcpy(&a, &ax, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  uint32_t h = ((ax >> 23) - 127 + 15) << 10 | ((ax & 0x7fffffu) >> 13);
  uint32_t rest = ax & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  // a carry may reach the exponent (and inf)
  return sign | static_cast<uint16_t>(h);
}

float half_bits_value(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float mag;
  if (e == 0) mag = std::ldexp(static_cast<float>(m), -24);
  else if (e == 31) mag = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else mag = std::ldexp(static_cast<float>(m | 0x400u), static_cast<int>(e) - 25);
  uint32_t bits;
  std::memcpy(&bits, &mag, 4);
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

uint16_t round_to_bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u);
  else if (u & 0xffffu) u |= 0x10000u;  // a NaN whose payload is all in the low half stays NaN
  return static_cast<uint16_t>(u >> 16);
}

float bf16_bits_value(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace {
std::string int_text(__int128 v, DType t) {
  switch (t.scalar_type) {
  case Scalar::Bool: return v ? "1" : "0";
  case Scalar::Int32:
    if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647-1)";
    return std::to_string(static_cast<int32_t>(v));
  case Scalar::Int64:
    if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807ll-1)";
    return std::to_string(static_cast<int64_t>(v)) + "ll";
  case Scalar::UInt32: return std::to_string(static_cast<uint32_t>(v)) + "u";
  case Scalar::UInt64: return std::to_string(static_cast<uint64_t>(v)) + "ull";
  case Scalar::Int8: return "((signed char)" + std::to_string(static_cast<int8_t>(v)) + ")";
  case Scalar::Int16: return "((short)" + std::to_string(static_cast<int16_t>(v)) + ")";
  case Scalar::UInt8: return "((unsigned char)" + std::to_string(static_cast<uint8_t>(v)) + "u)";
  case Scalar::UInt16: return "((unsigned short)" + std::to_string(static_cast<uint16_t>(v)) + "u)";
  default: LOUPE_ASSERT(false, "integer constant of ", t.name());
  }
  return {};
}

std::string float_text(const CStyleRenderer& r, double v, DType t) {
  switch (t.scalar_type) {
  case Scalar::Float64:
    if (std::isnan(v)) return r.nan(dtypes::float64);
    if (std::isinf(v)) return v > 0 ? r.infinity(dtypes::float64) : "(-" + r.infinity(dtypes::float64) + ")";
    return double_literal(v);
  case Scalar::Float32:
  case Scalar::Float16:
  case Scalar::BFloat16: {
    float f = static_cast<float>(v);
    std::string s;
    if (std::isnan(f)) s = r.nan(dtypes::float32);
    else if (std::isinf(f)) s = f > 0 ? r.infinity(dtypes::float32) : "(-" + r.infinity(dtypes::float32) + ")";
    if (t.scalar_type == Scalar::Float32) return s.empty() ? float_literal(f) + "f" : s;
    if (t.scalar_type == Scalar::Float16) {
      if (s.empty()) s = float_literal(half_bits_value(round_to_half_bits(f))) + "f";
      return "((" + r.scalar_name(t) + ")" + s + ")";
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04xu", round_to_bf16_bits(f));
    return "((" + r.scalar_name(t) + ")" + buf + ")";
  }
  default: LOUPE_ASSERT(false, "float constant of ", t.name());
  }
  return {};
}
} // namespace

std::string c_constant(const CStyleRenderer& r, const Arg& value, DType t) {
  LOUPE_ASSERT(value.is_number(), "constant arg ", value.str());
  t = t.scalar();
  if (t.is_float()) return float_text(r, value.as_double(), t);
  __int128 v;
  if (value.is_bool()) v = value.as_bool();
  else if (value.is_int()) v = t.is_unsigned() ? __int128(static_cast<uint64_t>(value.as_int())) : value.as_int();
  else {  // a float value given to an integer dtype: C conversion semantics (truncation)
    double d = value.as_double();
    v = std::isfinite(d) ? static_cast<__int128>(d) : 0;
  }
  if (t.is_bool()) return v ? "1" : "0";
  return int_text(v, t);
}

namespace {
// The integer type that arithmetic on `t` happens in (C promotes narrow types to int).
bool is_narrow(DType t) { return t.is_int() && t.bitsize() < 32; }
} // namespace

CHelper c_helper(const CStyleRenderer& r, const std::string& kind, DType t, DType to) {
  const std::string& pre = r.lang().helper_prefix;
  std::string T = r.type_name(t), tag = dtype_tag(t);
  auto def = [&](const std::string& name, const std::string& ret, const std::string& params, const std::string& body) {
    return CHelper{name, pre + " " + ret + " " + name + "(" + params + ") { " + body + " }"};
  };
  std::string ab = T + " a, " + T + " b";
  bool sgn = t.is_int() && !t.is_unsigned();
  // Negation that wraps (-INT_MIN == INT_MIN) without signed overflow.
  std::string uneg = t.bitsize() == 64 ? "(" + T + ")(0ull - (unsigned long long)a)" : "(" + T + ")(0u - (unsigned int)a)";
  if (kind == "max") {
    std::string name = "loupe_max_" + tag;
    if (t.is_float()) return def(name, T, ab, "return (a < b || a != a) ? b : a;");  // NaN loses: max(nan, x) = x
    return def(name, T, ab, "return a < b ? b : a;");
  }
  if (kind == "idiv") {
    std::string name = "loupe_idiv_" + tag;
    if (!sgn) return def(name, T, ab, "return b == 0 ? 0 : a / b;");
    if (is_narrow(t)) return def(name, T, ab, "return b == 0 ? 0 : (" + T + ")(a / b);");
    return def(name, T, ab, "return b == 0 ? 0 : b == -1 ? " + uneg + " : a / b;");
  }
  if (kind == "imod") {
    std::string name = "loupe_imod_" + tag;
    if (!sgn) return def(name, T, ab, "return b == 0 ? 0 : a % b;");
    return def(name, T, ab, "return (b == 0 || b == -1) ? 0 : (" + T + ")(a % b);");
  }
  if (kind == "floordiv") {
    std::string name = "loupe_floordiv_" + tag;
    if (!sgn) return def(name, T, ab, "return b == 0 ? 0 : a / b;");
    std::string W = is_narrow(t) ? "int" : T;
    std::string minus1 = is_narrow(t) ? "" : "if (b == -1) return " + uneg + "; ";
    return def(name, T, ab,
               "if (b == 0) return 0; " + minus1 + W + " q = a / b; return (" + T +
                   ")((a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q);");
  }
  if (kind == "floormod") {
    std::string name = "loupe_floormod_" + tag;
    if (t.is_float()) {
      std::string body = T + " m = " + r.math_call("fmod", t, "a, b") + "; if (m != 0) { if ((m < 0) != (b < 0)) m += b; } " +
                         "else m = " + r.math_call("copysign", t, "0, b") + "; return m;";
      return def(name, T, ab, body);
    }
    if (!sgn) return def(name, T, ab, "return b == 0 ? 0 : a % b;");
    return def(name, T, ab,
               "if (b == 0 || b == -1) return 0; " + T + " m = (" + T + ")(a % b); return (m != 0 && (m < 0) != (b < 0)) ? (" +
                   T + ")(m + b) : m;");
  }
  if (kind == "bitcast") {
    std::string name = "loupe_bitcast_" + tag + "_" + dtype_tag(to), To = r.type_name(to);
    return def(name, To, T + " x", To + " y; __builtin_memcpy(&y, &x, sizeof y); return y;");
  }
  if (kind == "f2bf") {
    std::string BF = r.scalar_name(dtypes::bfloat16);
    return def("loupe_f2bf", BF, "float f",
               "unsigned int u; __builtin_memcpy(&u, &f, 4); if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + "
               "((u >> 16) & 1u); else if (u & 0xffffu) u |= 0x10000u; return (" + BF + ")(u >> 16);");
  }
  if (kind == "bf2f") {
    std::string BF = r.scalar_name(dtypes::bfloat16);
    return def("loupe_bf2f", "float", BF + " b",
               "unsigned int u = (unsigned int)b << 16; float f; __builtin_memcpy(&f, &u, 4); return f;");
  }
  LOUPE_ASSERT(false, "unknown helper ", kind);
  return {};
}

std::string join_text(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string paren_if_negative(std::string_view s) { return !s.empty() && s[0] == '-' ? join_text({"(", s, ")"}) : std::string(s); }

bool one_group(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  int depth = 0;
  for (size_t i = 0; i + 1 < s.size(); i++) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0) return false;  // the first '(' closes before the end: not one outer pair
  }
  return true;
}

std::string strip_parens(const std::string& s) { return one_group(s) ? s.substr(1, s.size() - 2) : s; }

bool is_primary(const std::string& s) {
  if (s.empty()) return false;
  if (one_group(s)) return true;
  size_t i = 0;
  if (s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0]))) {
    for (i = 1; i < s.size(); i++)
      if (!std::isalnum(static_cast<unsigned char>(s[i])) && s[i] != '.' && s[i] != '+') return false;
    return true;
  }
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) i++;
  if (i == 0) return false;
  if (i == s.size()) return true;
  if (s[i] == '[') return s.find(']') == s.size() - 1;
  return s[i] == '(' && one_group(std::string_view(s).substr(i));
}

} // namespace loupe
