#include "support/json.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "support/error.h"
#include "support/terminal_text.h"

namespace loupe::json {

const char* type_name(Type t) {
  switch (t) {
  case Type::Null: return "null";
  case Type::Bool: return "boolean";
  case Type::Int: return "integer";
  case Type::Double: return "number";
  case Type::String: return "string";
  case Type::Array: return "array";
  case Type::Object: return "object";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_type(std::string_view what, const char* want, Type got) {
  throw Error(cat(what, " must be ", want, ", not ", type_name(got)));
}
} // namespace

Value Value::ints(const std::vector<int64_t>& xs) {
  Array a;
  a.reserve(xs.size());
  for (int64_t x : xs) a.emplace_back(x);
  return Value(std::move(a));
}

bool Value::as_bool(std::string_view what) const {
  if (!is_bool()) wrong_type(what, "a boolean", type());
  return std::get<bool>(v_);
}

int64_t Value::as_int(std::string_view what) const {
  if (is_int()) return std::get<int64_t>(v_);
  if (type() == Type::Double) {
    double d = std::get<double>(v_);
    // 2^63 is exactly representable; anything at or above it does not fit.
    if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
      return static_cast<int64_t>(d);
    throw Error(cat(what, " must be an integer, not ", format_number(d)));
  }
  wrong_type(what, "an integer", type());
}

double Value::as_double(std::string_view what) const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(v_));
  if (type() == Type::Double) return std::get<double>(v_);
  wrong_type(what, "a number", type());
}

double Value::number_or_nonfinite(std::string_view what) const {
  if (is_string()) {
    const std::string& s = std::get<std::string>(v_);
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    throw Error(cat(what, " must be a number or \"nan\", \"inf\", \"-inf\", not the string ", quote(s)));
  }
  return as_double(what);
}

const std::string& Value::as_string(std::string_view what) const {
  if (!is_string()) wrong_type(what, "a string", type());
  return std::get<std::string>(v_);
}

const Array& Value::as_array(std::string_view what) const {
  if (!is_array()) wrong_type(what, "an array", type());
  return *std::get<std::shared_ptr<Array>>(v_);
}

const Object& Value::as_object(std::string_view what) const {
  if (!is_object()) wrong_type(what, "an object", type());
  return *std::get<std::shared_ptr<Object>>(v_);
}

std::vector<int64_t> Value::as_ints(std::string_view what) const {
  const Array& a = as_array(what);
  std::vector<int64_t> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); i++) out.push_back(a[i].as_int(cat(what, "[", i, "]")));
  return out;
}

const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : as_object())
    if (k == key) return &v;
  return nullptr;
}

const Value& Value::at(std::string_view key) const {
  if (!is_object()) wrong_type(cat("looking up \"", key, "\": the value"), "an object", type());
  if (const Value* v = find(key)) return *v;
  throw Error(cat("missing field \"", key, "\""));
}

// Copies share arrays and objects until one of them is modified (copy on write).
void Value::push_back(Value v) {
  if (!is_array()) wrong_type("push_back target", "an array", type());
  auto& p = std::get<std::shared_ptr<Array>>(v_);
  if (p.use_count() > 1) p = std::make_shared<Array>(*p);
  p->push_back(std::move(v));
}

void Value::set(std::string key, Value v) {
  if (!is_object()) wrong_type("set target", "an object", type());
  auto& p = std::get<std::shared_ptr<Object>>(v_);
  if (p.use_count() > 1) p = std::make_shared<Object>(*p);
  for (auto& [k, old] : *p)
    if (k == key) {
      old = std::move(v);
      return;
    }
  p->emplace_back(std::move(key), std::move(v));
}

size_t Value::size() const {
  if (is_array()) return as_array().size();
  if (is_object()) return as_object().size();
  return 0;
}

bool Value::operator==(const Value& o) const {
  if (is_number() && o.is_number()) {
    if (is_int() && o.is_int()) return std::get<int64_t>(v_) == std::get<int64_t>(o.v_);
    return as_double() == o.as_double();
  }
  if (type() != o.type()) return false;
  switch (type()) {
  case Type::Null: return true;
  case Type::Bool: return as_bool() == o.as_bool();
  case Type::String: return as_string() == o.as_string();
  case Type::Array: return as_array() == o.as_array();
  case Type::Object: return as_object() == o.as_object();
  default: return false;
  }
}

// ---------------------------------------------------------------------------------------------- writer

// Besides what JSON requires, DEL, C1 and bidirectional controls are written as \u escapes, and a byte
// that is not UTF-8 as U+FFFD: the text stays valid JSON and prints safely on a terminal (the strings
// may come from a trace, support/terminal_text.h).
std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  char buf[8];
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      uint32_t cp = 0;
      const size_t n = utf8_sequence(s, i, cp);
      if (n == 0) {
        out += "\\ufffd";
        i++;
      } else {
        if (is_terminal_control(cp)) std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp)), out += buf;
        else out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    i++;
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
  return out;
}

std::string format_number(double d) {
  if (std::isnan(d)) return "\"nan\"";
  if (std::isinf(d)) return d > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, res.ptr);
  // Keep doubles recognisable as such when read back (Python prints 2.0, not 2).
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void Value::dump_to(std::string& out) const {
  switch (type()) {
  case Type::Null: out += "null"; break;
  case Type::Bool: out += std::get<bool>(v_) ? "true" : "false"; break;
  case Type::Int: out += std::to_string(std::get<int64_t>(v_)); break;
  case Type::Double: out += format_number(std::get<double>(v_)); break;
  case Type::String: out += quote(std::get<std::string>(v_)); break;
  case Type::Array: {
    out += '[';
    bool first = true;
    for (const Value& v : as_array()) {
      if (!first) out += ", ";
      first = false;
      v.dump_to(out);
    }
    out += ']';
    break;
  }
  case Type::Object: {
    out += '{';
    bool first = true;
    for (const auto& [k, v] : as_object()) {
      if (!first) out += ", ";
      first = false;
      out += quote(k);
      out += ": ";
      v.dump_to(out);
    }
    out += '}';
    break;
  }
  }
}

std::string Value::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

// ---------------------------------------------------------------------------------------------- parser

namespace {

constexpr int kMaxDepth = 1000;  // deeper input is rejected instead of exhausting the stack

class Parser {
public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the value");
    return v;
  }

private:
  std::string_view s_;
  size_t pos_ = 0;

  [[noreturn]] void fail_at(size_t at, const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < s_.size(); i++) {
      if (s_[i] == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    throw Error(cat("JSON: ", what, " at line ", line, ", column ", col));
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
  }

  void expect_word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) fail(cat("invalid literal (expected '", w, "')"));
    pos_ += w.size();
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    if (at_end()) fail("unexpected end of input, expected a value");
    char c = peek();
    switch (c) {
    case '{': return object(depth);
    case '[': return array(depth);
    case '"': return Value(string());
    case 't': expect_word("true"); return Value(true);
    case 'f': expect_word("false"); return Value(false);
    case 'n': expect_word("null"); return Value();
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return number();
      fail(cat("unexpected character '", printable(c), "', expected a value"));
    }
  }

  static std::string printable(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    return buf;
  }

  Value object(int depth) {
    pos_++;  // '{'
    Object obj;
    skip_ws();
    if (peek() == '}') {
      pos_++;
      return Value(std::move(obj));
    }
    while (true) {
      skip_ws();
      if (peek() != '"') fail("expected a string key in object");
      size_t key_at = pos_;
      std::string key = string();
      for (const auto& kv : obj)
        if (kv.first == key) fail_at(key_at, cat("duplicate key ", quote(key)));
      skip_ws();
      if (peek() != ':') fail("expected ':' after object key");
      pos_++;
      skip_ws();
      obj.emplace_back(std::move(key), value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() == '}') {
        pos_++;
        return Value(std::move(obj));
      }
      fail(at_end() ? "unexpected end of input in object" : "expected ',' or '}' in object");
    }
  }

  Value array(int depth) {
    pos_++;  // '['
    Array arr;
    skip_ws();
    if (peek() == ']') {
      pos_++;
      return Value(std::move(arr));
    }
    while (true) {
      skip_ws();
      arr.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() == ']') {
        pos_++;
        return Value(std::move(arr));
      }
      fail(at_end() ? "unexpected end of input in array" : "expected ',' or ']' in array");
    }
  }

  Value number() {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-') pos_++;
    if (peek() == '0') {
      pos_++;
      if (peek() >= '0' && peek() <= '9') fail("leading zeros are not allowed in numbers");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') pos_++;
    } else {
      fail("expected a digit");
    }
    if (peek() == '.') {
      integral = false;
      pos_++;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9') pos_++;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      pos_++;
      if (peek() == '+' || peek() == '-') pos_++;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9') pos_++;
    }
    const char* b = s_.data() + start;
    const char* e = s_.data() + pos_;
    if (integral) {
      int64_t i = 0;
      auto r = std::from_chars(b, e, i);
      if (r.ec == std::errc() && r.ptr == e) return Value(i);
      // too large for int64: keep it as a double, like most JSON readers
    }
    double d = 0;
    auto r = std::from_chars(b, e, d);
    if (r.ec == std::errc::result_out_of_range) fail_at(start, "number out of range");
    if (r.ec != std::errc() || r.ptr != e) fail_at(start, "malformed number");
    return Value(d);
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else fail_at(pos_ - 1, "invalid hex digit in \\u escape");
    }
    return v;
  }

  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Copies one UTF-8 encoded character, rejecting malformed sequences.
  void utf8_char(std::string& out) {
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    int extra;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF) extra = 1, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) extra = 2, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) extra = 3, cp = c & 0x07, min = 0x10000;
    else fail("invalid UTF-8 in string");
    if (pos_ + extra >= s_.size()) fail("truncated UTF-8 in string");
    for (int i = 1; i <= extra; i++) {
      unsigned char d = static_cast<unsigned char>(s_[pos_ + i]);
      if ((d & 0xC0) != 0x80) fail_at(pos_ + i, "invalid UTF-8 in string");
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8 in string");
    out.append(s_.data() + pos_, extra + 1);
    pos_ += extra + 1;
  }

  std::string string() {
    size_t start = pos_;
    pos_++;  // opening quote
    std::string out;
    while (true) {
      if (at_end()) fail_at(start, "unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        pos_++;
        return out;
      }
      if (c < 0x20) fail("control character in string (escape it)");
      if (c >= 0x80) {
        utf8_char(out);
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        pos_++;
        continue;
      }
      pos_++;
      if (at_end()) fail_at(start, "unterminated string");
      char e = s_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        size_t esc_at = pos_ - 2;
        unsigned cp = hex4();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (s_.substr(pos_, 2) != "\\u") fail_at(esc_at, "unpaired surrogate in \\u escape");
          pos_ += 2;
          unsigned lo = hex4();
          if (lo < 0xDC00 || lo > 0xDFFF) fail_at(esc_at, "unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail_at(esc_at, "unpaired surrogate in \\u escape");
        }
        put_utf8(out, cp);
        break;
      }
      default: fail_at(pos_ - 2, cat("invalid escape '\\", printable(e), "' in string"));
      }
    }
  }
};

} // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

} // namespace loupe::json
