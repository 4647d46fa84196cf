#include "shape/shape_json.h"

#include "shape/shapetracker.h"
#include "support/error.h"

namespace loupe {

namespace {

constexpr Ops kExprOps[] = {Ops::ADD, Ops::SUB, Ops::MUL, Ops::NEG, Ops::FLOORDIV, Ops::FLOORMOD,
                            Ops::IDIV, Ops::MOD, Ops::MAX, Ops::CAST};

json::Value expr_to_json(const UOpPtr& u) {
  switch (u->op) {
  case Ops::CONST: return json::Value(u->const_int());
  case Ops::DEFINE_VAR: {
    const auto& t = u->arg.as_tuple();
    return json::Value::array({"var", t[0].as_string(), t[1].as_int(), t[2].as_int()});
  }
  case Ops::BIND: return json::Value::array({"bind", expr_to_json(u->src[0]), u->src[1]->const_int()});
  default: break;
  }
  bool known = false;
  for (Ops o : kExprOps) known = known || o == u->op;
  LOUPE_ASSERT(known, "cannot encode ", op_name(u->op), " in a shape expression");
  json::Value out = json::Value::array({std::string(op_name(u->op))});
  for (const UOpPtr& s : u->src) out.push_back(expr_to_json(s));
  return out;
}

UOpPtr expr_from_json(const json::Value& v, const std::string& what, int depth) {
  if (depth > 200) throw Error(cat(what, ": expression nested too deeply"));
  if (v.is_number()) return UOp::cnst_int(dtypes::index, v.as_int(what));
  if (!v.is_array()) throw Error(cat(what, " must be an integer (or a symbolic expression array), not ", json::type_name(v.type())));
  const json::Array& a = v.as_array(what);
  if (a.empty()) throw Error(cat(what, ": empty expression"));
  const std::string& head = a[0].as_string(cat(what, "[0]"));
  if (head == "var") {
    if (a.size() != 4) throw Error(cat(what, ": [\"var\", name, lo, hi] needs 4 items"));
    int64_t lo = a[2].as_int(cat(what, "[2]")), hi = a[3].as_int(cat(what, "[3]"));
    if (lo > hi) throw Error(cat(what, ": variable range [", lo, ", ", hi, "] is empty"));
    return UOp::variable(a[1].as_string(cat(what, "[1]")), lo, hi);
  }
  if (head == "bind") {
    if (a.size() != 3) throw Error(cat(what, ": [\"bind\", var, value] needs 3 items"));
    UOpPtr var = expr_from_json(a[1], cat(what, "[1]"), depth + 1);
    if (var->op != Ops::DEFINE_VAR) throw Error(cat(what, ": bind needs a variable"));
    int64_t val = a[2].as_int(cat(what, "[2]"));
    return UOp::make(Ops::BIND, var->dtype, {var, UOp::cnst_int(var->dtype, val)});
  }
  std::optional<Ops> op = op_from_name(head);
  bool known = false;
  for (Ops o : kExprOps) known = known || (op && o == *op);
  if (!known) throw Error(cat(what, ": unknown expression head \"", head, "\""));
  size_t arity = (*op == Ops::NEG || *op == Ops::CAST) ? 1 : 2;
  if (a.size() != arity + 1) throw Error(cat(what, ": ", head, " takes ", arity, " operand(s)"));
  UOpList src;
  for (size_t i = 1; i < a.size(); i++) src.push_back(expr_from_json(a[i], cat(what, "[", i, "]"), depth + 1));
  if (*op == Ops::CAST) return src[0];
  return alu(*op, src);
}

} // namespace

json::Value sint_to_json(const sint& x) { return x.is_int() ? json::Value(x.as_int()) : expr_to_json(x.sym()); }

sint sint_from_json(const json::Value& v, std::string_view what) {
  UOpPtr u = expr_from_json(v, std::string(what), 0);
  if (!u->dtype.is_int()) throw Error(cat(what, ": not an integer expression"));
  return sint(u);
}

json::Value view_to_json(const View& v) {
  json::Value shape = json::Value::array(), strides = json::Value::array();
  for (const sint& s : v.shape) shape.push_back(sint_to_json(s));
  for (const sint& s : v.strides) strides.push_back(sint_to_json(s));
  json::Value mask;
  if (v.mask) {
    mask = json::Value::array();
    for (const auto& [b, e] : *v.mask) mask.push_back(json::Value::array({sint_to_json(b), sint_to_json(e)}));
  }
  json::Value out = json::Value::object();
  out.set("shape", shape);
  out.set("strides", strides);
  out.set("offset", sint_to_json(v.offset));
  out.set("mask", mask);
  out.set("contiguous", v.contiguous);
  return out;
}

View view_from_json(const json::Value& j) {
  View v;
  const json::Array& shape = j.at("shape").as_array("view shape");
  const json::Array& strides = j.at("strides").as_array("view strides");
  if (shape.size() != strides.size())
    throw Error(cat("view has ", shape.size(), " dims but ", strides.size(), " strides"));
  for (size_t i = 0; i < shape.size(); i++) {
    v.shape.push_back(sint_from_json(shape[i], cat("view shape[", i, "]")));
    if (v.shape.back().is_int() && v.shape.back().as_int() < 0) throw Error(cat("view shape[", i, "] is negative"));
    v.strides.push_back(sint_from_json(strides[i], cat("view strides[", i, "]")));
  }
  v.offset = sint_from_json(j.at("offset"), "view offset");
  const json::Value& mask = j.at("mask");
  if (!mask.is_null()) {
    const json::Array& m = mask.as_array("view mask");
    if (m.size() != shape.size()) throw Error(cat("view mask has ", m.size(), " ranges for ", shape.size(), " dims"));
    v.mask.emplace();
    for (size_t i = 0; i < m.size(); i++) {
      const json::Array& r = m[i].as_array(cat("view mask[", i, "]"));
      if (r.size() != 2) throw Error(cat("view mask[", i, "] must be [begin, end]"));
      v.mask->emplace_back(sint_from_json(r[0], cat("view mask[", i, "][0]")), sint_from_json(r[1], cat("view mask[", i, "][1]")));
    }
  }
  v.contiguous = j.at("contiguous").as_bool("view contiguous");
  return v;
}

sints sints_from_json(const json::Value& v, std::string_view what) {
  sints out;
  const json::Array& a = v.as_array(what);
  for (size_t i = 0; i < a.size(); i++) out.push_back(sint_from_json(a[i], cat(what, "[", i, "]")));
  return out;
}

Ranges ranges_from_json(const json::Value& v, std::string_view what) {
  Ranges out;
  const json::Array& a = v.as_array(what);
  for (size_t i = 0; i < a.size(); i++) {
    const json::Array& p = a[i].as_array(cat(what, "[", i, "]"));
    if (p.size() != 2) throw Error(cat(what, "[", i, "] must be a pair [a, b], got ", a[i].dump()));
    out.emplace_back(sint_from_json(p[0], cat(what, "[", i, "][0]")), sint_from_json(p[1], cat(what, "[", i, "][1]")));
  }
  return out;
}

ShapeTracker apply_json_op(const ShapeTracker& st, const json::Value& op, size_t k) {
  const json::Array& a = op.as_array(cat("ops[", k, "]"));
  if (a.size() != 2) throw Error(cat("ops[", k, "] must be [name, argument], got ", op.dump()));
  const std::string& name = a[0].as_string(cat("ops[", k, "][0]"));
  std::string what = cat("ops[", k, "] (", name, ") argument");
  try {
    if (name == "reshape") return st.reshape(sints_from_json(a[1], what));
    if (name == "expand") return st.expand(sints_from_json(a[1], what));
    if (name == "permute") return st.permute(a[1].as_ints(what));
    if (name == "pad") return st.pad(ranges_from_json(a[1], what));
    if (name == "shrink") return st.shrink(ranges_from_json(a[1], what));
    if (name == "flip") return st.flip_axes(a[1].as_ints(what));
  } catch (const Error& e) {
    throw Error(cat("ops[", k, "] ", name, " ", a[1].dump(), " on shape ", shape_str(st.shape()), ": ", e.what()));
  }
  throw Error(cat("ops[", k, "]: unknown movement op \"", name,
                  "\" (expected reshape, permute, expand, pad, shrink or flip)"));
}

} // namespace loupe
