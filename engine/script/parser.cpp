#include "script/parser.h"

#include <map>
#include <set>

#include "support/error.h"

namespace loupe::script {

namespace {

const std::set<std::string>& python_keywords() {
  static const std::set<std::string> k = {
      "False", "None",   "True",    "and",      "as",     "assert", "async", "await",  "break",
      "class", "continue", "def",   "del",      "elif",   "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",     "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",    "while",  "with",   "yield"};
  return k;
}

// What a keyword starts, in the words of the error message, and a hint where one helps.
struct Forbidden {
  const char* what;
  const char* hint;
};
const std::map<std::string, Forbidden>& forbidden_keywords() {
  static const std::map<std::string, Forbidden> m = {
      {"for", {"a 'for' loop", ""}},
      {"while", {"a 'while' loop", ""}},
      {"if", {"an 'if' statement", "use cond.where(a, b) on tensors"}},
      {"elif", {"an 'if' statement", ""}},
      {"else", {"an 'if' statement", ""}},
      {"def", {"a function definition ('def')", ""}},
      {"class", {"a class definition", ""}},
      {"import", {"an import", "Tensor and dtypes are already available"}},
      {"from", {"an import", "Tensor and dtypes are already available"}},
      {"with", {"a 'with' statement", ""}},
      {"try", {"a 'try' statement", ""}},
      {"except", {"a 'try' statement", ""}},
      {"finally", {"a 'try' statement", ""}},
      {"return", {"'return'", "the result is the variable 'out'"}},
      {"yield", {"'yield'", ""}},
      {"lambda", {"a lambda", ""}},
      {"del", {"'del'", ""}},
      {"pass", {"'pass'", ""}},
      {"break", {"'break'", ""}},
      {"continue", {"'continue'", ""}},
      {"raise", {"'raise'", ""}},
      {"global", {"'global'", ""}},
      {"nonlocal", {"'nonlocal'", ""}},
      {"assert", {"'assert'", ""}},
      {"async", {"'async'", ""}},
      {"await", {"'await'", ""}},
      {"and", {"'and'", "use & on tensors"}},
      {"or", {"'or'", "use | on tensors"}},
      {"not", {"'not'", "use ~ or logical_not() on tensors"}},
      {"in", {"the 'in' operator", ""}},
      {"is", {"the 'is' operator", "use == or !="}},
  };
  return m;
}

const std::set<std::string>& statement_keywords() {
  static const std::set<std::string> k = {"for",  "while", "if",   "elif",   "else",   "def",    "class",  "import",
                                          "from", "with",  "try",  "except", "finally", "return", "yield", "del",
                                          "pass", "break", "continue", "raise", "global", "nonlocal", "assert", "async"};
  return k;
}

constexpr int kMaxDepth = 200;    // nesting of parentheses and unary operators (Python's parser has one too)
constexpr int kMaxHeight = 1000;  // height of a tree: evaluating and freeing it recurse that deep

ExprPtr node(ExprKind kind, Loc loc) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->loc = loc;
  e->op_loc = loc;
  return e;
}

// Sets e's height from its children's and refuses trees too tall to walk recursively.
ExprPtr finish(ExprPtr e) {
  int h = 0;
  auto see = [&](const ExprPtr& c) {
    if (c) h = std::max(h, c->height);
  };
  see(e->a);
  see(e->b);
  see(e->c);
  for (const auto& c : e->items) see(c);
  for (const auto& k : e->keywords) see(k.value);
  e->height = h + 1;
  if (e->height > kMaxHeight)
    throw Error(where(e->op_loc) + cat("expression is too deeply nested or too long (more than ", kMaxHeight, " levels)"));
  return e;
}

class Parser {
public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Program program() {
    Program p;
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Newline) {
        take();
        continue;
      }
      statement_line(p);
    }
    return p;
  }

  ExprPtr lone_expression() {
    auto e = expr_list();
    while (peek().kind == Tok::Newline) take();
    if (peek().kind != Tok::End) unexpected(peek());
    return e;
  }

private:
  const Token& peek(size_t k = 0) const {
    const Token& t = t_[std::min(i_ + k, t_.size() - 1)];
    if (t.kind == Tok::Error) throw Error(t.text);  // a lexical error, reached in source order
    return t;
  }
  bool is_op(const char* s, size_t k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == s; }
  bool is_name(const char* s, size_t k = 0) const { return peek(k).kind == Tok::Name && peek(k).text == s; }
  const Token& take() {
    const Token& t = peek();
    if (i_ < t_.size() - 1) i_++;
    return t;
  }

  [[noreturn]] void fail(Loc loc, const std::string& msg) const { throw Error(where(loc) + msg); }
  [[noreturn]] void forbid(Loc loc, const std::string& what, const std::string& hint = "") const {
    fail(loc, what + " is not allowed in a tensor script" + (hint.empty() ? "" : " (" + hint + ")"));
  }
  [[noreturn]] void forbid_keyword(const Token& t) const {
    const Forbidden& f = forbidden_keywords().at(t.text);
    forbid(t.loc, f.what, f.hint);
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
    case Tok::Name: return cat("'", t.text, "'");
    case Tok::Int:
    case Tok::Float: return cat("number ", t.text);
    case Tok::String: return "string literal";
    case Tok::Op: return cat("'", t.text, "'");
    case Tok::Newline: return "end of line";
    case Tok::End: return "end of script";
    case Tok::Error: break;
    }
    return "token";
  }
  [[noreturn]] void unexpected(const Token& t) const {
    if (t.kind == Tok::End) fail(t.loc, "unexpected end of script");
    fail(t.loc, "invalid syntax: unexpected " + describe(t));
  }
  void expect_op(const char* s) {
    if (!is_op(s)) {
      const Token& t = peek();
      if (t.kind == Tok::End || t.kind == Tok::Newline) fail(t.loc, cat("expected '", s, "' but found ", describe(t)));
      fail(t.loc, cat("invalid syntax: expected '", s, "' but found ", describe(t)));
    }
    take();
  }

  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, Loc loc) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail(loc, cat("expression is nested too deeply (more than ", kMaxDepth, " levels)"));
    }
    ~DepthGuard() { p.depth_--; }
  };

  // ---- statements ----
  void statement_line(Program& p) {
    for (;;) {
      p.body.push_back(simple_statement());
      if (!is_op(";")) break;
      take();
      if (peek().kind == Tok::Newline || peek().kind == Tok::End) break;
    }
    if (peek().kind == Tok::Newline) {
      take();
      return;
    }
    if (peek().kind != Tok::End) unexpected(peek());
  }

  Stmt simple_statement() {
    const Token& t = peek();
    if (t.kind == Tok::Name && statement_keywords().count(t.text)) forbid_keyword(t);
    if (t.kind == Tok::Op && t.text == "@") forbid(t.loc, "a decorator");
    ExprPtr lhs = expr_list();
    Stmt s;
    s.loc = lhs->loc;
    if (is_op("=")) {
      take();
      switch (lhs->kind) {
      case ExprKind::Name: break;
      case ExprKind::Tuple:
      case ExprKind::List: forbid(lhs->loc, "an unpacking assignment (a, b = ...)", "assign one name per statement");
      case ExprKind::Attribute: forbid(lhs->op_loc, "assignment to an attribute");
      case ExprKind::Subscript: forbid(lhs->op_loc, "assignment to a subscript (x[...] = ...)");
      case ExprKind::Call: fail(lhs->loc, "cannot assign to a function call");
      default: fail(lhs->loc, "cannot assign to an expression");
      }
      if (python_keywords().count(lhs->str)) fail(lhs->loc, cat("cannot assign to ", lhs->str));
      ExprPtr rhs = expr_list();
      if (is_op("=")) forbid(peek().loc, "a chained assignment (a = b = ...)");
      s.kind = Stmt::Kind::Assign;
      s.target = lhs->str;
      s.value = std::move(rhs);
      return s;
    }
    static const std::set<std::string> augmented = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};
    if (peek().kind == Tok::Op && augmented.count(peek().text))
      forbid(peek().loc, cat("an augmented assignment ('", peek().text, "')"), "write x = x + y");
    if (is_op(":")) forbid(peek().loc, "an annotated assignment");
    s.kind = Stmt::Kind::Expr;
    s.value = std::move(lhs);
    return s;
  }

  bool starts_expression(const Token& t) const {
    switch (t.kind) {
    case Tok::Int:
    case Tok::Float:
    case Tok::String: return true;
    case Tok::Name: return !python_keywords().count(t.text) || t.text == "True" || t.text == "False" || t.text == "None" ||
                           t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield";
    case Tok::Op: return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
                         t.text == "~" || t.text == "..." || t.text == "*";
    default: return false;
    }
  }

  // a, b, c (a tuple without parentheses) or a single expression
  ExprPtr expr_list() {
    ExprPtr first = item_expression();
    if (!is_op(",")) return first;
    auto tup = node(ExprKind::Tuple, first->loc);
    tup->items.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (!starts_expression(peek())) break;
      tup->items.push_back(item_expression());
    }
    return finish(std::move(tup));
  }

  // An element of a display or an argument: like expression(), but a '*' gets its own message.
  ExprPtr item_expression() {
    if (is_op("*")) forbid(peek().loc, "a starred expression (*x)");
    if (is_op("**")) forbid(peek().loc, "dictionary unpacking (**x)");
    return expression();
  }

  // ---- expressions, lowest precedence first ----
  ExprPtr expression() {
    DepthGuard guard(*this, peek().loc);
    if (is_name("lambda") || is_name("yield")) forbid_keyword(peek());
    ExprPtr e = disjunction();
    if (is_name("if")) forbid(peek().loc, "a conditional expression (a if c else b)", "use c.where(a, b) on tensors");
    if (is_op(":=")) forbid(peek().loc, "an assignment expression (:=)");
    return e;
  }

  ExprPtr disjunction() {
    if (is_name("not")) forbid_keyword(peek());
    ExprPtr e = comparison();
    if (is_name("and") || is_name("or")) forbid_keyword(peek());
    return e;
  }

  bool comparison_op(BinOp& op) const {
    static const std::map<std::string, BinOp> ops = {{"<", BinOp::Lt}, {"<=", BinOp::Le}, {">", BinOp::Gt},
                                                     {">=", BinOp::Ge}, {"==", BinOp::Eq}, {"!=", BinOp::Ne}};
    if (peek().kind != Tok::Op) return false;
    auto it = ops.find(peek().text);
    if (it == ops.end()) return false;
    op = it->second;
    return true;
  }
  void reject_membership() const {
    if (is_name("in") || is_name("is")) forbid_keyword(peek());
    if (is_name("not") && is_name("in", 1)) forbid(peek().loc, "the 'not in' operator");
  }

  ExprPtr comparison() {
    ExprPtr e = bit_or();
    reject_membership();
    BinOp op;
    if (!comparison_op(op)) return e;
    Loc at = take().loc;
    ExprPtr rhs = bit_or();
    auto b = node(ExprKind::Binary, e->loc);
    b->op_loc = at;
    b->bop = op;
    b->a = std::move(e);
    b->b = std::move(rhs);
    reject_membership();
    if (comparison_op(op)) forbid(peek().loc, "a chained comparison (a < b < c)", "write (a < b) & (b < c)");
    return finish(std::move(b));
  }

  template <typename Next>
  ExprPtr left_assoc(Next next, std::initializer_list<std::pair<const char*, BinOp>> ops) {
    ExprPtr e = (this->*next)();
    for (;;) {
      const std::pair<const char*, BinOp>* hit = nullptr;
      for (const auto& o : ops)
        if (is_op(o.first)) hit = &o;
      if (!hit) return e;
      Loc at = take().loc;
      ExprPtr rhs = (this->*next)();
      auto b = node(ExprKind::Binary, e->loc);
      b->op_loc = at;
      b->bop = hit->second;
      b->a = std::move(e);
      b->b = std::move(rhs);
      e = finish(std::move(b));
    }
  }
  ExprPtr bit_or() { return left_assoc(&Parser::bit_xor, {{"|", BinOp::BitOr}}); }
  ExprPtr bit_xor() { return left_assoc(&Parser::bit_and, {{"^", BinOp::BitXor}}); }
  ExprPtr bit_and() { return left_assoc(&Parser::shift, {{"&", BinOp::BitAnd}}); }
  ExprPtr shift() { return left_assoc(&Parser::arith, {{"<<", BinOp::LShift}, {">>", BinOp::RShift}}); }
  ExprPtr arith() { return left_assoc(&Parser::term, {{"+", BinOp::Add}, {"-", BinOp::Sub}}); }
  ExprPtr term() {
    return left_assoc(&Parser::factor, {{"*", BinOp::Mul}, {"/", BinOp::Div}, {"//", BinOp::FloorDiv},
                                        {"%", BinOp::Mod}, {"@", BinOp::MatMul}});
  }

  ExprPtr factor() {
    UnOp op;
    if (is_op("-")) op = UnOp::Neg;
    else if (is_op("+")) op = UnOp::Pos;
    else if (is_op("~")) op = UnOp::Invert;
    else return power();
    DepthGuard guard(*this, peek().loc);
    Loc at = take().loc;
    auto u = node(ExprKind::Unary, at);
    u->uop = op;
    u->a = factor();
    return finish(std::move(u));
  }

  // primary ['**' factor]: right-associative and binds tighter than a unary operator on its left
  ExprPtr power() {
    ExprPtr e = primary();
    if (!is_op("**")) return e;
    Loc at = take().loc;
    auto b = node(ExprKind::Binary, e->loc);
    b->op_loc = at;
    b->bop = BinOp::Pow;
    b->a = std::move(e);
    b->b = factor();
    return finish(std::move(b));
  }

  ExprPtr primary() {
    if (is_name("await")) forbid_keyword(peek());
    ExprPtr e = atom();
    for (;;) {
      if (is_op(".")) {
        take();
        const Token& name = peek();
        if (name.kind != Tok::Name || python_keywords().count(name.text))
          fail(name.loc, "invalid syntax: expected an attribute name after '.' but found " + describe(name));
        take();
        auto a = node(ExprKind::Attribute, e->loc);
        a->op_loc = name.loc;
        a->str = name.text;
        a->a = std::move(e);
        e = finish(std::move(a));
      } else if (is_op("(")) {
        auto c = node(ExprKind::Call, e->loc);
        c->op_loc = take().loc;
        c->a = std::move(e);
        call_args(*c);
        e = finish(std::move(c));
      } else if (is_op("[")) {
        auto s = node(ExprKind::Subscript, e->loc);
        s->op_loc = take().loc;
        s->a = std::move(e);
        s->b = subscript_index();
        expect_op("]");
        e = finish(std::move(s));
      } else {
        return e;
      }
    }
  }

  void call_args(Expr& call) {
    std::set<std::string> seen;
    while (!is_op(")")) {
      if (is_op("*")) forbid(peek().loc, "argument unpacking (*args)");
      if (is_op("**")) forbid(peek().loc, "keyword argument unpacking (**kwargs)");
      if (peek().kind == Tok::Name && !python_keywords().count(peek().text) && is_op("=", 1)) {
        Keyword kw;
        kw.loc = peek().loc;
        kw.name = take().text;
        take();
        if (!seen.insert(kw.name).second) fail(kw.loc, cat("keyword argument repeated: '", kw.name, "'"));
        kw.value = expression();
        call.keywords.push_back(std::move(kw));
      } else {
        if (!call.keywords.empty()) fail(peek().loc, "positional argument follows keyword argument");
        call.items.push_back(expression());
        if (is_name("for") || is_name("async")) forbid(peek().loc, "a generator expression");
      }
      if (!is_op(",")) break;
      take();
    }
    expect_op(")");
  }

  ExprPtr subscript_index() {
    ExprPtr first = slice_item();
    if (!is_op(",")) return first;
    auto tup = node(ExprKind::Tuple, first->loc);
    tup->items.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (is_op("]")) break;
      tup->items.push_back(slice_item());
    }
    return finish(std::move(tup));
  }

  ExprPtr slice_item() {
    Loc at = peek().loc;
    ExprPtr lo;
    if (!is_op(":")) {
      lo = item_expression();
      if (!is_op(":")) return lo;
    }
    auto s = node(ExprKind::Slice, at);
    s->op_loc = take().loc;
    s->a = std::move(lo);
    auto ends_part = [&] { return is_op(":") || is_op(",") || is_op("]"); };
    if (!ends_part()) s->b = expression();
    if (is_op(":")) {
      take();
      if (!is_op(",") && !is_op("]")) s->c = expression();
    }
    return finish(std::move(s));
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.kind) {
    case Tok::Int: {
      auto e = node(ExprKind::Int, t.loc);
      e->ival = take().ival;
      return e;
    }
    case Tok::Float: {
      auto e = node(ExprKind::Float, t.loc);
      e->fval = take().fval;
      return e;
    }
    case Tok::String: {
      auto e = node(ExprKind::Str, t.loc);
      while (peek().kind == Tok::String) e->str += take().text;  // "a" "b" is one literal, as in Python
      return e;
    }
    case Tok::Name: {
      if (t.text == "True" || t.text == "False") {
        auto e = node(ExprKind::Bool, t.loc);
        e->bval = take().text == "True";
        return e;
      }
      if (t.text == "None") return node(ExprKind::None, take().loc);
      if (forbidden_keywords().count(t.text)) forbid_keyword(t);
      if (python_keywords().count(t.text)) unexpected(t);
      auto e = node(ExprKind::Name, t.loc);
      e->str = take().text;
      return e;
    }
    case Tok::Op: break;
    default: unexpected(t);
    }
    if (t.text == "...") return node(ExprKind::Ellipsis, take().loc);
    if (t.text == "{") forbid(t.loc, "a dict or set display ({...})");
    if (t.text == "(") return parenthesized();
    if (t.text == "[") return list_display();
    unexpected(t);
  }

  ExprPtr parenthesized() {
    DepthGuard guard(*this, peek().loc);
    Loc open = take().loc;
    if (is_op(")")) {
      take();
      return node(ExprKind::Tuple, open);
    }
    ExprPtr first = item_expression();
    if (is_name("for") || is_name("async")) forbid(peek().loc, "a generator expression");
    if (is_op(")")) {
      take();
      return first;
    }
    auto tup = node(ExprKind::Tuple, open);
    tup->items.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (is_op(")")) break;
      tup->items.push_back(item_expression());
    }
    expect_op(")");
    return finish(std::move(tup));
  }

  ExprPtr list_display() {
    DepthGuard guard(*this, peek().loc);
    auto list = node(ExprKind::List, take().loc);
    while (!is_op("]")) {
      list->items.push_back(item_expression());
      if (list->items.size() == 1 && (is_name("for") || is_name("async"))) forbid(peek().loc, "a list comprehension");
      if (!is_op(",")) break;
      take();
    }
    expect_op("]");
    return finish(std::move(list));
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

} // namespace

Program parse(std::string_view source) { return Parser(tokenize(source)).program(); }

ExprPtr parse_expression(std::string_view source) { return Parser(tokenize(source)).lone_expression(); }

} // namespace loupe::script
