#include "script/value.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "support/error.h"

namespace loupe::script {

namespace {
constexpr PyInt kIntMax = static_cast<PyInt>((static_cast<unsigned __int128>(1) << 127) - 1);
constexpr PyInt kIntMin = -kIntMax - 1;
constexpr size_t kMaxSequence = size_t(1) << 24;  // longest tuple/list/str a script may build
} // namespace

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.i_ = b;
  return v;
}
Value Value::integer(PyInt i) {
  Value v;
  v.kind_ = Kind::Int;
  v.i_ = i;
  return v;
}
Value Value::real(double d) {
  Value v;
  v.kind_ = Kind::Float;
  v.f_ = d;
  return v;
}
Value Value::str(std::string s) {
  Value v;
  v.kind_ = Kind::Str;
  v.s_ = std::make_shared<const std::string>(std::move(s));
  return v;
}
Value Value::ellipsis() {
  Value v;
  v.kind_ = Kind::Ellipsis;
  return v;
}
Value Value::tuple(Items items) {
  Value v;
  v.kind_ = Kind::Tuple;
  v.items_ = std::make_shared<const Items>(std::move(items));
  return v;
}
Value Value::list(Items items) {
  Value v;
  v.kind_ = Kind::List;
  v.items_ = std::make_shared<const Items>(std::move(items));
  return v;
}
Value Value::slice(Value start, Value stop, Value step) {
  Value v;
  v.kind_ = Kind::Slice;
  v.items_ = std::make_shared<const Items>(Items{std::move(start), std::move(stop), std::move(step)});
  return v;
}
Value Value::object(ObjectPtr obj) {
  Value v;
  v.kind_ = Kind::Object;
  v.obj_ = std::move(obj);
  return v;
}

double Value::as_float() const { return kind_ == Kind::Float ? f_ : static_cast<double>(i_); }

// ---------------------------------------------------------------- names and reprs

std::string type_name(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::None: return "NoneType";
  case Value::Kind::Bool: return "bool";
  case Value::Kind::Int: return "int";
  case Value::Kind::Float: return "float";
  case Value::Kind::Str: return "str";
  case Value::Kind::Ellipsis: return "ellipsis";
  case Value::Kind::Tuple: return "tuple";
  case Value::Kind::List: return "list";
  case Value::Kind::Slice: return "slice";
  case Value::Kind::Object: return v.object()->type_name();
  }
  return "?";
}

std::string int_str(PyInt v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s += char('0' + int(u % 10));
    u /= 10;
  }
  if (neg) s += '-';
  return std::string(s.rbegin(), s.rend());
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e+02": shortest digits that round-trip
  bool neg = sci[0] == '-';
  size_t epos = sci.find('e');
  std::string mant = sci.substr(neg ? 1 : 0, epos - (neg ? 1 : 0));
  int exp = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string(size_t(-exp - 1), '0') + digits;
    } else if (size_t(exp) + 1 >= digits.size()) {
      out += digits + std::string(size_t(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, size_t(exp) + 1) + "." + digits.substr(size_t(exp) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += exp < 0 ? "e-" : "e+";
  std::string e = std::to_string(std::abs(exp));
  if (e.size() < 2) e = "0" + e;
  return out + e;
}

std::string str_repr(const std::string& s) {
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == q) out += std::string("\\") + char(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out += char(c);
  }
  return out + q;
}

std::string repr(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::None: return "None";
  case Value::Kind::Bool: return v.as_bool() ? "True" : "False";
  case Value::Kind::Int: return int_str(v.as_int());
  case Value::Kind::Float: return float_repr(v.as_float());
  case Value::Kind::Str: return str_repr(v.as_str());
  case Value::Kind::Ellipsis: return "Ellipsis";
  case Value::Kind::Tuple:
  case Value::Kind::List: {
    bool tup = v.kind() == Value::Kind::Tuple;
    std::string s = tup ? "(" : "[";
    for (size_t i = 0; i < v.items().size(); i++) s += (i ? ", " : "") + repr(v.items()[i]);
    if (tup && v.items().size() == 1) s += ",";
    return s + (tup ? ")" : "]");
  }
  case Value::Kind::Slice:
    return "slice(" + repr(v.items()[0]) + ", " + repr(v.items()[1]) + ", " + repr(v.items()[2]) + ")";
  case Value::Kind::Object: return v.object()->repr();
  }
  return "?";
}

// ---------------------------------------------------------------- arithmetic

namespace {

[[noreturn]] void unsupported(BinOp op, const Value& a, const Value& b) {
  throw Error(cat("TypeError: unsupported operand type(s) for ", op_symbol(op), ": '", type_name(a), "' and '", type_name(b), "'"));
}

[[noreturn]] void int_overflow(BinOp op, PyInt a, PyInt b) {
  throw Error(cat("integer overflow: ", int_str(a), " ", op_symbol(op), " ", int_str(b),
                  " does not fit in 128 bits (the most a tensor script supports)"));
}

double true_divide(PyInt a, PyInt b) {
  constexpr PyInt exact = PyInt(1) << 53;
  if (a > -exact && a < exact && b > -exact && b < exact) return double(a) / double(b);  // correctly rounded
  return static_cast<double>(static_cast<long double>(a) / static_cast<long double>(b));
}

PyInt floor_div(PyInt a, PyInt b) {
  if (a == kIntMin && b == -1) int_overflow(BinOp::FloorDiv, a, b);
  PyInt q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

PyInt floor_mod(PyInt a, PyInt b) {
  if (b == -1) return 0;
  PyInt r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Value int_pow(PyInt base, PyInt exp) {
  if (exp < 0) {
    if (base == 0) throw Error("ZeroDivisionError: 0 cannot be raised to a negative power");
    return Value::real(std::pow(double(base), double(exp)));
  }
  PyInt result = 1, b = base, e = exp;
  while (e > 0) {
    if (e & 1)
      if (__builtin_mul_overflow(result, b, &result)) int_overflow(BinOp::Pow, base, exp);
    e >>= 1;
    if (e > 0 && __builtin_mul_overflow(b, b, &b)) int_overflow(BinOp::Pow, base, exp);
  }
  return Value::integer(result);
}

// Python's float divmod: the quotient is floored, the remainder takes the divisor's sign.
void float_divmod(double a, double b, double& div, double& mod) {
  mod = std::fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0) {
    double f = std::floor(div);
    if (div - f > 0.5) f += 1.0;
    div = f;
  } else {
    div = std::copysign(0.0, a / b);
  }
}

Value float_pow(double a, double b) {
  if (a == 0.0 && b < 0 && std::isfinite(b)) throw Error("ZeroDivisionError: 0.0 cannot be raised to a negative power");
  if (a < 0 && std::isfinite(a) && std::isfinite(b) && b != std::floor(b))
    throw Error("a negative number raised to a fractional power is a complex number, which tensor scripts do not support");
  double r = std::pow(a, b);
  if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) throw Error("OverflowError: float ** result is out of range");
  return Value::real(r);
}

Value int_binary(BinOp op, const Value& va, const Value& vb) {
  PyInt a = va.as_int(), b = vb.as_int(), r = 0;
  bool both_bool = va.is_bool() && vb.is_bool();
  switch (op) {
  case BinOp::Add:
    if (__builtin_add_overflow(a, b, &r)) int_overflow(op, a, b);
    return Value::integer(r);
  case BinOp::Sub:
    if (__builtin_sub_overflow(a, b, &r)) int_overflow(op, a, b);
    return Value::integer(r);
  case BinOp::Mul:
    if (__builtin_mul_overflow(a, b, &r)) int_overflow(op, a, b);
    return Value::integer(r);
  case BinOp::Div:
    if (b == 0) throw Error("ZeroDivisionError: division by zero");
    return Value::real(true_divide(a, b));
  case BinOp::FloorDiv:
    if (b == 0) throw Error("ZeroDivisionError: integer division or modulo by zero");
    return Value::integer(floor_div(a, b));
  case BinOp::Mod:
    if (b == 0) throw Error("ZeroDivisionError: integer modulo by zero");
    return Value::integer(floor_mod(a, b));
  case BinOp::Pow: return int_pow(a, b);
  case BinOp::BitAnd: return both_bool ? Value::boolean(a & b) : Value::integer(a & b);
  case BinOp::BitOr: return both_bool ? Value::boolean(a | b) : Value::integer(a | b);
  case BinOp::BitXor: return both_bool ? Value::boolean(a ^ b) : Value::integer(a ^ b);
  case BinOp::LShift:
    if (b < 0) throw Error("ValueError: negative shift count");
    if (a == 0) return Value::integer(0);
    if (b >= 127 || (a > 0 ? a > (kIntMax >> int(b)) : a < (kIntMin >> int(b)))) int_overflow(op, a, b);
    return Value::integer(a * (PyInt(1) << int(b)));
  case BinOp::RShift:
    if (b < 0) throw Error("ValueError: negative shift count");
    return Value::integer(b >= 127 ? (a < 0 ? -1 : 0) : (a >> int(b)));  // arithmetic shift = floor
  default: break;
  }
  unsupported(op, va, vb);
}

Value float_binary(BinOp op, const Value& va, const Value& vb) {
  double a = va.as_float(), b = vb.as_float();
  double div = 0, mod = 0;
  switch (op) {
  case BinOp::Add: return Value::real(a + b);
  case BinOp::Sub: return Value::real(a - b);
  case BinOp::Mul: return Value::real(a * b);
  case BinOp::Div:
    if (b == 0) throw Error("ZeroDivisionError: float division by zero");
    return Value::real(a / b);
  case BinOp::FloorDiv:
    if (b == 0) throw Error("ZeroDivisionError: float floor division by zero");
    float_divmod(a, b, div, mod);
    return Value::real(div);
  case BinOp::Mod:
    if (b == 0) throw Error("ZeroDivisionError: float modulo by zero");
    float_divmod(a, b, div, mod);
    return Value::real(mod);
  case BinOp::Pow: return float_pow(a, b);
  default: break;
  }
  unsupported(op, va, vb);
}

// -1, 0, 1 for numbers (nan: 2 = unordered)
int compare_numbers(const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
  long double x = a.is_float() ? a.as_float() : static_cast<long double>(a.as_int());
  long double y = b.is_float() ? b.as_float() : static_cast<long double>(b.as_int());
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : x > y ? 1 : 0;
}

Value compare(BinOp op, const Value& a, const Value& b) {
  if (op == BinOp::Eq) return Value::boolean(py_equal(a, b));
  if (op == BinOp::Ne) return Value::boolean(!py_equal(a, b));
  int c;
  if (a.is_number() && b.is_number()) {
    c = compare_numbers(a, b);
    if (c == 2) return Value::boolean(false);
  } else if (a.is_str() && b.is_str()) {
    c = a.as_str().compare(b.as_str());
    c = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else if (a.is_seq() && a.kind() == b.kind()) {
    const Items &x = a.items(), &y = b.items();
    size_t i = 0;
    while (i < x.size() && i < y.size() && py_equal(x[i], y[i])) i++;
    if (i < x.size() && i < y.size()) return compare(op, x[i], y[i]);
    c = x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  } else {
    throw Error(cat("TypeError: '", op_symbol(op), "' not supported between instances of '", type_name(a), "' and '",
                    type_name(b), "'"));
  }
  switch (op) {
  case BinOp::Lt: return Value::boolean(c < 0);
  case BinOp::Le: return Value::boolean(c <= 0);
  case BinOp::Gt: return Value::boolean(c > 0);
  case BinOp::Ge: return Value::boolean(c >= 0);
  default: break;
  }
  LOUPE_ASSERT(false, "not a comparison");
}

Value repeat(const Value& seq, PyInt times) {
  if (times <= 0) return seq.is_str() ? Value::str("") : seq.kind() == Value::Kind::Tuple ? Value::tuple({}) : Value::list({});
  size_t len = seq.is_str() ? seq.as_str().size() : seq.items().size();
  if (len != 0 && times > PyInt(kMaxSequence / len))
    throw Error(cat("sequence repetition is too long (more than ", kMaxSequence, " elements)"));
  if (seq.is_str()) {
    std::string s;
    for (PyInt i = 0; i < times; i++) s += seq.as_str();
    return Value::str(std::move(s));
  }
  Items out;
  for (PyInt i = 0; i < times; i++) out.insert(out.end(), seq.items().begin(), seq.items().end());
  return seq.kind() == Value::Kind::Tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
}

} // namespace

bool py_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
  case Value::Kind::None:
  case Value::Kind::Ellipsis: return true;
  case Value::Kind::Str: return a.as_str() == b.as_str();
  case Value::Kind::Tuple:
  case Value::Kind::List:
  case Value::Kind::Slice: {
    if (a.items().size() != b.items().size()) return false;
    for (size_t i = 0; i < a.items().size(); i++)
      if (!py_equal(a.items()[i], b.items()[i])) return false;
    return true;
  }
  case Value::Kind::Object: return a.object() == b.object();
  default: return false;
  }
}

Value py_binary(BinOp op, const Value& a, const Value& b) {
  if (is_comparison(op)) return compare(op, a, b);
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) return int_binary(op, a, b);
    return float_binary(op, a, b);
  }
  if (op == BinOp::Add && a.kind() == b.kind() && (a.is_seq() || a.is_str())) {
    if (a.is_str()) return Value::str(a.as_str() + b.as_str());
    if (a.items().size() + b.items().size() > kMaxSequence) throw Error("sequence is too long");
    Items out = a.items();
    out.insert(out.end(), b.items().begin(), b.items().end());
    return a.kind() == Value::Kind::Tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
  }
  if (op == BinOp::Mul && (a.is_seq() || a.is_str()) && b.is_integral()) return repeat(a, b.as_int());
  if (op == BinOp::Mul && (b.is_seq() || b.is_str()) && a.is_integral()) return repeat(b, a.as_int());
  if (op == BinOp::Mod && a.is_str()) throw Error("string formatting with % is not supported in a tensor script");
  unsupported(op, a, b);
}

Value py_unary(UnOp op, const Value& a) {
  if (a.is_integral()) {
    PyInt v = a.as_int();
    switch (op) {
    case UnOp::Neg:
      if (v == kIntMin) throw Error("integer overflow: -" + int_str(v) + " does not fit in 128 bits");
      return Value::integer(-v);
    case UnOp::Pos: return Value::integer(v);
    case UnOp::Invert: return Value::integer(~v);
    }
  }
  if (a.is_float() && op != UnOp::Invert) return Value::real(op == UnOp::Neg ? -a.as_float() : a.as_float());
  throw Error(cat("TypeError: bad operand type for unary ", op_symbol(op), ": '", type_name(a), "'"));
}

SliceRange resolve_slice(const Value& slice, int64_t length) {
  const Items& p = slice.items();
  for (const Value& v : p)
    if (!v.is_none() && !v.is_integral())
      throw Error(cat("TypeError: slice indices must be integers or None, not ", type_name(v)));
  auto clamp64 = [](PyInt v) {
    return v > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
         : v < std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::min()
                                                    : int64_t(v);
  };
  int64_t step = p[2].is_none() ? 1 : clamp64(p[2].as_int());
  if (step == 0) throw Error("ValueError: slice step cannot be zero");
  auto fix = [&](const Value& v, int64_t dflt, int64_t lo, int64_t hi) {
    if (v.is_none()) return dflt;
    int64_t x = clamp64(v.as_int());
    if (x < 0) {
      x = x < -length ? lo : x + length;
      return std::max(x, lo);
    }
    return std::min(x, hi);
  };
  int64_t start, stop;
  if (step > 0) {
    start = fix(p[0], 0, 0, length);
    stop = fix(p[1], length, 0, length);
  } else {
    start = fix(p[0], length - 1, -1, length - 1);
    stop = fix(p[1], -1, -1, length - 1);
  }
  int64_t count = 0;
  if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) count = (start - stop - 1) / (-step) + 1;
  return {start, stop, step, count};
}

Value py_subscript(const Value& seq, const Value& index) {
  if (!seq.is_seq() && !seq.is_str()) throw Error(cat("TypeError: '", type_name(seq), "' object is not subscriptable"));
  int64_t len = int64_t(seq.is_str() ? seq.as_str().size() : seq.items().size());
  if (index.is_integral()) {
    PyInt i = index.as_int();
    if (i < 0) i += len;
    if (i < 0 || i >= len) throw Error(cat("IndexError: ", type_name(seq), " index out of range"));
    if (seq.is_str()) return Value::str(std::string(1, seq.as_str()[size_t(i)]));
    return seq.items()[size_t(i)];
  }
  if (index.is_slice()) {
    SliceRange r = resolve_slice(index, len);
    if (seq.is_str()) {
      std::string out;
      for (int64_t k = 0, i = r.start; k < r.count; k++, i += r.step) out += seq.as_str()[size_t(i)];
      return Value::str(std::move(out));
    }
    Items out;
    for (int64_t k = 0, i = r.start; k < r.count; k++, i += r.step) out.push_back(seq.items()[size_t(i)]);
    return seq.kind() == Value::Kind::Tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
  }
  throw Error(cat("TypeError: ", type_name(seq), " indices must be integers or slices, not ", type_name(index)));
}

} // namespace loupe::script
