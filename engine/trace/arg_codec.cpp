#include "trace/arg_codec.h"

#include <charconv>
#include <cstring>

#include "support/error.h"

namespace loupe {

namespace {

constexpr int kMaxDepth = 200;  // nested tuples; deeper text is rejected rather than overflowing the stack

void encode_into(const Arg& a, std::string& out) {
  if (a.is_none()) {
    out += 'N';
  } else if (a.is_bool()) {
    out += a.as_bool() ? 'T' : 'F';
  } else if (a.is_int()) {
    out += 'i';
    out += std::to_string(a.as_int());
    out += ';';
  } else if (a.is_float()) {
    double v = a.as_float();
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
    out += 'f';
    out += buf;
    out += ';';
  } else if (a.is_string()) {
    out += 's';
    out += std::to_string(a.as_string().size());
    out += ':';
    out += a.as_string();
  } else if (a.is_op()) {
    out += 'o';
    out += op_name(a.as_op());
    out += ';';
  } else if (a.is_tuple()) {
    out += '(';
    for (const Arg& x : a.as_tuple()) encode_into(x, out);
    out += ')';
  } else {
    const ArgObject& o = a.as_object();
    std::string kind = o.kind(), text = o.encode();
    out += 'O';
    out += std::to_string(kind.size());
    out += ':';
    out += kind;
    out += std::to_string(text.size());
    out += ':';
    out += text;
  }
}

class Decoder {
public:
  explicit Decoder(std::string_view s) : s_(s) {}

  Arg value(int depth) {
    if (depth > kMaxDepth) fail("tuples nested too deeply");
    char c = next();
    switch (c) {
    case 'N': return Arg();
    case 'T': return Arg(true);
    case 'F': return Arg(false);
    case 'i': {
      std::string_view t = until(';');
      int64_t v = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.empty()) fail("bad integer");
      return Arg(v);
    }
    case 'f': {
      std::string_view t = until(';');
      uint64_t bits = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), bits, 16);
      if (t.size() != 16 || r.ec != std::errc() || r.ptr != t.data() + t.size()) fail("bad float bits");
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return Arg(v);
    }
    case 's': return Arg(std::string(sized()));
    case 'o': {
      std::string_view t = until(';');
      auto op = op_from_name(t);
      if (!op) fail(cat("unknown op '", t, "'"));
      return Arg(*op);
    }
    case '(': {
      Arg::Tuple items;
      while (peek() != ')') items.push_back(value(depth + 1));
      pos_++;
      return Arg(std::move(items));
    }
    case 'O': {
      std::string kind(sized());
      std::string text(sized());
      return Arg(decode_arg_object(kind, text));
    }
    default: pos_--; fail(cat("unexpected character '", c, "'"));
    }
  }

  bool at_end() const { return pos_ == s_.size(); }
  [[noreturn]] void fail(const std::string& what) const { throw Error(cat("arg code: ", what, " at offset ", pos_)); }

private:
  char next() {
    if (pos_ >= s_.size()) fail("unexpected end");
    return s_[pos_++];
  }
  char peek() const {
    if (pos_ >= s_.size()) fail("unexpected end (unclosed tuple)");
    return s_[pos_];
  }
  std::string_view until(char end) {
    size_t e = s_.find(end, pos_);
    if (e == std::string_view::npos) fail(cat("missing '", end, "'"));
    std::string_view t = s_.substr(pos_, e - pos_);
    pos_ = e + 1;
    return t;
  }
  std::string_view sized() {
    std::string_view t = until(':');
    size_t n = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), n);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.empty()) fail("bad length");
    if (n > s_.size() - pos_) fail("length runs past the end");
    std::string_view v = s_.substr(pos_, n);
    pos_ += n;
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

} // namespace

std::string encode_arg(const Arg& a) {
  std::string out;
  encode_into(a, out);
  return out;
}

Arg decode_arg(std::string_view code) {
  Decoder d(code);
  Arg a = d.value(0);
  if (!d.at_end()) d.fail("trailing characters");
  return a;
}

std::string encode_dtype(DType d) {
  std::string s = DType(d.scalar_type).short_name();
  if (d.count != 1) s += "x" + std::to_string(d.count);
  if (d.is_ptr) {
    s += "*" + std::to_string(d.ptr_size);
    if (d.local) s += "L";
  }
  return s;
}

DType decode_dtype(std::string_view code) {
  auto bad = [&](const char* why) { return Error(cat("dtype code '", code, "': ", why)); };
  size_t end = code.find_first_of("x*");
  std::string_view name = code.substr(0, end);
  DType d;
  bool found = false;
  for (int i = 0; i < kNumScalars; i++) {
    DType s(static_cast<Scalar>(i));
    if (s.short_name() == name) {
      d = s;
      found = true;
      break;
    }
  }
  if (!found) throw bad("unknown scalar type");
  std::string_view rest = end == std::string_view::npos ? std::string_view() : code.substr(end);
  auto number = [&](std::string_view& r, int64_t& out) {
    size_t i = 0;
    if (i < r.size() && r[i] == '-') i++;
    while (i < r.size() && r[i] >= '0' && r[i] <= '9') i++;
    auto res = std::from_chars(r.data(), r.data() + i, out);
    if (res.ec != std::errc() || i == 0) throw bad("bad number");
    r = r.substr(i);
  };
  if (!rest.empty() && rest[0] == 'x') {
    rest = rest.substr(1);
    int64_t n = 0;
    number(rest, n);
    if (n < 1 || n > 65535) throw bad("vector width out of range");
    d.count = static_cast<uint16_t>(n);
  }
  if (!rest.empty() && rest[0] == '*') {
    rest = rest.substr(1);
    int64_t n = 0;
    number(rest, n);
    d.is_ptr = true;
    d.ptr_size = n;
    if (!rest.empty() && rest[0] == 'L') {
      d.local = true;
      rest = rest.substr(1);
    }
  }
  if (!rest.empty()) throw bad("trailing characters");
  return d;
}

std::string encode_ids(const std::vector<int64_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); i++) {
    if (i) s += ' ';
    s += std::to_string(ids[i]);
  }
  return s;
}

std::vector<int64_t> decode_ids(std::string_view text) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      i++;
      continue;
    }
    int64_t v = 0;
    auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (r.ec != std::errc()) throw Error(cat("id list '", text.substr(0, 60), "': bad number at offset ", i));
    out.push_back(v);
    i = size_t(r.ptr - text.data());
    if (i < text.size() && text[i] != ' ') throw Error(cat("id list '", text.substr(0, 60), "': bad character at offset ", i));
  }
  return out;
}

} // namespace loupe
