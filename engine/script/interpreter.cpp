#include "script/interpreter.h"

#include "script/parser.h"
#include "support/error.h"

namespace loupe::script {

namespace {

// Runs one operation and gives its error the location of the node that asked for it.
template <typename F> Value at(Loc loc, F&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    throw Error(where(loc) + e.what());
  }
}

} // namespace

void Interpreter::run(const Program& program) {
  for (const Stmt& s : program.body) exec(s);
}

void Interpreter::run(std::string_view source) { run(parse(source)); }

void Interpreter::exec(const Stmt& stmt) {
  Value v = eval(*stmt.value);
  if (stmt.kind == Stmt::Kind::Assign) vars_[stmt.target] = std::move(v);
}

const Value* Interpreter::variable(const std::string& name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : &it->second;
}

Value Interpreter::lookup(const Expr& name) {
  auto it = vars_.find(name.str);
  if (it != vars_.end()) return it->second;
  return at(name.loc, [&] {
    std::optional<Value> b = host_.builtin(name.str);
    if (!b) throw Error(cat("name '", name.str, "' is not defined"));
    return *b;
  });
}

Value Interpreter::eval_index(const Expr& e) {
  if (e.kind == ExprKind::Slice) {
    auto part = [&](const ExprPtr& p) { return p ? eval(*p) : Value::none(); };
    Value a = part(e.a), b = part(e.b), c = part(e.c);
    return Value::slice(std::move(a), std::move(b), std::move(c));
  }
  if (e.kind == ExprKind::Tuple) {
    Items items;
    for (const auto& x : e.items) items.push_back(eval_index(*x));
    return Value::tuple(std::move(items));
  }
  return eval(e);
}

Value Interpreter::eval(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Name: return lookup(e);
  case ExprKind::Int: return Value::integer(e.ival);
  case ExprKind::Float: return Value::real(e.fval);
  case ExprKind::Str: return Value::str(e.str);
  case ExprKind::Bool: return Value::boolean(e.bval);
  case ExprKind::None: return Value::none();
  case ExprKind::Ellipsis: return Value::ellipsis();
  case ExprKind::Tuple:
  case ExprKind::List: {
    Items items;
    items.reserve(e.items.size());
    for (const auto& x : e.items) items.push_back(eval(*x));
    return e.kind == ExprKind::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  case ExprKind::Attribute: {
    Value obj = eval(*e.a);
    return at(e.op_loc, [&] {
      if (!obj.is_object()) throw Error(cat("'", type_name(obj), "' object has no attribute '", e.str, "'"));
      return host_.attribute(obj, e.str);
    });
  }
  case ExprKind::Call: {
    Value callee = eval(*e.a);
    std::vector<Value> args;
    args.reserve(e.items.size());
    for (const auto& x : e.items) args.push_back(eval(*x));
    KwArgs kwargs;
    for (const auto& k : e.keywords) kwargs.emplace_back(k.name, eval(*k.value));
    // a method's errors point at its name (x.reshape(...) -> "reshape"), other calls at the '('
    Loc loc = e.a->kind == ExprKind::Attribute ? e.a->op_loc : e.op_loc;
    return at(loc, [&] {
      if (!callee.is_object()) throw Error(cat("'", type_name(callee), "' object is not callable"));
      return host_.call(callee, args, kwargs);
    });
  }
  case ExprKind::Subscript: {
    Value obj = eval(*e.a);
    Value index = eval_index(*e.b);
    return at(e.op_loc, [&] { return obj.is_object() ? host_.subscript(obj, index) : py_subscript(obj, index); });
  }
  case ExprKind::Slice:
    throw Error(where(e.loc) + "a slice is only allowed inside a subscript");
  case ExprKind::Unary: {
    Value v = eval(*e.a);
    return at(e.op_loc, [&] { return v.is_object() ? host_.unary(e.uop, v) : py_unary(e.uop, v); });
  }
  case ExprKind::Binary: {
    Value a = eval(*e.a);
    Value b = eval(*e.b);
    return at(e.op_loc, [&] {
      return a.is_object() || b.is_object() ? host_.binary(e.bop, a, b) : py_binary(e.bop, a, b);
    });
  }
  }
  LOUPE_ASSERT(false, "unknown expression kind");
}

} // namespace loupe::script
