#include "ir/dtype.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "support/error.h"

namespace loupe {

namespace {
struct ScalarInfo {
  int priority, bits;
  const char* c_name;   // tinygrad's DType.name
  const char* api_name; // dtypes.<api_name>
};

const ScalarInfo& info(Scalar s) {
  static const ScalarInfo table[kNumScalars] = {
      {-1, 0, "void", "void"},
      {0, 800, "weakint", "weakint"},
      {0, 1, "bool", "bool"},
      {1, 8, "signed char", "int8"},
      {2, 8, "unsigned char", "uint8"},
      {3, 16, "short", "int16"},
      {4, 16, "unsigned short", "uint16"},
      {5, 32, "int", "int32"},
      {6, 32, "unsigned int", "uint32"},
      {7, 64, "long", "int64"},
      {8, 64, "unsigned long", "uint64"},
      {9, 800, "weakfloat", "weakfloat"},
      {12, 16, "half", "float16"},
      {13, 16, "__bf16", "bfloat16"},
      {14, 32, "float", "float32"},
      {15, 64, "double", "float64"},
  };
  return table[static_cast<int>(s)];
}
} // namespace

DType DType::base() const {
  DType d = *this;
  d.is_ptr = false;
  d.local = false;
  d.ptr_size = -1;
  return d;
}

DType DType::vec(int n) const {
  LOUPE_ASSERT(!is_ptr || count == 1 || n == 1, "vec of a vector pointer");
  if (n == 1) return *this;
  LOUPE_ASSERT(count == 1, "vec of a vector ", name());
  DType d = *this;
  d.count = static_cast<uint16_t>(n);
  return d;
}

DType DType::ptr(int64_t size, bool local_mem) const {
  DType d = *this;
  d.is_ptr = true;
  d.local = local_mem;
  d.ptr_size = size;
  return d;
}

int DType::priority() const { return info(scalar_type).priority; }
int DType::bitsize() const { return info(scalar_type).bits; }

int DType::itemsize() const {
  if (is_ptr) return 8;
  int bits = bitsize();
  if (is_weak()) bits = scalar_type == Scalar::WeakInt ? 32 : 32;  // materialized as int32 / float32
  return std::max(1, bits / 8) * count;
}

bool DType::is_float() const {
  switch (scalar_type) {
  case Scalar::WeakFloat: case Scalar::Float16: case Scalar::BFloat16: case Scalar::Float32: case Scalar::Float64:
    return !is_ptr;
  default: return false;
  }
}

bool DType::is_int() const {
  switch (scalar_type) {
  case Scalar::WeakInt: case Scalar::Int8: case Scalar::UInt8: case Scalar::Int16: case Scalar::UInt16:
  case Scalar::Int32: case Scalar::UInt32: case Scalar::Int64: case Scalar::UInt64:
    return !is_ptr;
  default: return false;
  }
}

bool DType::is_unsigned() const {
  switch (scalar_type) {
  case Scalar::UInt8: case Scalar::UInt16: case Scalar::UInt32: case Scalar::UInt64: return !is_ptr;
  default: return false;
  }
}

std::string DType::name() const {
  std::string n = info(scalar_type).c_name;
  if (count > 1) n += std::to_string(count);
  if (is_ptr) n += local ? "*local" : "*";
  return n;
}

std::string DType::short_name() const {
  std::string n = info(scalar_type).api_name;
  if (count > 1) n += "x" + std::to_string(count);
  if (is_ptr) n += "*";
  return n;
}

__int128 DType::min_int() const {
  switch (scalar_type) {
  case Scalar::Bool: case Scalar::UInt8: case Scalar::UInt16: case Scalar::UInt32: case Scalar::UInt64: return 0;
  case Scalar::Int8: return -128;
  case Scalar::Int16: return -32768;
  case Scalar::Int32: return std::numeric_limits<int32_t>::min();
  case Scalar::Int64: return std::numeric_limits<int64_t>::min();
  default: return -(__int128(1) << 63) * 2;  // weakint and floats: "unbounded" (2^64)
  }
}

__int128 DType::max_int() const {
  switch (scalar_type) {
  case Scalar::Bool: return 1;
  case Scalar::UInt8: return 255;
  case Scalar::UInt16: return 65535;
  case Scalar::UInt32: return std::numeric_limits<uint32_t>::max();
  case Scalar::UInt64: return std::numeric_limits<uint64_t>::max();
  case Scalar::Int8: return 127;
  case Scalar::Int16: return 32767;
  case Scalar::Int32: return std::numeric_limits<int32_t>::max();
  case Scalar::Int64: return std::numeric_limits<int64_t>::max();
  default: return (__int128(1) << 63) * 2;
  }
}

double DType::min_float() const { return -max_float(); }
double DType::max_float() const {
  switch (scalar_type) {
  case Scalar::Float16: return 65504.0;
  case Scalar::BFloat16: return 3.3895313892515355e38;
  case Scalar::Float32: return std::numeric_limits<float>::max();
  default: return std::numeric_limits<double>::max();
  }
}

bool DType::operator<(const DType& o) const {
  auto key = [](const DType& d) { return std::make_tuple(d.priority(), d.bitsize(), d.name(), d.count, d.is_ptr); };
  return key(*this) < key(o);
}

namespace dtypes {

const std::vector<DType>& all_scalars() {
  static const std::vector<DType> all = {bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
                                         float16, bfloat16, float32, float64};
  return all;
}

namespace {
std::atomic<Scalar> default_float_scalar{Scalar::Float32};
std::atomic<Scalar> default_int_scalar{Scalar::Int32};
} // namespace

DType default_float() { return DType(default_float_scalar.load(std::memory_order_relaxed)); }
DType default_int() { return DType(default_int_scalar.load(std::memory_order_relaxed)); }

void set_default_float(DType d) {
  if (!d.is_float() || d.is_weak() || d.count != 1 || d.is_ptr)
    throw Error(cat("default_float must be a float dtype (float16, bfloat16, float32, float64), not ", d.name()));
  default_float_scalar.store(d.scalar_type);
}

void set_default_int(DType d) {
  if (!d.is_int() || d.is_weak() || d.count != 1 || d.is_ptr)
    throw Error(cat("default_int must be an integer dtype, not ", d.name()));
  default_int_scalar.store(d.scalar_type);
}

std::optional<DType> from_name(const std::string& n) {
  static const std::map<std::string, DType> names = {
      {"bool", bool_}, {"int8", int8}, {"char", int8}, {"uint8", uint8}, {"uchar", uint8}, {"int16", int16},
      {"short", int16}, {"uint16", uint16}, {"ushort", uint16}, {"int32", int32}, {"int", int32},
      {"uint32", uint32}, {"uint", uint32}, {"int64", int64}, {"long", int64}, {"uint64", uint64},
      {"ulong", uint64}, {"float16", float16}, {"half", float16}, {"bfloat16", bfloat16}, {"float32", float32},
      {"float", float32}, {"float64", float64}, {"double", float64}, {"weakint", weakint},
      {"weakfloat", weakfloat}};
  if (n == "default_float") return default_float();
  if (n == "default_int") return default_int();
  auto it = names.find(n);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

namespace {
const std::vector<DType>& parents(DType d) {
  static const std::map<Scalar, std::vector<DType>> lattice = {
      {Scalar::Bool, {weakint}},      {Scalar::WeakInt, {int8, uint8}},    {Scalar::Int8, {int16}},
      {Scalar::Int16, {int32}},       {Scalar::Int32, {int64}},            {Scalar::Int64, {weakfloat}},
      {Scalar::UInt8, {int16, uint16}}, {Scalar::UInt16, {int32, uint32}}, {Scalar::UInt32, {int64, uint64}},
      {Scalar::UInt64, {weakfloat}},  {Scalar::WeakFloat, {float16, bfloat16}}, {Scalar::Float16, {float32}},
      {Scalar::BFloat16, {float32}},  {Scalar::Float32, {float64}},        {Scalar::Float64, {}}};
  auto it = lattice.find(d.scalar_type);
  LOUPE_ASSERT(it != lattice.end(), "no promotion for ", d.name());
  return it->second;
}

void ancestors(DType d, std::set<Scalar>& out) {
  if (!out.insert(d.scalar_type).second) return;
  for (DType p : parents(d)) ancestors(p, out);
}
} // namespace

DType least_upper_dtype(const std::vector<DType>& ds) {
  LOUPE_ASSERT(!ds.empty(), "least_upper_dtype of nothing");
  std::set<Scalar> common;
  ancestors(ds[0].scalar(), common);
  for (size_t i = 1; i < ds.size(); i++) {
    std::set<Scalar> a, both;
    ancestors(ds[i].scalar(), a);
    std::set_intersection(common.begin(), common.end(), a.begin(), a.end(), std::inserter(both, both.begin()));
    common = std::move(both);
  }
  // weak types stand for Python numbers: two strong dtypes meet at a strong one (int64 and uint64 at
  // float16, as tinygrad's lattice has it), never at a weak float that would become default_float
  bool any_weak = std::any_of(ds.begin(), ds.end(), [](DType d) { return d.scalar().is_weak(); });
  if (!any_weak) std::erase_if(common, [](Scalar s) { return DType(s).is_weak(); });
  LOUPE_ASSERT(!common.empty(), "no common dtype");
  DType best(*common.begin());
  for (Scalar s : common)
    if (DType(s) < best) best = DType(s);
  return best;
}

DType least_upper_float(DType d) {
  if (d == weakint) return weakfloat;
  if (d.is_float()) return d;
  return least_upper_dtype({d, default_float()});
}

DType strong(DType d) {
  if (d.scalar_type == Scalar::WeakInt) return default_int().vec(d.count);
  if (d.scalar_type == Scalar::WeakFloat) return default_float().vec(d.count);
  return d;
}

DType weak_of(DType d) {
  if (d.is_float()) return weakfloat;
  if (d.is_int()) return weakint;
  return d;
}

DType sum_acc_dtype(DType d) {
  if (d.is_unsigned()) return least_upper_dtype({d, uint32});
  if (d.is_int() || d.is_bool()) return least_upper_dtype({strong(d.scalar()), int32});
  return least_upper_dtype({strong(d.scalar()), float32});
}

bool can_represent(DType d, __int128 v) { return v >= d.min_int() && v <= d.max_int(); }

} // namespace dtypes
} // namespace loupe
