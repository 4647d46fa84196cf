#include "symbolic/expr_parser.h"

#include <cctype>
#include <limits>

#include "support/error.h"

namespace loupe {

namespace {

// Keeps every value and bound well inside int64 so that sums and products of a few of them stay exact
// in the 128-bit range analysis.
constexpr int64_t kLimit = int64_t(1) << 62;

class Parser {
public:
  Parser(const std::string& text, const VarRanges& vars) : s_(text), vars_(vars) {}

  UOpPtr parse() {
    skip();
    if (at_end()) fail(pos_, "empty expression");
    UOpPtr e = comparison();
    skip();
    if (!at_end()) {
      if (s_[pos_] == '<') fail(pos_, "at most one '<' is allowed");
      fail(pos_, cat("unexpected '", s_[pos_], "'"));
    }
    return e;
  }

private:
  [[noreturn]] void fail(size_t pos, const std::string& what) { throw Error(cat("column ", pos + 1, ": ", what)); }
  bool at_end() const { return pos_ >= s_.size(); }
  void skip() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[pos_]))) pos_++;
  }
  bool eat(const char* tok) {
    skip();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(pos_, n, tok) != 0) return false;
    pos_ += n;
    return true;
  }
  void expect(char c, const char* what) {
    skip();
    if (at_end()) fail(pos_, cat("expected ", what, " but the expression ends"));
    if (s_[pos_] != c) fail(pos_, cat("expected ", what, " but found '", s_[pos_], "'"));
    pos_++;
  }

  UOpPtr comparison() {
    UOpPtr lhs = sum();
    skip();
    size_t at = pos_;
    if (!at_end() && s_[pos_] == '<') {
      if (depth_ > 0) fail(at, "'<' is only allowed at the top level");
      if (s_.compare(pos_, 2, "<=") == 0 || s_.compare(pos_, 2, "<<") == 0) fail(at, cat("unsupported operator '", s_.substr(pos_, 2), "'"));
      pos_++;
      UOpPtr rhs = sum();
      return lt(lhs, rhs);
    }
    return lhs;
  }

  UOpPtr sum() {
    UOpPtr e = product();
    while (true) {
      skip();
      if (eat("+")) e = e + product();
      else if (eat("-")) e = e - product();
      else return e;
    }
  }

  UOpPtr product() {
    UOpPtr e = unary();
    while (true) {
      skip();
      size_t at = pos_;
      if (eat("//")) e = divide(Ops::FLOORDIV, e, unary(), at);
      else if (eat("%")) e = divide(Ops::FLOORMOD, e, unary(), at);
      else if (s_.compare(pos_, 2, "**") == 0) fail(at, "unsupported operator '**'");
      else if (eat("*")) e = e * unary();
      else if (!at_end() && s_[pos_] == '/') fail(at, "'/' is true division: use '//' (floor division)");
      else return e;
    }
  }

  UOpPtr divide(Ops op, const UOpPtr& a, const UOpPtr& b, size_t at) {
    if (b->vmin() == 0 && b->vmax() == 0)
      fail(at, cat(op == Ops::FLOORDIV ? "division" : "modulo", " by zero"));
    return UOp::make(op, dtypes::index, {a, b});
  }

  UOpPtr unary() {
    skip();
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return atom();
  }

  UOpPtr atom() {
    skip();
    if (at_end()) fail(pos_, "expected a number, a name or '(' but the expression ends");
    size_t start = pos_;
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      __int128 v = 0;
      while (!at_end() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') v = v * 10 + (s_[pos_] - '0');
        if (v > kLimit) fail(start, "integer too large");
        pos_++;
      }
      if (!at_end() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
        fail(pos_, cat("unexpected '", s_[pos_], "' after a number"));
      return UOp::cnst_int(dtypes::index, static_cast<int64_t>(v));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) pos_++;
      std::string name = s_.substr(start, pos_ - start);
      skip();
      bool call = !at_end() && s_[pos_] == '(';
      if (call && (name == "min" || name == "max")) return minmax(name, start);
      if (call) fail(start, cat("unknown function '", name, "' (only min and max)"));
      return variable(name, start);
    }
    if (c == '(') {
      pos_++;
      depth_++;
      UOpPtr e = comparison();
      depth_--;
      expect(')', "')'");
      return e;
    }
    fail(start, cat("unexpected '", c, "'"));
  }

  UOpPtr minmax(const std::string& name, size_t start) {
    expect('(', "'('");
    depth_++;
    UOpPtr a = comparison();
    expect(',', cat("',' in ", name, "(x, y)").c_str());
    UOpPtr b = comparison();
    depth_--;
    skip();
    if (!at_end() && s_[pos_] == ',') fail(pos_, cat(name, "() takes exactly two arguments"));
    expect(')', "')'");
    (void)start;
    return name == "max" ? umax(a, b) : umin(a, b);
  }

  UOpPtr variable(const std::string& name, size_t start) {
    if (name == "True" || name == "False") fail(start, "booleans are not part of the grammar");
    auto it = vars_.find(name);
    if (it == vars_.end()) fail(start, cat("unknown variable '", name, "' (give its range in vars)"));
    auto [lo, hi] = it->second;
    return UOp::variable(name, lo, hi, dtypes::index);
  }

  const std::string& s_;
  const VarRanges& vars_;
  size_t pos_ = 0;
  int depth_ = 0;
};

int64_t parse_bound(const std::string& text, const std::string& entry) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  if (i >= text.size()) throw Error(cat("vars: '", entry, "': missing number"));
  __int128 v = 0;
  for (; i < text.size(); i++) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) throw Error(cat("vars: '", entry, "': '", text, "' is not an integer"));
    v = v * 10 + (text[i] - '0');
    if (v > kLimit) throw Error(cat("vars: '", entry, "': bound too large"));
  }
  return static_cast<int64_t>(neg ? -v : v);
}

} // namespace


UOpPtr parse_index_expr(const std::string& text, const VarRanges& vars) {
  for (const auto& [name, r] : vars) {
    if (r.first > r.second) throw Error(cat("variable '", name, "': empty range [", r.first, ", ", r.second, "]"));
    if (r.first < -kLimit || r.second > kLimit) throw Error(cat("variable '", name, "': range beyond +-2^62"));
  }
  return Parser(text, vars).parse();
}

VarRanges parse_var_ranges(const std::string& spec) {
  VarRanges out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string entry = spec.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) {
      if (end == spec.size()) break;
      throw Error("vars: empty entry (expected name=lo:hi)");
    }
    size_t eq = entry.find('='), colon = entry.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || colon == std::string::npos || eq == 0)
      throw Error(cat("vars: '", entry, "' is not name=lo:hi"));
    std::string name = entry.substr(0, eq);
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) throw Error(cat("vars: bad variable name '", name, "'"));
    int64_t lo = parse_bound(entry.substr(eq + 1, colon - eq - 1), entry);
    int64_t hi = parse_bound(entry.substr(colon + 1), entry);
    if (lo > hi) throw Error(cat("vars: '", entry, "': empty range (lo > hi)"));
    if (out.count(name)) throw Error(cat("vars: variable '", name, "' given twice"));
    out[name] = {lo, hi};
  }
  return out;
}

} // namespace loupe
