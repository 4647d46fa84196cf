// Python's argument binding for the script's built-in functions and methods: positional and keyword
// arguments matched against a signature (required, defaulted, *args, keyword-only), with Python's
// errors ("reshape() missing required argument: 'shape'"), and checked conversions of the bound
// values to C++ types whose errors name the function and the argument.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "script/interpreter.h"
#include "script/value.h"

namespace loupe::script {

struct Param {
  enum class Kind { Required, Optional, Star, KwOnly } kind = Kind::Required;
  std::string name;
  Value dflt;
};
inline Param req(std::string name) { return {Param::Kind::Required, std::move(name), {}}; }
inline Param opt(std::string name, Value dflt = {}) { return {Param::Kind::Optional, std::move(name), std::move(dflt)}; }
inline Param star(std::string name) { return {Param::Kind::Star, std::move(name), {}}; }
inline Param kwonly(std::string name, Value dflt = {}) { return {Param::Kind::KwOnly, std::move(name), std::move(dflt)}; }

struct Signature {
  std::string name;  // as the user wrote it: "reshape", "Tensor.arange"
  std::vector<Param> params;
  std::string render() const;  // "reshape(shape, *args)"
};

class Args {
public:
  // Binds or throws loupe::Error like Python's TypeError.
  Args(const Signature& sig, const std::vector<Value>& positional, const KwArgs& keywords);

  const Value& operator[](const std::string& name) const;
  bool given(const std::string& name) const;  // passed by the caller (not the default)
  const std::string& fn() const { return sig_->name; }

  // "reshape: argument 'dim' must be an int, not float"
  [[noreturn]] void fail(const std::string& name, const std::string& problem) const;

  int64_t int64(const std::string& name) const;                    // an int (or bool) within int64
  std::optional<int64_t> opt_int64(const std::string& name) const;  // None or an int
  bool flag(const std::string& name) const;                        // a bool (or an int used as one)
  double real(const std::string& name) const;                      // any number
  std::string str(const std::string& name) const;
  std::optional<std::string> opt_str(const std::string& name) const;
  std::vector<int64_t> int_list(const std::string& name) const;    // a tuple/list of ints
  // tinygrad's argfix: f(2, 3) or f((2, 3)) — `first` and the *args in `rest` as one list of values
  Items argfix(const std::string& first, const std::string& rest) const;
  // the same for a signature that is only *args: f(2, 3), f((2, 3)) or f()
  Items argfix(const std::string& star) const;

private:
  const Signature* sig_;
  std::vector<Value> values_;
  std::vector<bool> given_;
};

// Conversions shared by the tensor layer: an int within int64, or a loupe::Error naming `what`.
int64_t to_int64(const Value& v, const std::string& what);

} // namespace loupe::script
