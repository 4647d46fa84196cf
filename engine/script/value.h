// Values of the tensor-script interpreter: Python's None, bool, int (128-bit here), float, str,
// Ellipsis, tuple, list and slice, plus opaque host objects (tensors, dtypes, bound methods) that a
// Host implements. Arithmetic on plain Python values follows Python exactly (floor // and %, true
// division, 2**63 as an int, ZeroDivisionError) and lives here; anything involving a host object
// goes to the Host (interpreter.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "script/ast.h"

namespace loupe::script {

// A host object: the interpreter only asks its name; the Host gives it behaviour.
struct Object {
  virtual ~Object() = default;
  virtual std::string type_name() const = 0;
  virtual std::string repr() const { return "<" + type_name() + ">"; }
};
using ObjectPtr = std::shared_ptr<Object>;

class Value;
using Items = std::vector<Value>;

class Value {
public:
  enum class Kind { None, Bool, Int, Float, Str, Ellipsis, Tuple, List, Slice, Object };

  Value() = default;  // None
  static Value none() { return Value(); }
  static Value boolean(bool b);
  static Value integer(PyInt i);
  static Value real(double d);
  static Value str(std::string s);
  static Value ellipsis();
  static Value tuple(Items items);
  static Value list(Items items);
  static Value slice(Value start, Value stop, Value step);
  static Value object(ObjectPtr obj);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }           // an int proper (not a bool)
  bool is_integral() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }  // usable as an int
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_number() const { return is_integral() || is_float(); }
  bool is_str() const { return kind_ == Kind::Str; }
  bool is_seq() const { return kind_ == Kind::Tuple || kind_ == Kind::List; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_object() const { return kind_ == Kind::Object; }

  bool as_bool() const { return i_ != 0; }  // Bool or Int
  PyInt as_int() const { return i_; }       // Bool or Int
  double as_float() const;                  // any number
  const std::string& as_str() const { return *s_; }
  const Items& items() const { return *items_; }  // Tuple, List; Slice: {start, stop, step}
  const ObjectPtr& object() const { return obj_; }
  template <typename T> T* object_as() const { return dynamic_cast<T*>(obj_.get()); }

private:
  Kind kind_ = Kind::None;
  PyInt i_ = 0;
  double f_ = 0;
  std::shared_ptr<const std::string> s_;
  std::shared_ptr<const Items> items_;
  ObjectPtr obj_;
};

// Python's names and reprs: type_name(1.5) == "float", repr(Value::str("a")) == "'a'".
std::string type_name(const Value& v);
std::string repr(const Value& v);
std::string int_str(PyInt v);
std::string float_repr(double d);  // like Python's repr(float): shortest round-trip, "2.0", "1e+16", "inf"
std::string str_repr(const std::string& s);

// Python semantics on non-object values; loupe::Error without a location on a Python error
// (TypeError, ZeroDivisionError, overflow beyond 128 bits, ...).
Value py_binary(BinOp op, const Value& a, const Value& b);
Value py_unary(UnOp op, const Value& a);
Value py_subscript(const Value& seq, const Value& index);  // tuple, list, str by int or slice
bool py_equal(const Value& a, const Value& b);

// Python's slice.indices(): start, stop, step resolved against a length (step != 0).
struct SliceRange {
  int64_t start, stop, step, count;
};
SliceRange resolve_slice(const Value& slice, int64_t length);

} // namespace loupe::script
