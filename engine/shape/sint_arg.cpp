#include "shape/sint_arg.h"

#include "shape/shape_json.h"
#include "support/error.h"

namespace loupe {

std::string SintArg::encode() const { return sint_to_json(v_).dump(); }

namespace {
const bool registered = [] {
  register_arg_kind("sint", [](const std::string& text) -> std::shared_ptr<const ArgObject> {
    return std::make_shared<SintArg>(sint_from_json(json::parse(text), "sint arg"));
  });
  return true;
}();
} // namespace

Arg sint_to_arg(const sint& x) {
  if (x.is_int()) return Arg(x.as_int());
  return Arg(std::shared_ptr<const ArgObject>(std::make_shared<SintArg>(x)));
}

sint sint_from_arg(const Arg& a, const char* what) {
  if (a.is_int()) return a.as_int();
  if (const auto* s = a.object<SintArg>()) return s->value();
  throw Error(cat(what, ": expected an int or a symbolic expression, got ", a.str()));
}

Arg sints_to_arg(const sints& xs) {
  Arg::Tuple t;
  for (const sint& x : xs) t.push_back(sint_to_arg(x));
  return Arg(std::move(t));
}

sints sints_from_arg(const Arg& a, const char* what) {
  if (!a.is_tuple()) throw Error(cat(what, ": argument must be a tuple of ints, got ", a.str()));
  sints out;
  for (const Arg& x : a.as_tuple()) out.push_back(sint_from_arg(x, what));
  return out;
}

Arg ranges_to_arg(const Ranges& rs) {
  Arg::Tuple t;
  for (const auto& [b, e] : rs) t.push_back(Arg(Arg::Tuple{sint_to_arg(b), sint_to_arg(e)}));
  return Arg(std::move(t));
}

Ranges ranges_from_arg(const Arg& a, const char* what) {
  if (!a.is_tuple()) throw Error(cat(what, ": argument must be a tuple of (int, int) pairs, got ", a.str()));
  Ranges out;
  for (const Arg& p : a.as_tuple()) {
    if (!p.is_tuple() || p.as_tuple().size() != 2)
      throw Error(cat(what, ": argument must be a tuple of (int, int) pairs, got ", a.str()));
    out.emplace_back(sint_from_arg(p.as_tuple()[0], what), sint_from_arg(p.as_tuple()[1], what));
  }
  return out;
}

} // namespace loupe
