// Linear forms of integer index expressions: x = sum(coeff_i * term_i) + constant, the shape in which
// like terms are combined, sums are put in canonical order and div/mod/lt folding reasons about
// coefficients. Also the canonical order of operands and small builders shared by the rule files.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/uop.h"
#include "support/int_math.h"

namespace loupe::sym {

using I = __int128;

struct Term {
  UOpPtr base;  // never a CONST, never an ADD of the flattened form, never a MUL by a constant
  I coeff = 1;
};

struct Linear {
  std::vector<Term> terms;
  I constant = 0;
  DType dtype = dtypes::index;

  // Bounds from the terms' own bounds (sound, may be looser than the node's when terms correlate).
  I vmin() const;
  I vmax() const;
};

// The operands of a chain of `op` (ADD, MUL, AND, ...), left to right.
void split_uop(const UOpPtr& u, Ops op, UOpList& out);
UOpList split_uop(const UOpPtr& u, Ops op);

// u as coeff * base (base null for a constant, then coeff is its value).
Term split_coeff(const UOpPtr& u);

// Flattens an ADD tree into terms with like terms combined (first appearance keeps its place).
// expand: also distribute constant multiples of sums, c*(a+b) -> a*c + b*c.
Linear linear_of(const UOpPtr& u, bool expand = false);

// Combines like terms in place; drops zero coefficients.
void combine(Linear& l);
// Sorts the terms into canonical order.
void sort_terms(Linear& l);
// Builds sum(coeff*base) + constant as a left-leaning chain with the constant last (canonical
// MUL nodes: base*coeff). Returns null if a coefficient does not fit in int64.
UOpPtr build(const Linear& l);
UOpPtr build_term(const UOpPtr& base, I coeff, DType dtype);
// Whether build(l) would return u itself (checked without building anything).
bool is_built(const UOpPtr& u, const Linear& l);

// Total order used to canonicalize commutative operands and terms: variables first (by name), then by
// op, arg and sources. Deterministic across runs.
int compare(const UOp* a, const UOp* b);
inline bool less(const UOpPtr& a, const UOpPtr& b) { return compare(a.get(), b.get()) < 0; }

// Distinct nodes reachable from u (what the CLI reports as `nodes`).
size_t node_count(const UOpPtr& u);

// Python-style integer helpers (support/int_math.h).
using loupe::floor_div;
using loupe::floor_mod;
using loupe::gcd;
bool fits_i64(I v);

UOpPtr cint(DType dtype, I v);   // a constant of an integer dtype (null if it does not fit int64)
bool is_index(const UOp& u);      // weakint scalar: where the algebraic rules apply
bool is_int_scalar(const UOp& u); // any integer scalar dtype

// The quotient of u by v when u is v times something (structurally: v itself, a product having v's
// factors, a constant multiple), null otherwise.
UOpPtr divide_exact(const UOpPtr& u, const UOpPtr& v);

} // namespace loupe::sym
