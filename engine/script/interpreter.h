// The tensor-script interpreter: runs a parsed Program statement by statement over a Host that gives
// meaning to host objects (tensors, dtypes, methods). Plain Python values (numbers, tuples, strings)
// are handled here with Python's semantics; every error becomes a loupe::Error "line L:C: ..."
// pointing at the operator, attribute, call or subscript that failed.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "script/ast.h"
#include "script/value.h"

namespace loupe::script {

using KwArgs = std::vector<std::pair<std::string, Value>>;

// What the interpreter asks of the world beyond plain Python values. Implementations throw
// loupe::Error with a message and no location; the interpreter adds it.
class Host {
public:
  virtual ~Host() = default;
  virtual std::optional<Value> builtin(const std::string& name) = 0;                  // Tensor, dtypes, ...
  virtual Value attribute(const Value& obj, const std::string& name) = 0;             // obj is an object
  virtual Value call(const Value& callee, const std::vector<Value>& args, const KwArgs& kwargs) = 0;  // callee is an object
  virtual Value binary(BinOp op, const Value& a, const Value& b) = 0;                 // a or b is an object
  virtual Value unary(UnOp op, const Value& a) = 0;                                   // a is an object
  virtual Value subscript(const Value& obj, const Value& index) = 0;                   // obj is an object
};

class Interpreter {
public:
  explicit Interpreter(Host& host) : host_(host) {}

  void run(const Program& program);
  void run(std::string_view source);  // parse, then run
  void exec(const Stmt& stmt);
  Value eval(const Expr& e);

  // A variable the script assigned, or null.
  const Value* variable(const std::string& name) const;
  const std::map<std::string, Value>& variables() const { return vars_; }

private:
  Value eval_index(const Expr& e);  // a subscript's index: slices become slice values
  Value lookup(const Expr& name);

  Host& host_;
  std::map<std::string, Value> vars_;
};

} // namespace loupe::script
