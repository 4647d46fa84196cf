// Element types, vectors and pointers, and the type-promotion lattice (current tinygrad's, with the
// weak types that Python scalars take: int8_tensor * 100 stays int8, int32_tensor * 0.5 is float32).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loupe {

enum class Scalar : uint8_t {
  Void, WeakInt, Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, WeakFloat, Float16, BFloat16,
  Float32, Float64,
};
inline constexpr int kNumScalars = 16;

// A value type: scalar element type, vector width, and (for pointers) address space and size.
struct DType {
  Scalar scalar_type = Scalar::Void;
  uint16_t count = 1;       // vector lanes (of the value, or of the pointee for a pointer)
  bool is_ptr = false;
  bool local = false;       // pointer into local (shared) memory
  int64_t ptr_size = -1;    // elements behind the pointer, -1 if unknown

  constexpr DType() = default;
  constexpr DType(Scalar s) : scalar_type(s) {}

  bool operator==(const DType&) const = default;

  DType scalar() const { return DType(scalar_type); }       // element type, no vector, no pointer
  DType base() const;                                        // pointee of a pointer (keeps vector width)
  DType vec(int n) const;
  DType ptr(int64_t size = -1, bool local_mem = false) const;

  int priority() const;
  int itemsize() const;      // bytes of one value (a vector counts all lanes; pointers are 8)
  int bitsize() const;       // of the scalar; weak types report 800 like tinygrad
  bool is_float() const;     // includes weakfloat
  bool is_int() const;       // includes weakint, excludes bool
  bool is_unsigned() const;
  bool is_bool() const { return scalar_type == Scalar::Bool && !is_ptr; }
  bool is_weak() const { return scalar_type == Scalar::WeakInt || scalar_type == Scalar::WeakFloat; }
  bool is_void() const { return scalar_type == Scalar::Void && !is_ptr; }

  std::string name() const;  // tinygrad-style: "float", "int", "float4", "float*" ...
  std::string short_name() const;  // dtype name as in the API: "float32", "int8", "bool"

  // Bounds of the representable values (ints: exact; floats: +-inf are not bounds, use the limits).
  __int128 min_int() const;
  __int128 max_int() const;
  double min_float() const;
  double max_float() const;

  bool operator<(const DType& o) const;  // tinygrad's order: (priority, bitsize, name)
};

namespace dtypes {
inline constexpr DType void_{Scalar::Void};
inline constexpr DType weakint{Scalar::WeakInt};
inline constexpr DType bool_{Scalar::Bool};
inline constexpr DType int8{Scalar::Int8};
inline constexpr DType uint8{Scalar::UInt8};
inline constexpr DType int16{Scalar::Int16};
inline constexpr DType uint16{Scalar::UInt16};
inline constexpr DType int32{Scalar::Int32};
inline constexpr DType uint32{Scalar::UInt32};
inline constexpr DType int64{Scalar::Int64};
inline constexpr DType uint64{Scalar::UInt64};
inline constexpr DType weakfloat{Scalar::WeakFloat};
inline constexpr DType float16{Scalar::Float16};
inline constexpr DType bfloat16{Scalar::BFloat16};
inline constexpr DType float32{Scalar::Float32};
inline constexpr DType float64{Scalar::Float64};
// Index arithmetic is done in weakint (unbounded like Python) until a renderer commits it to int32/int64.
inline constexpr DType index = weakint;
// tinygrad's dtypes.default_float and default_int: what Python floats and ints become. Settable
// (dtypes.default_float = dtypes.half runs a model in half); float32 and int32 unless set.
DType default_float();
DType default_int();
void set_default_float(DType d);  // a float dtype, else loupe::Error
void set_default_int(DType d);    // an int dtype, else loupe::Error

const std::vector<DType>& all_scalars();           // every concrete scalar (no void, no weak)
std::optional<DType> from_name(const std::string& name);  // "float32", "float", "half", "int", "bool", ...
DType least_upper_dtype(const std::vector<DType>& ds);
DType least_upper_float(DType d);
DType strong(DType d);     // weakint -> default_int, weakfloat -> default_float
DType weak_of(DType d);    // float -> weakfloat, int -> weakint
DType sum_acc_dtype(DType d);  // accumulation type of a sum: small ints to int32/uint32, halfs to float32
bool can_represent(DType d, __int128 v);
} // namespace dtypes

} // namespace loupe
