#include "jit/jit_vars.h"

#include <functional>

#include "rewrite/graph_rewrite.h"
#include "shape/sint_arg.h"
#include "support/error.h"

namespace loupe {

namespace {

bool bound_var(const UOp* u) { return u->op == Ops::BIND && u->src.size() == 2 && u->src[1]->is_const(); }

void note(VarValues& out, const UOpPtr& var, int64_t value) {
  check_var_bounds(var, value);
  const std::string name = var->var_name();
  auto [it, fresh] = out.emplace(name, value);
  if (!fresh && it->second != value)
    throw AssertionError(cat("TinyJit: the Variable ", name, " is bound to ", it->second, " and to ", value, " in one call"));
}

UOpPtr rebind_expr(const UOpPtr& e, const VarValues& values) {
  UOpMap<UOpPtr> repl;
  for (const UOp* u : e->toposort()) {
    if (!bound_var(u)) continue;
    auto it = values.find(u->src[0]->var_name());
    if (it == values.end() || it->second == u->src[1]->const_int()) continue;
    repl.emplace(u->ptr(), UOp::make(Ops::BIND, u->dtype, {u->src[0], UOp::cnst_int(u->src[1]->dtype, it->second)}));
  }
  return repl.empty() ? e : substitute(e, repl);
}

Arg rebind_arg(const Arg& a, const VarValues& values, bool& changed) {
  if (const auto* s = a.object<SintArg>()) {
    sint r = rebind(s->value(), values);
    if (r == s->value()) return a;
    changed = true;
    return sint_to_arg(r);
  }
  if (!a.is_tuple()) return a;
  Arg::Tuple t;
  for (const Arg& x : a.as_tuple()) t.push_back(rebind_arg(x, values, changed));
  return Arg(std::move(t));
}

} // namespace

void check_var_bounds(const UOpPtr& var, int64_t value) {
  const Arg::Tuple& a = var->arg.as_tuple();  // (name, min, max)
  const int64_t lo = a.at(1).as_int(), hi = a.at(2).as_int();
  if (value < lo || value > hi)
    throw AssertionError(cat("TinyJit: the Variable ", var->var_name(), " = ", value, " is outside its bounds [", lo, ", ", hi, "]"));
}

VarValues call_var_values(const std::vector<Tensor>& inputs, const VarValues& extra) {
  VarValues out;
  for (const Tensor& t : inputs)
    for (const sint& d : t.sshape()) {
      if (d.is_int()) continue;
      for (const UOp* u : d.sym()->toposort())
        if (bound_var(u)) note(out, u->src[0], u->src[1]->const_int());
    }
  for (const auto& [name, v] : extra) {
    auto [it, fresh] = out.emplace(name, v);
    if (!fresh && it->second != v)
      throw AssertionError(cat("TinyJit: the Variable ", name, " is bound to ", it->second, " and to ", v, " in one call"));
  }
  return out;
}

sints unbound_shape(const sints& shape) {
  sints out;
  for (const sint& d : shape) {
    if (d.is_int()) {
      out.push_back(d);
      continue;
    }
    UOpMap<UOpPtr> repl;
    for (const UOp* u : d.sym()->toposort())
      if (bound_var(u)) repl.emplace(u->ptr(), u->src[0]);
    out.push_back(sint(repl.empty() ? d.sym() : substitute(d.sym(), repl)));
  }
  return out;
}

sint rebind(const sint& x, const VarValues& values) {
  if (x.is_int() || values.empty()) return x;
  UOpPtr e = rebind_expr(x.sym(), values);
  return e == x.sym() ? x : sint(e);
}

sints rebind(const sints& xs, const VarValues& values) {
  sints out;
  for (const sint& x : xs) out.push_back(rebind(x, values));
  return out;
}

UOpPtr rebind_graph(const UOpPtr& u, const VarValues& values) {
  if (values.empty()) return u;
  UOpMap<UOpPtr> memo;
  std::function<UOpPtr(const UOpPtr&)> go = [&](const UOpPtr& n) -> UOpPtr {
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    UOpPtr out;
    if (bound_var(n.get())) {
      out = rebind_expr(n, values);
    } else {
      bool changed = false;
      UOpList src;
      for (const UOpPtr& s : n->src) {
        src.push_back(go(s));
        changed = changed || src.back() != s;
      }
      Arg arg = rebind_arg(n->arg, values, changed);
      out = changed ? UOp::make(n->op, n->dtype, std::move(src), arg) : n;
    }
    memo.emplace(n, out);
    return out;
  };
  return go(u);
}

} // namespace loupe
