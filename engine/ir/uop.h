// UOp: the one IR of the engine, from lazy tensors down to linearized kernels. Immutable and
// hash-consed: building a node equal in structure to a live one returns that node, so pointer
// equality is structural equality. Each node carries a stable content key and its proven integer
// range (vmin/vmax), computed once when it is built.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/arg.h"
#include "ir/dtype.h"
#include "ir/ops.h"
#include "support/block_pool.h"
#include "support/flat_ptr_map.h"
#include "support/hash.h"

namespace loupe {

class UOp;
using UOpPtr = std::shared_ptr<const UOp>;
// sources and node lists: mostly one to four nodes, kept in pooled blocks (support/block_pool.h)
using UOpList = std::vector<UOpPtr, ShortArrayAllocator<UOpPtr>>;

class UOp : public std::enable_shared_from_this<UOp> {
public:
  const Ops op;
  const DType dtype;
  const UOpList src;
  const Arg arg;

  // The only way to build a node: returns the live node with this structure, or a new one.
  static UOpPtr make(Ops op, DType dtype = dtypes::void_, UOpList src = {}, Arg arg = {});

  // Constants: value is stored as bool / int64 / double according to dtype.
  static UOpPtr cnst(DType dtype, double value);
  static UOpPtr cnst_int(DType dtype, int64_t value);
  static UOpPtr cnst_bool(bool value);
  static UOpPtr const_like(const UOpPtr& like, double value) { return cnst(like->dtype, value); }
  // A symbolic integer variable in [lo, hi] (DEFINE_VAR).
  static UOpPtr variable(const std::string& name, int64_t lo, int64_t hi, DType dtype = dtypes::index);
  static UOpPtr range(int64_t end, int64_t axis, DType dtype = dtypes::index);

  UOpPtr ptr() const { return shared_from_this(); }
  // The node with one part changed; it keeps this node's provenance (metadata) unless it had its own.
  UOpPtr replace_src(UOpList new_src) const;
  UOpPtr replace_arg(Arg new_arg) const;
  UOpPtr with_dtype(DType new_dtype) const;

  // Identity. The key's recipe has a number (kKeyScheme): traces record it, so a reader compares
  // stored keys only with keys made the same way.
  static constexpr int kKeyScheme = 2;
  const Hash128& key() const { return key_; }
  uint64_t hash() const { return key_.lo; }

  // Facts about a node's whole graph (the node or any node below it), or-ed up from the sources when
  // it is built, so a pass asks them without a walk.
  enum class Fact : uint8_t {
    float_constant_product = 1,  // a float multiply of two constants (is_float_constant_product)
    scalar_accumulator = 2,      // a DEFINE_ACC of one lane
  };
  bool graph_has(Fact f) const { return (facts_ & static_cast<uint8_t>(f)) != 0; }

  // Provenance (ir/metadata.h): the first tensor op that produced this node, 0 when none. Not part
  // of the node's identity; set once, by the frontend, when a tensor takes the node.
  uint32_t metadata() const { return metadata_.load(std::memory_order_relaxed); }
  void set_metadata_once(uint32_t id) const {
    uint32_t none = 0;
    if (id) metadata_.compare_exchange_strong(none, id, std::memory_order_relaxed);
  }

  // Range analysis (ints and bools; for other dtypes the dtype's limits). Exact for constants.
  __int128 vmin() const { return vmin_; }
  __int128 vmax() const { return vmax_; }

  bool is_const() const { return op == Ops::CONST; }
  bool is_const(double v) const;      // a CONST with this value
  double const_value() const;         // of a CONST (bools as 0/1)
  int64_t const_int() const;          // of an integer/bool CONST
  // Largest known integer that divides this expression (1 if none).
  int64_t const_factor() const;
  // This expression divided exactly by v, or null if it cannot be shown to divide.
  UOpPtr divides(int64_t v) const;

  // Sources first, in DFS order over src; the node itself last.
  std::vector<const UOp*> toposort() const;
  // The same walk entering only the sources `follow(node, i)` accepts.
  template <typename Follow> std::vector<const UOp*> toposort(Follow&& follow) const;
  // Convenience for variables.
  std::string var_name() const;  // DEFINE_VAR name; RANGE "ridxN"; SPECIAL its name

  UOp(Ops op, DType dtype, UOpList src, Arg arg, Hash128 key);  // use make()
  ~UOp();

private:
  Hash128 key_;
  uint8_t facts_ = 0;  // Fact bits (in the padding before the 16-byte-aligned bounds)
  UOpPtr kept_provenance(UOpPtr changed) const;
  mutable std::atomic<uint32_t> metadata_{0};  // the same padding
  __int128 vmin_ = 0, vmax_ = 0;
  friend struct UOpBuilder;
};

// Arithmetic sugar for building index and value expressions (constant operands take the other side's dtype).
UOpPtr alu(Ops op, const UOpList& src);
UOpPtr operator+(const UOpPtr& a, const UOpPtr& b);
UOpPtr operator+(const UOpPtr& a, int64_t b);
UOpPtr operator-(const UOpPtr& a, const UOpPtr& b);
UOpPtr operator-(const UOpPtr& a, int64_t b);
UOpPtr operator-(const UOpPtr& a);
UOpPtr operator*(const UOpPtr& a, const UOpPtr& b);
UOpPtr operator*(const UOpPtr& a, int64_t b);
UOpPtr floordiv(const UOpPtr& a, const UOpPtr& b);
UOpPtr floordiv(const UOpPtr& a, int64_t b);
UOpPtr floormod(const UOpPtr& a, const UOpPtr& b);
UOpPtr floormod(const UOpPtr& a, int64_t b);
UOpPtr lt(const UOpPtr& a, const UOpPtr& b);
UOpPtr lt(const UOpPtr& a, int64_t b);
UOpPtr ne(const UOpPtr& a, const UOpPtr& b);
UOpPtr eq(const UOpPtr& a, const UOpPtr& b);  // NOT(a != b)
UOpPtr logical_not(const UOpPtr& a);          // a != True
UOpPtr logical_and(const UOpPtr& a, const UOpPtr& b);
UOpPtr logical_or(const UOpPtr& a, const UOpPtr& b);
UOpPtr umax(const UOpPtr& a, const UOpPtr& b);
UOpPtr umin(const UOpPtr& a, const UOpPtr& b);  // -max(-a, -b)
UOpPtr where(const UOpPtr& c, const UOpPtr& a, const UOpPtr& b);
UOpPtr cast(const UOpPtr& a, DType dtype);
UOpPtr const_of(const UOpPtr& like, int64_t v);

// A scalar float32/float64 MUL of two constants: left unfolded by symbolic() for the contracted fold,
// which folds it with the add it fuses into (codegen/contracted_fold.h).
bool is_float_constant_product(Ops op, DType dtype, const UOpList& src);

// Range analysis of a prospective node (used when building; exposed for tests).
std::pair<__int128, __int128> compute_bounds(Ops op, DType dtype, const UOpList& src, const Arg& arg);

// Hashing helpers for containers keyed by nodes.
struct UOpPtrHash {
  size_t operator()(const UOpPtr& u) const { return u->hash(); }
};
struct UOpRawHash {
  size_t operator()(const UOp* u) const { return u->hash(); }
};
template <typename V> using UOpMap = std::unordered_map<UOpPtr, V, UOpPtrHash>;
using UOpSet = std::unordered_set<UOpPtr, UOpPtrHash>;

// Number of live interned nodes (for tests and statistics).
size_t live_uop_count();

namespace detail {
// toposort's walk over a visited set (`seen.insert(n)` is true when n is new): sources first, in DFS
// order over the sources `follow(node, i)` accepts, the root last.
template <typename Seen, typename Follow>
std::vector<const UOp*> sources_first(const UOp* root, Seen& seen, Follow&& follow) {
  std::vector<const UOp*> order;
  seen.insert(root);
  std::vector<std::pair<const UOp*, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    while (next < node->src.size() && !follow(node, next)) next++;
    if (next < node->src.size()) {
      const UOp* child = node->src[next++].get();
      if (seen.insert(child)) stack.emplace_back(child, 0);
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}
} // namespace detail

template <typename Follow> std::vector<const UOp*> UOp::toposort(Follow&& follow) const {
  FlatPtrSet<const UOp*> seen;
  return detail::sources_first(this, seen, follow);
}

} // namespace loupe
