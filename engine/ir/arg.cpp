#include "ir/arg.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

#include "support/error.h"

namespace loupe {

Arg Arg::ints(const std::vector<int64_t>& xs) {
  Tuple t;
  t.reserve(xs.size());
  for (int64_t x : xs) t.emplace_back(x);
  return Arg(std::move(t));
}

double Arg::as_double() const {
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  if (is_int()) return static_cast<double>(as_int());
  return as_float();
}

std::vector<int64_t> Arg::as_ints() const {
  std::vector<int64_t> out;
  for (const Arg& a : as_tuple()) out.push_back(a.as_int());
  return out;
}

void Arg::hash(StableHasher& h) const {
  h.u64(v_.index());
  switch (v_.index()) {
  case 0: break;
  case 1: h.u64(as_bool()); break;
  case 2: h.i64(as_int()); break;
  case 3: h.f64(as_float()); break;
  case 4: h.str(as_string()); break;
  case 5: h.u64(static_cast<uint64_t>(as_op())); break;
  case 6:
    h.u64(as_tuple().size());
    for (const Arg& a : as_tuple()) a.hash(h);
    break;
  case 7:
    h.str(as_object().kind());
    as_object().hash(h);
    break;
  }
}

bool Arg::operator==(const Arg& o) const {
  if (v_.index() != o.v_.index()) return false;
  switch (v_.index()) {
  case 0: return true;
  case 1: return as_bool() == o.as_bool();
  case 2: return as_int() == o.as_int();
  case 3: {  // bitwise: -0.0 and 0.0 are different constants, and a NaN equals itself
    double a = as_float(), b = o.as_float();
    return std::memcmp(&a, &b, sizeof a) == 0;
  }
  case 4: return as_string() == o.as_string();
  case 5: return as_op() == o.as_op();
  case 6: {
    const Tuple &a = as_tuple(), &b = o.as_tuple();
    if (&a == &b) return true;
    return a == b;
  }
  case 7: {
    const ArgObject &a = as_object(), &b = o.as_object();
    if (&a == &b) return true;
    return std::strcmp(a.kind(), b.kind()) == 0 && a.equals(b);
  }
  }
  return false;
}

namespace {
std::map<std::string, ArgDecoder>& decoders() {
  static auto* m = new std::map<std::string, ArgDecoder>();
  return *m;
}
std::mutex decoders_mutex;
} // namespace

void register_arg_kind(const std::string& kind, ArgDecoder decoder) {
  std::lock_guard lock(decoders_mutex);
  decoders()[kind] = decoder;
}

std::shared_ptr<const ArgObject> decode_arg_object(const std::string& kind, const std::string& text) {
  ArgDecoder d = nullptr;
  {
    std::lock_guard lock(decoders_mutex);
    auto it = decoders().find(kind);
    if (it != decoders().end()) d = it->second;
  }
  if (!d) throw Error(cat("unknown argument kind '", kind, "'"));
  return d(text);
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string Arg::str() const {
  switch (v_.index()) {
  case 0: return "None";
  case 1: return as_bool() ? "True" : "False";
  case 2: return std::to_string(as_int());
  case 3: return format_double(as_float());
  case 4: return "'" + as_string() + "'";
  case 5: return "Ops." + std::string(op_name(as_op()));
  case 6: {
    const Tuple& t = as_tuple();
    std::string s = "(";
    for (size_t i = 0; i < t.size(); i++) s += (i ? ", " : "") + t[i].str();
    if (t.size() == 1) s += ",";
    return s + ")";
  }
  case 7: return as_object().str();
  }
  return "?";
}

} // namespace loupe
