#include "script/ast.h"

#include "script/value.h"
#include "support/error.h"

namespace loupe::script {

const char* op_symbol(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::FloorDiv: return "//";
  case BinOp::Mod: return "%";
  case BinOp::Pow: return "**";
  case BinOp::MatMul: return "@";
  case BinOp::BitAnd: return "&";
  case BinOp::BitOr: return "|";
  case BinOp::BitXor: return "^";
  case BinOp::LShift: return "<<";
  case BinOp::RShift: return ">>";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  }
  return "?";
}

const char* op_symbol(UnOp op) {
  switch (op) {
  case UnOp::Neg: return "-";
  case UnOp::Pos: return "+";
  case UnOp::Invert: return "~";
  }
  return "?";
}

bool is_comparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq || op == BinOp::Ne;
}

namespace {
std::string dump_opt(const ExprPtr& e) { return e ? dump(*e) : ""; }
} // namespace

std::string dump(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Name: return e.str;
  case ExprKind::Int: return int_str(e.ival);
  case ExprKind::Float: return float_repr(e.fval);
  case ExprKind::Str: return str_repr(e.str);
  case ExprKind::Bool: return e.bval ? "True" : "False";
  case ExprKind::None: return "None";
  case ExprKind::Ellipsis: return "...";
  case ExprKind::Tuple:
  case ExprKind::List: {
    bool tup = e.kind == ExprKind::Tuple;
    std::string s = tup ? "(" : "[";
    for (size_t i = 0; i < e.items.size(); i++) s += (i ? ", " : "") + dump(*e.items[i]);
    if (tup && e.items.size() == 1) s += ",";
    return s + (tup ? ")" : "]");
  }
  case ExprKind::Attribute: return dump(*e.a) + "." + e.str;
  case ExprKind::Call: {
    std::string s = dump(*e.a) + "(";
    bool first = true;
    for (const auto& x : e.items) {
      s += (first ? "" : ", ") + dump(*x);
      first = false;
    }
    for (const auto& k : e.keywords) {
      s += (first ? "" : ", ") + k.name + "=" + dump(*k.value);
      first = false;
    }
    return s + ")";
  }
  case ExprKind::Subscript: {
    // a tuple index prints without its parentheses, as written: x[1, ::2]
    std::string idx;
    if (e.b->kind == ExprKind::Tuple) {
      for (size_t i = 0; i < e.b->items.size(); i++) idx += (i ? ", " : "") + dump(*e.b->items[i]);
      if (e.b->items.size() == 1) idx += ",";
    } else {
      idx = dump(*e.b);
    }
    return dump(*e.a) + "[" + idx + "]";
  }
  case ExprKind::Slice: return dump_opt(e.a) + ":" + dump_opt(e.b) + (e.c ? ":" + dump(*e.c) : "");
  case ExprKind::Unary: return cat("(", op_symbol(e.uop), dump(*e.a), ")");
  case ExprKind::Binary: return cat("(", dump(*e.a), " ", op_symbol(e.bop), " ", dump(*e.b), ")");
  }
  return "?";
}

std::string dump(const Stmt& s) {
  if (s.kind == Stmt::Kind::Assign) return s.target + " = " + dump(*s.value);
  return dump(*s.value);
}

} // namespace loupe::script
