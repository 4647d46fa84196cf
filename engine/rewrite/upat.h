// UPat: a pattern over UOps. Op sets, dtype sets, an exact arg, a predicate, named captures (a
// repeated name must bind the same node), and sources that are ordered, permuted (commutative ops),
// repeated (every source matches one pattern) or unconstrained; optionally a prefix of any length.
#pragma once
#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/uop.h"
#include "support/function_ref.h"

namespace loupe {

// Named nodes bound during a match; references stay valid while the matched root is alive. The first
// few live inline: a match attempt runs for every node and rule, and must not touch the heap.
class Captures {
public:
  using Item = std::pair<std::string_view, const UOpPtr*>;
  const UOpPtr* find(std::string_view name) const {
    for (const Item& it : items())
      if (it.first == name) return it.second;
    return nullptr;
  }
  void push(std::string_view name, const UOpPtr* u) {
    if (size_ < kInline) {
      inline_[size_] = {name, u};
    } else {
      if (size_ == kInline) overflow_.assign(inline_.begin(), inline_.end());
      overflow_.resize(size_);
      overflow_.emplace_back(name, u);
    }
    size_++;
  }
  size_t size() const { return size_; }
  void truncate(size_t n) { size_ = std::min(size_, n); }
  std::span<const Item> items() const {
    return {size_ <= kInline ? inline_.data() : overflow_.data(), size_};
  }

private:
  static constexpr size_t kInline = 16;
  std::array<Item, kInline> inline_{};
  std::vector<Item> overflow_;  // every item, once there are more than kInline
  size_t size_ = 0;
};

// Coarse classes of a dtype (vectors by their scalar). A pattern may declare the classes its node can
// have: the pattern matcher then never tries a rule on nodes of other classes (most symbolic rules
// are for integers, the float folds for floats, and a kernel is mostly float arithmetic).
enum DTypeClass : uint8_t { kClassBool = 1, kClassInt = 2, kClassFloat = 4, kClassOther = 8, kClassAll = 15 };
inline uint8_t dtype_class(const DType& d) {
  if (d.is_ptr) return kClassOther;
  if (d.is_bool()) return kClassBool;
  if (d.is_int()) return kClassInt;
  return d.is_float() ? kClassFloat : kClassOther;
}

class UPat {
public:
  enum class SrcKind : uint8_t { Any, Ordered, Permuted, Repeated };
  using Predicate = std::function<bool(const UOp&)>;

  // Builders.
  static UPat any(std::string name = "");                                  // any node
  static UPat var(std::string name = "", std::vector<DType> dtypes = {});  // any node, optionally of these dtypes
  static UPat cvar(std::string name = "", std::vector<DType> dtypes = {}); // a CONST
  static UPat cnst(double value);                                          // a CONST with this value, any dtype
  static UPat op(Ops op, std::vector<UPat> src = {}, std::string name = "");
  static UPat op_any_src(Ops op, std::string name = "");
  static UPat ops(OpSet ops, std::vector<UPat> src = {}, std::string name = "");
  static UPat ops_any_src(OpSet ops, std::string name = "");
  static UPat alu(Ops op, std::vector<UPat> src);  // permuted sources when op is commutative

  UPat named(std::string name) const;
  UPat dtypes(std::vector<DType> dts) const;
  UPat arg(Arg a) const;
  UPat number(double v) const;    // the node's arg is a number equal to v (a CONST's value; bools as 0/1)
  UPat pred(Predicate p) const;   // extra condition on the node itself
  UPat only(uint8_t classes) const;  // the node's dtype is of these DTypeClasses
  UPat permuted() const;          // the sources match in any order
  UPat repeated(UPat each) const; // every source matches `each`
  UPat any_len() const;           // sources form a prefix of the node's sources

  // Calls k for every consistent binding; stops (and returns true) when k returns true.
  bool match(const UOpPtr& u, Captures& caps, FunctionRef<bool()> k) const;

  const OpSet* root_ops() const;  // null if any op
  const OpSet& early_reject() const;
  const OpSet* sources_within() const;  // null if a source may be any op
  uint8_t root_classes() const;
  // Whether the node's arg is a number equal to v (CONST values as UOp::const_value reads them).
  static bool arg_is_number(const UOp& u, double v);
  static std::string number_str(double v);  // "0", "2.5"
  std::string str() const;        // a readable form for the app's rule view

  struct Node;
  std::shared_ptr<const Node> node;
  // A pattern from a node whose own fields are set (ops, dtypes, arg, name, kind, src, ...); the fields
  // derived from them for fast matching are filled in here (for decoders of recorded patterns).
  static UPat from_node(Node n);
};

struct UPat::Node {
  std::optional<OpSet> ops;
  std::vector<DType> dtypes;
  std::optional<Arg> arg;
  std::optional<double> number;  // the arg is a number equal to this (data, unlike pred: a trace can record it)
  std::string name;
  Predicate pred;
  SrcKind kind = SrcKind::Any;
  std::vector<UPat> src;
  std::vector<const Node*> src_nodes;  // src's nodes, for matching without reference counting
  bool allow_any_len = false;
  uint8_t classes = kClassAll;
  OpSet early_reject;  // ops that must be among the node's sources (from single-op source patterns)
  std::optional<OpSet> sources_within;  // ops every source must be among (each source pattern names its ops)
};

// Sugar: arithmetic on patterns builds ALU patterns (commutative ones permuted); ints and doubles
// become constant patterns.
UPat operator+(const UPat& a, const UPat& b);
UPat operator+(const UPat& a, double b);
UPat operator*(const UPat& a, const UPat& b);
UPat operator*(const UPat& a, double b);
UPat pmax(const UPat& a, const UPat& b);
UPat pfloordiv(const UPat& a, const UPat& b);
UPat pfloormod(const UPat& a, const UPat& b);
UPat plt(const UPat& a, const UPat& b);
UPat pne(const UPat& a, const UPat& b);
UPat pand(const UPat& a, const UPat& b);
UPat por(const UPat& a, const UPat& b);
UPat pwhere(const UPat& c, const UPat& a, const UPat& b);

} // namespace loupe
