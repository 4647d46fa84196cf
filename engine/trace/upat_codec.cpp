#include "trace/upat_codec.h"

#include "support/error.h"
#include "support/json.h"
#include "trace/arg_codec.h"

namespace loupe {

namespace {

constexpr int kMaxDepth = 64;  // a recorded pattern is read from a file someone else may have written

const char* kind_name(UPat::SrcKind k) {
  switch (k) {
  case UPat::SrcKind::Any: return "any";
  case UPat::SrcKind::Ordered: return "ordered";
  case UPat::SrcKind::Permuted: return "permuted";
  case UPat::SrcKind::Repeated: return "repeated";
  }
  return "any";
}

json::Value encode_node(const UPat::Node& n) {
  json::Value v = json::Value::object();
  if (n.ops) {
    json::Value ops = json::Value::array();
    n.ops->for_each([&](Ops o) { ops.push_back(std::string(op_name(o))); });
    v.set("ops", std::move(ops));
  } else {
    v.set("ops", nullptr);
  }
  if (!n.dtypes.empty()) {
    json::Value dts = json::Value::array();
    for (const DType& d : n.dtypes) dts.push_back(encode_dtype(d));
    v.set("dtypes", std::move(dts));
  }
  if (n.arg) v.set("arg", encode_arg(*n.arg));
  if (n.number) v.set("number", *n.number);
  if (!n.name.empty()) v.set("name", n.name);
  v.set("kind", kind_name(n.kind));
  if (!n.src.empty()) {
    json::Value src = json::Value::array();
    for (const UPat& s : n.src) src.push_back(encode_node(*s.node));
    v.set("src", std::move(src));
  }
  if (n.allow_any_len) v.set("any_len", true);
  if (n.classes != kClassAll) v.set("classes", int64_t(n.classes));
  if (n.pred) v.set("condition", true);
  return v;
}

bool has_condition(const UPat::Node& n) {
  if (n.pred) return true;
  for (const UPat& s : n.src)
    if (has_condition(*s.node)) return true;
  return false;
}

UPat decode_node(const json::Value& v, const std::string& where, int depth) {
  auto at = [&](const char* key) { return (where.empty() ? std::string() : where + ".") + key; };
  if (depth > kMaxDepth) throw Error(cat("pattern ", where, ": nested deeper than ", kMaxDepth, " levels"));
  v.as_object(where.empty() ? "pattern" : where);
  if (const json::Value* c = v.find("condition"); c && c->as_bool(at("condition")))
    throw Error(cat("pattern ", where.empty() ? "root" : where, ": has a C++ condition, which a trace does not record"));
  UPat::Node n;
  if (const json::Value* ops = v.find("ops"); ops && !ops->is_null()) {
    OpSet set;
    for (const json::Value& o : ops->as_array(at("ops"))) {
      const std::string& name = o.as_string(at("ops"));
      std::optional<Ops> op = op_from_name(name);
      if (!op) throw Error(cat("pattern ", at("ops"), ": no op named '", name, "'"));
      set.add(*op);
    }
    n.ops = set;
  }
  if (const json::Value* dts = v.find("dtypes"))
    for (const json::Value& d : dts->as_array(at("dtypes"))) n.dtypes.push_back(decode_dtype(d.as_string(at("dtypes"))));
  if (const json::Value* a = v.find("arg")) n.arg = decode_arg(a->as_string(at("arg")));
  if (const json::Value* num = v.find("number")) n.number = num->number_or_nonfinite(at("number"));
  if (const json::Value* name = v.find("name")) n.name = name->as_string(at("name"));
  std::string kind = v.find("kind") ? v.at("kind").as_string(at("kind")) : "any";
  if (kind == "any") n.kind = UPat::SrcKind::Any;
  else if (kind == "ordered") n.kind = UPat::SrcKind::Ordered;
  else if (kind == "permuted") n.kind = UPat::SrcKind::Permuted;
  else if (kind == "repeated") n.kind = UPat::SrcKind::Repeated;
  else throw Error(cat("pattern ", at("kind"), ": '", kind, "' is none of any, ordered, permuted, repeated"));
  if (const json::Value* src = v.find("src")) {
    const json::Array& items = src->as_array(at("src"));
    for (size_t i = 0; i < items.size(); i++) n.src.push_back(decode_node(items[i], cat(at("src"), "[", i, "]"), depth + 1));
  }
  if (n.kind == UPat::SrcKind::Repeated && n.src.size() != 1)
    throw Error(cat("pattern ", at("src"), ": a repeated source is one pattern, got ", n.src.size()));
  if (n.kind == UPat::SrcKind::Any && !n.src.empty())
    throw Error(cat("pattern ", at("src"), ": sources given for a pattern of kind 'any'"));
  if (const json::Value* any = v.find("any_len")) n.allow_any_len = any->as_bool(at("any_len"));
  if (const json::Value* cl = v.find("classes")) {
    int64_t c = cl->as_int(at("classes"));
    if (c <= 0 || c > kClassAll) throw Error(cat("pattern ", at("classes"), ": ", c, " is not a set of dtype classes (1..15)"));
    n.classes = static_cast<uint8_t>(c);
  }
  return UPat::from_node(std::move(n));
}

} // namespace

std::string encode_upat(const UPat& pattern) { return encode_node(*pattern.node).dump(); }

bool upat_has_condition(const UPat& pattern) { return has_condition(*pattern.node); }

UPat decode_upat(std::string_view json_text) { return decode_node(json::parse(json_text), "", 0); }

} // namespace loupe
