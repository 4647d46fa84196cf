// loupe-cli simplify: simplify an integer index expression and report its size and proven bounds
// (DESIGN.md §6).
//   loupe-cli simplify 'EXPR' --vars a=0:10,b=0:3   one expression, one JSON line
//   loupe-cli simplify --jsonl                      {"id","vars":{"a":[lo,hi]},"expr"} per input line
// Output: {"id","simplified","nodes","vmin","vmax"}; bounds are booleans for a comparison.
#include <iostream>
#include <string>

#include "cli/command.h"
#include "ir/print.h"
#include "support/error.h"
#include "support/json.h"
#include "symbolic/expr_parser.h"
#include "symbolic/symbolic.h"

namespace loupe::cli {

namespace {

json::Value bound(const UOpPtr& u, __int128 v) {
  if (u->dtype.is_bool()) return json::Value(v != 0);
  return json::Value(static_cast<int64_t>(v));
}

json::Value simplify_case(const std::string& expr, const VarRanges& vars) {
  UOpPtr parsed = parse_index_expr(expr, vars);
  UOpPtr s = simplify(parsed);
  for (const UOp* n : s->toposort())
    if ((n->op == Ops::FLOORDIV || n->op == Ops::FLOORMOD) && n->src[1]->vmin() == 0 && n->src[1]->vmax() == 0)
      throw Error(cat("division by zero: in ", render_expr(parsed), " a divisor is always 0"));
  json::Value out = json::Value::object();
  out.set("simplified", render_expr(s));
  out.set("nodes", json::Value(static_cast<int64_t>(s->toposort().size())));
  out.set("vmin", bound(s, s->vmin()));
  out.set("vmax", bound(s, s->vmax()));
  return out;
}

VarRanges vars_from_json(const json::Value& v) {
  VarRanges out;
  for (const auto& [name, range] : v.as_object("field 'vars'")) {
    std::string what = "vars['" + name + "']";
    const json::Array& r = range.as_array(what);
    if (r.size() != 2) throw Error(cat(what, ": expected [lo, hi]"));
    out[name] = {r[0].as_int(what + "[0]"), r[1].as_int(what + "[1]")};
  }
  return out;
}

json::Value answer(const std::string& line) {
  json::Value id;
  try {
    json::Value in = json::parse(line);
    in.as_object("a case");
    if (const json::Value* i = in.find("id")) id = *i;
    VarRanges vars = in.find("vars") ? vars_from_json(in.at("vars")) : VarRanges{};
    json::Value r = simplify_case(in.at("expr").as_string("field 'expr'"), vars);
    json::Value out(json::Object{{"id", id}});
    for (const auto& [k, v] : r.as_object()) out.set(k, v);
    return out;
  } catch (const std::exception& e) {  // user errors, and internal errors reported rather than fatal
    return json::Value(json::Object{{"id", id}, {"error", e.what()}});
  }
}

int run(const Args& args) {
  bool jsonl = false;
  std::string vars_spec, expr;
  bool have_expr = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    if (a == "--jsonl") jsonl = true;
    else if (a == "--vars") {
      if (i + 1 >= args.size()) throw Error("option --vars needs a value (name=lo:hi,...)");
      vars_spec = args[++i];
    } else if (a.rfind("--vars=", 0) == 0) vars_spec = a.substr(7);
    else if (a.rfind("--", 0) == 0 && a.size() > 2 && std::isalpha(static_cast<unsigned char>(a[2])))
      throw Error(cat("unknown option '", a, "'"));
    else if (have_expr) throw Error(cat("one expression expected, got another: '", a, "' (quote the expression)"));
    else {
      expr = a;
      have_expr = true;
    }
  }
  if (jsonl) {
    if (have_expr) throw Error("--jsonl reads cases from stdin: give no expression");
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::cout << answer(line).dump() << "\n" << std::flush;
    }
    return 0;
  }
  if (!have_expr) throw Error("usage: loupe-cli simplify 'EXPR' [--vars a=0:10,b=0:3] | loupe-cli simplify --jsonl");
  std::cout << simplify_case(expr, parse_var_ranges(vars_spec)).dump() << "\n";
  return 0;
}

Registrar reg("simplify", "simplify an index expression (or --jsonl cases) and show its bounds", run);

} // namespace

} // namespace loupe::cli
