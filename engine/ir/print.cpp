#include "ir/print.h"

#include <sstream>
#include <unordered_map>

namespace loupe {

namespace {

bool is_neg_one(const UOpPtr& u) { return u->op == Ops::CONST && u->arg.is_int() && u->arg.as_int() == -1; }

// -max(-a, -b) is how min is spelled in the IR.
bool as_min(const UOpPtr& u, UOpPtr& a, UOpPtr& b) {
  if (u->op != Ops::MUL || !is_neg_one(u->src[1]) || u->src[0]->op != Ops::MAX) return false;
  const UOpPtr& m = u->src[0];
  auto neg_of = [](const UOpPtr& x) -> UOpPtr {
    if (x->op == Ops::MUL && is_neg_one(x->src[1])) return x->src[0];
    if (x->op == Ops::CONST && x->arg.is_int()) return UOp::cnst_int(x->dtype, -x->arg.as_int());
    return nullptr;
  };
  a = neg_of(m->src[0]);
  b = neg_of(m->src[1]);
  return a && b;
}

std::string render(const UOpPtr& u);

std::string bin(const UOpPtr& a, const char* op, const UOpPtr& b) { return "(" + render(a) + op + render(b) + ")"; }

std::string render(const UOpPtr& u) {
  switch (u->op) {
  case Ops::CONST:
    if (u->arg.is_bool()) return u->arg.as_bool() ? "True" : "False";
    if (u->arg.is_int())
      return u->dtype.scalar().is_unsigned() ? std::to_string(static_cast<uint64_t>(u->arg.as_int()))
                                             : std::to_string(u->arg.as_int());
    return format_double(u->arg.as_double());
  case Ops::DEFINE_VAR:
  case Ops::RANGE:
  case Ops::SPECIAL: return u->var_name();
  case Ops::BIND: return render(u->src[0]);
  case Ops::CAST: return render(u->src[0]);
  case Ops::ADD: {
    const UOpPtr& a = u->src[0];
    const UOpPtr& b = u->src[1];
    bool signed_int = b->op == Ops::CONST && b->arg.is_int() && !b->dtype.scalar().is_unsigned();
    if (signed_int && b->arg.as_int() < 0 && b->arg.as_int() != INT64_MIN)
      return "(" + render(a) + "-" + std::to_string(-b->arg.as_int()) + ")";
    if (b->op == Ops::MUL && is_neg_one(b->src[1])) return bin(a, "-", b->src[0]);
    // (-x)+y reads better as y-x (a negated first term is how index sums spell "c - x")
    UOpPtr lo, hi;
    if (a->op == Ops::MUL && is_neg_one(a->src[1]) && !as_min(a, lo, hi)) return bin(b, "-", a->src[0]);
    return bin(a, "+", b);
  }
  case Ops::MUL: {
    UOpPtr a, b;
    if (as_min(u, a, b)) return "min(" + render(a) + ", " + render(b) + ")";
    if (is_neg_one(u->src[1])) return "(-" + render(u->src[0]) + ")";
    return bin(u->src[0], "*", u->src[1]);
  }
  case Ops::NEG: return "(-" + render(u->src[0]) + ")";
  case Ops::SUB: return bin(u->src[0], "-", u->src[1]);
  case Ops::FLOORDIV: return bin(u->src[0], "//", u->src[1]);
  case Ops::FLOORMOD: return bin(u->src[0], "%", u->src[1]);
  case Ops::IDIV: return "cdiv(" + render(u->src[0]) + ", " + render(u->src[1]) + ")";
  case Ops::MOD: return "cmod(" + render(u->src[0]) + ", " + render(u->src[1]) + ")";
  case Ops::MAX: return "max(" + render(u->src[0]) + ", " + render(u->src[1]) + ")";
  case Ops::CMPLT: return bin(u->src[0], "<", u->src[1]);
  case Ops::CMPNE:
    if (u->src[0]->dtype.is_bool() && u->src[1]->is_const() && u->src[1]->const_value() == 1)
      return "(not " + render(u->src[0]) + ")";
    return bin(u->src[0], "!=", u->src[1]);
  case Ops::AND: return u->dtype.is_bool() ? bin(u->src[0], " and ", u->src[1]) : bin(u->src[0], "&", u->src[1]);
  case Ops::OR: return u->dtype.is_bool() ? bin(u->src[0], " or ", u->src[1]) : bin(u->src[0], "|", u->src[1]);
  case Ops::XOR: return bin(u->src[0], "^", u->src[1]);
  case Ops::SHL: return bin(u->src[0], "<<", u->src[1]);
  case Ops::SHR: return bin(u->src[0], ">>", u->src[1]);
  case Ops::WHERE: return "(" + render(u->src[1]) + " if " + render(u->src[0]) + " else " + render(u->src[2]) + ")";
  default: return std::string(op_name(u->op)) + "(...)";
  }
}

} // namespace

std::string render_expr(const UOpPtr& u) { return render(u); }

std::string uop_label(const UOp& u, size_t max_arg_chars) {
  std::string s(op_name(u.op));
  if (!u.dtype.is_void()) s += " " + u.dtype.short_name();
  if (!u.arg.is_none()) {
    std::string a = u.arg.str();
    if (a.size() > max_arg_chars) a = a.substr(0, max_arg_chars - 3) + "...";
    s += " " + a;
  }
  return s;
}

std::string print_graph(const UOpPtr& root) {
  std::vector<const UOp*> order = root->toposort();
  std::unordered_map<const UOp*, size_t> index;
  std::ostringstream os;
  for (size_t i = 0; i < order.size(); i++) {
    const UOp* u = order[i];
    index[u] = i;
    std::string op(op_name(u->op));
    os << (i < 10 ? "   " : i < 100 ? "  " : i < 1000 ? " " : "") << i << " " << op
       << std::string(op.size() < 14 ? 14 - op.size() : 1, ' ') << u->dtype.short_name();
    os << std::string(u->dtype.short_name().size() < 10 ? 10 - u->dtype.short_name().size() : 1, ' ') << "[";
    for (size_t j = 0; j < u->src.size(); j++) os << (j ? ", " : "") << index[u->src[j].get()];
    os << "]  " << u->arg.str() << "\n";
  }
  return os.str();
}

} // namespace loupe
