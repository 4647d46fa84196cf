// A symbolic shape quantity carried in a UOp arg. Movement ops keep their arguments in an Arg (a tuple of
// ints, or of (int, int) pairs); where a dim or a bound is symbolic (a Variable's expression, bound or
// not) that element is a SintArg object instead, so RESHAPE (3, i) or SHRINK ((0, 3), (i, i+2)) hash-cons
// and print like their concrete forms.
#pragma once
#include <string>

#include "ir/arg.h"
#include "shape/view.h"

namespace loupe {

class SintArg : public ArgObject {
public:
  explicit SintArg(sint v) : v_(std::move(v)) {}
  const sint& value() const { return v_; }

  const char* kind() const override { return "sint"; }
  void hash(StableHasher& h) const override { v_.hash(h); }
  bool equals(const ArgObject& other) const override { return static_cast<const SintArg&>(other).v_ == v_; }
  std::string str() const override { return v_.str(); }
  std::string encode() const override;  // the expression as shape_json writes it

private:
  sint v_;
};

// A concrete value becomes a plain int Arg, a symbolic one a SintArg.
Arg sint_to_arg(const sint& x);
// An int Arg or a SintArg; loupe::Error naming `what` otherwise.
sint sint_from_arg(const Arg& a, const char* what);
Arg sints_to_arg(const sints& xs);
sints sints_from_arg(const Arg& a, const char* what);
Arg ranges_to_arg(const Ranges& rs);  // ((b, e), ...)
Ranges ranges_from_arg(const Arg& a, const char* what);

} // namespace loupe
