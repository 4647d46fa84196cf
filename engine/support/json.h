// A small, strict JSON value: parse (RFC 8259, with line:column in every error) and write. Integers
// without a fraction or exponent that fit in int64 stay exact; other numbers are doubles. Objects keep
// their key order. Non-finite doubles are written as the strings "nan", "inf", "-inf" (the CLI
// contract, DESIGN.md §6), and number_or_nonfinite() reads them back.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace loupe::json {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;

enum class Type { Null, Bool, Int, Double, String, Array, Object };
const char* type_name(Type t);  // "null", "boolean", "integer", "number", "string", "array", "object"

class Value {
public:
  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  // Any integer type; an unsigned value beyond int64 becomes a double.
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T i) {
    if constexpr (std::is_unsigned_v<T>) {
      if (static_cast<uint64_t>(i) > static_cast<uint64_t>(INT64_MAX)) {
        v_ = static_cast<double>(i);
        return;
      }
    }
    v_ = static_cast<int64_t>(i);
  }
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(Array a) : v_(std::make_shared<Array>(std::move(a))) {}
  Value(Object o) : v_(std::make_shared<Object>(std::move(o))) {}
  static Value array(std::initializer_list<Value> items = {}) { return Value(Array(items)); }
  static Value object() { return Value(Object{}); }
  static Value ints(const std::vector<int64_t>& xs);

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  bool is_int() const { return type() == Type::Int; }
  bool is_number() const { return type() == Type::Int || type() == Type::Double; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Accessors throw loupe::Error naming the expected and the actual type; `what` (e.g. "field 'ops'")
  // is put in front of the message.
  bool as_bool(std::string_view what = "value") const;
  int64_t as_int(std::string_view what = "value") const;  // also an integral double within int64
  double as_double(std::string_view what = "value") const;
  double number_or_nonfinite(std::string_view what = "value") const;  // a number, or "nan"/"inf"/"-inf"
  const std::string& as_string(std::string_view what = "value") const;
  const Array& as_array(std::string_view what = "value") const;
  const Object& as_object(std::string_view what = "value") const;
  std::vector<int64_t> as_ints(std::string_view what = "value") const;  // an array of integers

  // Objects: find returns null when absent; at throws loupe::Error naming the key.
  const Value* find(std::string_view key) const;
  const Value& at(std::string_view key) const;
  // Appending / setting (the value must be an array / object; set replaces an existing key).
  void push_back(Value v);
  void set(std::string key, Value v);
  size_t size() const;  // elements of an array or members of an object, else 0

  bool operator==(const Value& o) const;

  // Compact text with Python's separators (", " and ": "), one line.
  std::string dump() const;
  void dump_to(std::string& out) const;

private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>> v_;
};

// Parses exactly one JSON value (surrounding whitespace allowed). Throws loupe::Error
// "JSON: <problem> at line L, column C" (columns count bytes from 1).
Value parse(std::string_view text);

// A JSON string literal for s, with quotes and escapes.
std::string quote(std::string_view s);
// A double as JSON text: shortest round-trip form (always with '.' or an exponent); non-finite
// values as the strings "nan", "inf", "-inf" (quoted).
std::string format_number(double d);

} // namespace loupe::json
