// sint: a shape quantity (dim, stride, offset, mask bound) that is either a plain int64 or a symbolic
// index expression (a UOp over DEFINE_VAR / BIND variables). Concrete values are the fast, common path;
// symbolic ones appear where v0.10.2 allows variable shapes (contiguous views, expand, shrink/pad bounds).
// Arithmetic folds when both sides are concrete; comparisons of symbolic values are decided by range
// analysis (resolve) where possible.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "support/hash.h"

namespace loupe {

class sint {
public:
  sint() = default;
  sint(int64_t v) : v_(v) {}
  sint(int v) : v_(v) {}
  // A constant expression becomes a concrete value; other expressions must be integer (index) typed.
  explicit sint(const UOpPtr& u);

  bool is_int() const { return !u_; }
  int64_t as_int() const;               // LOUPE_ASSERT(is_int())
  const UOpPtr& sym() const { return u_; }  // null when concrete
  UOpPtr uop() const;                   // as an index-typed UOp (a CONST when concrete)
  int64_t vmin() const;
  int64_t vmax() const;

  std::string str() const;  // "12", or the rendered expression
  void hash(StableHasher& h) const;
  // Structural equality (hash-consed expressions compare by pointer).
  bool operator==(const sint& o) const { return u_ == o.u_ && (u_ || v_ == o.v_); }
  bool operator==(int64_t v) const { return !u_ && v_ == v; }

private:
  int64_t v_ = 0;
  UOpPtr u_;
};

using sints = std::vector<sint>;

sint operator+(const sint& a, const sint& b);
sint operator-(const sint& a, const sint& b);
sint operator-(const sint& a);
sint operator*(const sint& a, const sint& b);
sint sfloordiv(const sint& a, const sint& b);  // Python floor semantics; concrete b == 0 is an internal error
sint sfloormod(const sint& a, const sint& b);
sint smax(const sint& a, const sint& b);
sint smin(const sint& a, const sint& b);

// Python-style integer helpers on concrete values.
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);
int64_t ceil_div(int64_t a, int64_t b);

// Decides a comparison by range analysis: the answer when it holds (or fails) for every value of the
// variables, `otherwise` when it depends on them.
bool resolve_lt(const sint& a, const sint& b, bool otherwise);
bool resolve_le(const sint& a, const sint& b, bool otherwise);
bool resolve_eq(const sint& a, const sint& b, bool otherwise);
inline bool resolve_ne(const sint& a, const sint& b, bool otherwise) { return !resolve_eq(a, b, !otherwise); }

bool all_int(const sints& xs);
std::vector<int64_t> to_ints(const sints& xs);  // LOUPE_ASSERT(all_int)
sints to_sints(const std::vector<int64_t>& xs);
sint prod(const sints& xs);
// Product with every symbolic dim at its largest value: the number of elements to allocate/visit.
int64_t max_prod(const sints& xs);
// "(2, 3)" / "(4,)" like a Python tuple.
std::string shape_str(const sints& xs);
std::string shape_str(const std::vector<int64_t>& xs);
// The value under the values its bound Variables carry (tinygrad's sym_infer); loupe::Error where an
// unbound Variable is left.
int64_t bound_value(const sint& x);
// The DEFINE_VAR (and BIND) nodes an expression depends on, in first-seen order.
void collect_vars(const sint& x, UOpList& out);

} // namespace loupe
