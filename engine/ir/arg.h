// The `arg` of a UOp: a small Python-like value (None, bool, int, float, string, op, tuple) or an
// engine object (a ShapeTracker, kernel info, ...). Structural equality and a stable hash, so UOps
// hash-cons and their keys are the same in every process.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/ops.h"
#include "support/hash.h"

namespace loupe {

// Engine objects carried as args implement this interface.
class ArgObject {
public:
  virtual ~ArgObject() = default;
  virtual const char* kind() const = 0;
  virtual void hash(StableHasher& h) const = 0;
  virtual bool equals(const ArgObject& other) const = 0;  // other has the same kind()
  virtual std::string str() const = 0;
  // A compact text form that the decoder registered for kind() reads back (traces store it).
  virtual std::string encode() const = 0;
};

using ArgDecoder = std::shared_ptr<const ArgObject> (*)(const std::string& text);
// Each ArgObject kind registers its decoder once (e.g. from a static initializer in its .cpp).
void register_arg_kind(const std::string& kind, ArgDecoder decoder);
// Throws loupe::Error naming the kind when it is unknown or the text is malformed.
std::shared_ptr<const ArgObject> decode_arg_object(const std::string& kind, const std::string& text);

class Arg {
public:
  using Tuple = std::vector<Arg>;

  Arg() = default;
  Arg(bool v) : v_(v) {}
  Arg(int v) : v_(int64_t(v)) {}
  Arg(int64_t v) : v_(v) {}
  Arg(uint64_t v) : v_(static_cast<int64_t>(v)) {}
  Arg(double v) : v_(v) {}
  Arg(const char* s) : v_(std::string(s)) {}
  Arg(std::string s) : v_(std::move(s)) {}
  Arg(Ops op) : v_(op) {}
  Arg(Tuple t) : v_(std::make_shared<const Tuple>(std::move(t))) {}
  Arg(std::shared_ptr<const ArgObject> o) : v_(std::move(o)) {}
  static Arg ints(const std::vector<int64_t>& xs);  // a tuple of ints

  bool is_none() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_float() const { return v_.index() == 3; }
  bool is_string() const { return v_.index() == 4; }
  bool is_op() const { return v_.index() == 5; }
  bool is_tuple() const { return v_.index() == 6; }
  bool is_object() const { return v_.index() == 7; }
  bool is_number() const { return is_bool() || is_int() || is_float(); }

  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  double as_double() const;  // any number as a double
  const std::string& as_string() const { return std::get<std::string>(v_); }
  Ops as_op() const { return std::get<Ops>(v_); }
  const Tuple& as_tuple() const { return *std::get<6>(v_); }
  std::vector<int64_t> as_ints() const;  // a tuple of ints
  const ArgObject& as_object() const { return *std::get<7>(v_); }
  template <typename T> const T* object() const {
    return is_object() ? dynamic_cast<const T*>(std::get<7>(v_).get()) : nullptr;
  }

  void hash(StableHasher& h) const;
  bool operator==(const Arg& o) const;
  std::string str() const;  // Python-like: None, True, 3, 2.5, 'x', Ops.ADD, (1, 2)

private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Ops, std::shared_ptr<const Tuple>,
               std::shared_ptr<const ArgObject>>
      v_;
};

std::string format_double(double v);  // shortest text that round-trips; inf, -inf, nan

} // namespace loupe
