// The tensor-script syntax tree: expressions and the two kinds of statement (DESIGN.md §5). Every
// node has the line:column where it starts (`loc`) and of its operator (`op_loc`: the operator of a
// binary/unary expression, the name of an attribute, the '(' of a call, the '[' of a subscript),
// which is where errors about the operation point.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "script/lexer.h"

namespace loupe::script {

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift, Lt, Le, Gt, Ge, Eq, Ne };
enum class UnOp { Neg, Pos, Invert };

const char* op_symbol(BinOp op);  // "+", "//", "<=" ...
const char* op_symbol(UnOp op);   // "-", "+", "~"
bool is_comparison(BinOp op);

enum class ExprKind {
  Name,       // str
  Int,        // ival
  Float,      // fval
  Str,        // str
  Bool,       // bval
  None,
  Ellipsis,
  Tuple,      // items
  List,       // items
  Attribute,  // a.str
  Call,       // a(items..., keywords...)
  Subscript,  // a[b]; b may be a Slice or a Tuple holding Slices
  Slice,      // a:b:c inside a subscript; each part may be null
  Unary,      // uop a
  Binary,     // a bop b (comparisons included)
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  Loc loc;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::None;
  Loc loc, op_loc;
  std::string str;
  PyInt ival = 0;
  double fval = 0;
  bool bval = false;
  int height = 1;  // 1 + the tallest child (the parser bounds it so that walking the tree cannot overflow the stack)
  BinOp bop = BinOp::Add;
  UnOp uop = UnOp::Neg;
  std::vector<ExprPtr> items;
  std::vector<Keyword> keywords;
  ExprPtr a, b, c;
};

struct Stmt {
  enum class Kind { Assign, Expr } kind = Kind::Expr;
  Loc loc;
  std::string target;  // Assign: the name
  ExprPtr value;
};

struct Program {
  std::vector<Stmt> body;
};

// Fully parenthesized Python text of an expression ("(a + (b * c))", "x[1:3, None]"): for tests and
// messages. Number literals print like Python's repr.
std::string dump(const Expr& e);
std::string dump(const Stmt& s);

} // namespace loupe::script
