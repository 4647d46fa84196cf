#include "script/call_args.h"

#include <limits>

#include "support/error.h"

namespace loupe::script {

std::string Signature::render() const {
  std::string s = name + "(";
  bool starred = false;
  for (size_t i = 0; i < params.size(); i++) {
    const Param& p = params[i];
    if (i) s += ", ";
    if (p.kind == Param::Kind::KwOnly && !starred) {
      s += "*, ";
      starred = true;
    }
    if (p.kind == Param::Kind::Star) {
      s += "*" + p.name;
      starred = true;
      continue;
    }
    s += p.name;
    if (p.kind != Param::Kind::Required) s += "=" + repr(p.dflt);
  }
  return s + ")";
}

Args::Args(const Signature& sig, const std::vector<Value>& positional, const KwArgs& keywords)
    : sig_(&sig), values_(sig.params.size()), given_(sig.params.size(), false) {
  const std::vector<Param>& ps = sig.params;
  size_t n_pos = 0;  // parameters that take positional arguments (before a *args or keyword-only one)
  int star_at = -1;
  for (size_t i = 0; i < ps.size(); i++) {
    if (ps[i].kind == Param::Kind::Star) {
      star_at = int(i);
      break;
    }
    if (ps[i].kind == Param::Kind::KwOnly) break;
    n_pos++;
  }
  if (positional.size() > n_pos && star_at < 0) {
    size_t required = 0;
    for (size_t i = 0; i < n_pos; i++) required += ps[i].kind == Param::Kind::Required;
    std::string takes = required == n_pos ? cat(n_pos) : cat("from ", required, " to ", n_pos);
    throw Error(cat("TypeError: ", sig.name, "() takes ", takes, " positional argument", n_pos == 1 ? "" : "s", " but ",
                    positional.size(), positional.size() == 1 ? " was" : " were", " given"));
  }
  Items rest;
  for (size_t i = 0; i < positional.size(); i++) {
    if (i < n_pos) {
      values_[i] = positional[i];
      given_[i] = true;
    } else {
      rest.push_back(positional[i]);
    }
  }
  if (star_at >= 0) {
    values_[size_t(star_at)] = Value::tuple(std::move(rest));
    given_[size_t(star_at)] = true;
  }
  for (const auto& [name, value] : keywords) {
    size_t i = 0;
    while (i < ps.size() && !(ps[i].name == name && ps[i].kind != Param::Kind::Star)) i++;
    if (i == ps.size()) throw Error(cat("TypeError: ", sig.name, "() got an unexpected keyword argument '", name, "'"));
    if (given_[i]) throw Error(cat("TypeError: ", sig.name, "() got multiple values for argument '", name, "'"));
    values_[i] = value;
    given_[i] = true;
  }
  for (size_t i = 0; i < ps.size(); i++) {
    if (given_[i]) continue;
    if (ps[i].kind == Param::Kind::Required)
      throw Error(cat("TypeError: ", sig.name, "() missing required argument: '", ps[i].name, "'"));
    values_[i] = ps[i].kind == Param::Kind::Star ? Value::tuple({}) : ps[i].dflt;
  }
}

const Value& Args::operator[](const std::string& name) const {
  for (size_t i = 0; i < sig_->params.size(); i++)
    if (sig_->params[i].name == name) return values_[i];
  LOUPE_ASSERT(false, "no parameter '", name, "' in ", sig_->render());
}

bool Args::given(const std::string& name) const {
  for (size_t i = 0; i < sig_->params.size(); i++)
    if (sig_->params[i].name == name) return given_[i];
  LOUPE_ASSERT(false, "no parameter '", name, "' in ", sig_->render());
}

void Args::fail(const std::string& name, const std::string& problem) const {
  throw Error(cat(sig_->name, ": argument '", name, "' ", problem));
}

int64_t to_int64(const Value& v, const std::string& what) {
  if (!v.is_integral()) throw Error(cat(what, " must be an int, not ", type_name(v)));
  PyInt i = v.as_int();
  if (i < std::numeric_limits<int64_t>::min() || i > std::numeric_limits<int64_t>::max())
    throw Error(cat(what, " is ", int_str(i), ", which does not fit in 64 bits"));
  return int64_t(i);
}

int64_t Args::int64(const std::string& name) const {
  return to_int64((*this)[name], cat(sig_->name, ": argument '", name, "'"));
}

std::optional<int64_t> Args::opt_int64(const std::string& name) const {
  if ((*this)[name].is_none()) return std::nullopt;
  return int64(name);
}

bool Args::flag(const std::string& name) const {
  const Value& v = (*this)[name];
  if (!v.is_integral()) fail(name, "must be a bool, not " + type_name(v));
  return v.as_bool();
}

double Args::real(const std::string& name) const {
  const Value& v = (*this)[name];
  if (!v.is_number()) fail(name, "must be a number, not " + type_name(v));
  return v.as_float();
}

std::string Args::str(const std::string& name) const {
  const Value& v = (*this)[name];
  if (!v.is_str()) fail(name, "must be a str, not " + type_name(v));
  return v.as_str();
}

std::optional<std::string> Args::opt_str(const std::string& name) const {
  if ((*this)[name].is_none()) return std::nullopt;
  return str(name);
}

std::vector<int64_t> Args::int_list(const std::string& name) const {
  const Value& v = (*this)[name];
  if (!v.is_seq()) fail(name, "must be a tuple or list of ints, not " + type_name(v));
  std::vector<int64_t> out;
  for (const Value& x : v.items()) out.push_back(to_int64(x, cat(sig_->name, ": argument '", name, "' element")));
  return out;
}

Items Args::argfix(const std::string& first, const std::string& rest) const {
  const Value& a = (*this)[first];
  const Items& more = (*this)[rest].items();
  if (a.is_seq()) {
    if (!more.empty()) fail(first, "is a tuple or list, so no further positional arguments may follow it");
    return a.items();
  }
  Items out{a};
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

Items Args::argfix(const std::string& star) const {
  const Items& all = (*this)[star].items();
  if (!all.empty() && all[0].is_seq()) {
    if (all.size() != 1) fail(star, "is a tuple or list, so no further positional arguments may follow it");
    return all[0].items();
  }
  return all;
}

} // namespace loupe::script
