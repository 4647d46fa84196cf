#include "ir/uop.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <atomic>
#include <mutex>
#include <thread>
#include <numeric>

#include "ir/metadata.h"
#include "support/block_pool.h"
#include "support/error.h"

namespace loupe {

namespace {

Hash128 content_key(Ops op, DType dtype, const UOpList& src, const Arg& arg) {
  StableHasher h;
  h.u64(static_cast<uint64_t>(op) | static_cast<uint64_t>(dtype.scalar_type) << 8 | uint64_t(dtype.count) << 16 |
        uint64_t(dtype.is_ptr) << 32 | uint64_t(dtype.local) << 33);
  h.i64(dtype.ptr_size);
  arg.hash(h);
  h.u64(src.size());
  for (const UOpPtr& s : src) h.hash(s->key());
  return h.finish();
}

// The intern table: every live node by content hash, in an open-addressing array of node pointers
// (linear probing; a removed node leaves a tombstone until the next rebuild). It owns nothing: a node
// leaves it when its last owner lets go, and a lookup that meets a dying node skips it.
// The table's lock: held for a probe or an insert, so a spin (yielding when it lasts, as during a
// rebuild) costs less than a mutex's calls.
class SpinLock {
public:
  void lock() {
    for (int spins = 0; flag_.test_and_set(std::memory_order_acquire); spins++)
      while (flag_.test(std::memory_order_relaxed))
        if (++spins > 64) std::this_thread::yield();
  }
  void unlock() { flag_.clear(std::memory_order_release); }

private:
  std::atomic_flag flag_;
};

class InternTable {
public:
  SpinLock mutex;

  template <typename Same> UOpPtr find(uint64_t hash, Same&& same) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.node == nullptr) return nullptr;
      if (slot.hash == hash && slot.node != tombstone() && same(*slot.node))
        if (UOpPtr live = slot.node->weak_from_this().lock()) return live;
    }
  }
  void insert(const UOp* node) {
    if ((used_ + 1) * 10 > slots_.size() * 7) rebuild();
    size_t i = node->hash() & mask_;
    while (slots_[i].node != nullptr && slots_[i].node != tombstone()) i = (i + 1) & mask_;
    if (slots_[i].node == nullptr) used_++;
    slots_[i] = {node->hash(), node};
    live_++;
  }
  void erase(const UOp* node) {
    if (slots_.empty()) return;
    for (size_t i = node->hash() & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].node == nullptr) return;
      if (slots_[i].node == node) {
        slots_[i].node = tombstone();
        live_--;
        return;
      }
    }
  }
  size_t live() const { return live_; }

private:
  static const UOp* tombstone() { return reinterpret_cast<const UOp*>(alignof(UOp)); }
  void rebuild() {
    size_t cap = 1024;
    while (cap * 7 < (live_ + 1) * 20) cap *= 2;  // at most 35% full after a rebuild
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    used_ = live_ = 0;
    for (const Slot& s : old)
      if (s.node != nullptr && s.node != tombstone()) insert(s.node);
  }
  // the hash beside the pointer: a probe reads no node it does not match
  struct Slot {
    uint64_t hash = 0;
    const UOp* node = nullptr;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t used_ = 0;  // live nodes and tombstones
  size_t live_ = 0;
};

InternTable& table() {
  static auto* t = new InternTable();  // never destroyed: nodes may die during static destruction
  return *t;
}

// Freeing a long chain would recurse once per node; pending frees are queued instead.
thread_local std::vector<const UOp*>* pending_frees = nullptr;

void free_node(const UOp* node) {
  {
    InternTable& t = table();
    std::lock_guard lock(t.mutex);
    t.erase(node);
  }
  if (pending_frees) {
    pending_frees->push_back(node);
    return;
  }
  std::vector<const UOp*> queue{node};
  pending_frees = &queue;
  while (!queue.empty()) {
    const UOp* n = queue.back();
    queue.pop_back();
    n->~UOp();  // may push its sources
    BlockPool<sizeof(UOp)>::release(const_cast<UOp*>(n));
  }
  pending_frees = nullptr;
}

bool same_structure(const UOp& u, Ops op, DType dtype, const UOpList& src, const Arg& arg) {
  if (u.op != op || !(u.dtype == dtype) || u.src.size() != src.size()) return false;
  for (size_t i = 0; i < src.size(); i++)
    if (u.src[i] != src[i]) return false;
  return u.arg == arg;
}

Arg const_arg(DType dtype, double value) {
  DType s = dtype.scalar();
  if (s.is_bool()) return Arg(value != 0.0);
  if (s.is_int()) {
    if (std::isnan(value) || std::isinf(value)) return Arg(int64_t(0));
    __int128 v = static_cast<__int128>(value);
    return Arg(static_cast<int64_t>(v));
  }
  return Arg(value);
}

} // namespace

bool is_float_constant_product(Ops op, DType dtype, const UOpList& src) {
  return op == Ops::MUL && src.size() == 2 && dtype.count == 1 && !dtype.is_ptr && (dtype == dtypes::float32 || dtype == dtypes::float64) &&
         src[0]->op == Ops::CONST && src[1]->op == Ops::CONST;
}

namespace {
uint8_t own_facts(Ops op, DType dtype, const UOpList& src) {
  uint8_t f = 0;
  if (is_float_constant_product(op, dtype, src)) f |= static_cast<uint8_t>(UOp::Fact::float_constant_product);
  if (op == Ops::DEFINE_ACC && dtype.count == 1) f |= static_cast<uint8_t>(UOp::Fact::scalar_accumulator);
  return f;
}
} // namespace

namespace {
// Nodes any kernel may share with any other: a provenance on them would name whichever op built them first.
bool shared_by_kernels(Ops op) {
  static const OpSet shared{Ops::CONST,    Ops::VCONST, Ops::DEFINE_GLOBAL, Ops::DEFINE_LOCAL, Ops::DEFINE_VAR,
                            Ops::VIEW,     Ops::RANGE,  Ops::SPECIAL,       Ops::SINK,         Ops::NOOP,
                            Ops::DEVICE,   Ops::BUFFER, Ops::UNIQUE,        Ops::NAME,         Ops::ENDRANGE};
  return shared.has(op);
}
} // namespace

struct UOpBuilder {
  static UOpPtr build(Ops op, DType dtype, UOpList src, Arg arg) {
    Hash128 key = content_key(op, dtype, src, arg);
    InternTable& t = table();
    auto same = [&](const UOp& n) { return same_structure(n, op, dtype, src, arg); };
    // One lock for the probe and the insert: a node is built in well under a microsecond, less than a
    // second lock and probe would cost (a thread building the same node waits, then finds it). The
    // owner is made before the lock is let go, so a probe never meets a node it cannot lock.
    std::lock_guard lock(t.mutex);
    if (UOpPtr live = t.find(key.lo, same)) return live;
    auto [lo, hi] = compute_bounds(op, dtype, src, arg);
    auto* node = new (BlockPool<sizeof(UOp)>::allocate()) UOp(op, dtype, std::move(src), std::move(arg), key);
    node->vmin_ = lo;
    node->vmax_ = hi;
    node->facts_ = own_facts(op, dtype, node->src);
    for (const UOpPtr& s : node->src) node->facts_ |= s->facts_;
    if (uint32_t made_for = CreationProvenance::current(); made_for && !shared_by_kernels(op))
      node->metadata_.store(made_for, std::memory_order_relaxed);
    UOpPtr ptr(node, [](const UOp* n) { free_node(n); }, BlockAllocator<UOp>());
    t.insert(node);
    return ptr;
  }
};

UOp::UOp(Ops op_, DType dtype_, UOpList src_, Arg arg_, Hash128 key)
    : op(op_), dtype(dtype_), src(std::move(src_)), arg(std::move(arg_)), key_(key) {}
UOp::~UOp() = default;

size_t live_uop_count() {
  std::lock_guard lock(table().mutex);
  return table().live();
}

UOpPtr UOp::make(Ops op, DType dtype, UOpList src, Arg arg) {
  for (const UOpPtr& s : src) LOUPE_ASSERT(s != nullptr, "null source building ", op_name(op));
  return UOpBuilder::build(op, dtype, std::move(src), std::move(arg));
}

UOpPtr UOp::cnst(DType dtype, double value) { return make(Ops::CONST, dtype, {}, const_arg(dtype, value)); }

UOpPtr UOp::cnst_int(DType dtype, int64_t value) {
  if (dtype.scalar().is_float()) return make(Ops::CONST, dtype, {}, Arg(static_cast<double>(value)));
  if (dtype.scalar().is_bool()) return make(Ops::CONST, dtype, {}, Arg(value != 0));
  return make(Ops::CONST, dtype, {}, Arg(value));
}

UOpPtr UOp::cnst_bool(bool value) { return make(Ops::CONST, dtypes::bool_, {}, Arg(value)); }

UOpPtr UOp::variable(const std::string& name, int64_t lo, int64_t hi, DType dtype) {
  return make(Ops::DEFINE_VAR, dtype, {}, Arg(Arg::Tuple{Arg(name), Arg(lo), Arg(hi)}));
}

UOpPtr UOp::range(int64_t end, int64_t axis, DType dtype) {
  return make(Ops::RANGE, dtype, {cnst_int(dtype, end)}, Arg(axis));
}

// The same node changed in one part is still the op it was: it keeps its provenance (ir/metadata.h).
UOpPtr UOp::kept_provenance(UOpPtr changed) const {
  if (uint32_t m = metadata(); m && !shared_by_kernels(changed->op)) changed->set_metadata_once(m);
  return changed;
}

UOpPtr UOp::replace_src(UOpList new_src) const {
  bool same = new_src.size() == src.size();
  for (size_t i = 0; same && i < src.size(); i++) same = new_src[i] == src[i];
  if (same) return ptr();
  return kept_provenance(make(op, dtype, std::move(new_src), arg));
}

UOpPtr UOp::replace_arg(Arg new_arg) const {
  if (new_arg == arg) return ptr();
  return kept_provenance(make(op, dtype, src, std::move(new_arg)));
}

UOpPtr UOp::with_dtype(DType new_dtype) const {
  if (new_dtype == dtype) return ptr();
  return kept_provenance(make(op, new_dtype, src, arg));
}

bool UOp::is_const(double v) const { return op == Ops::CONST && const_value() == v; }

double UOp::const_value() const {
  LOUPE_ASSERT(op == Ops::CONST, "const_value of ", op_name(op));
  if (arg.is_int() && dtype.scalar().is_unsigned()) return static_cast<double>(static_cast<uint64_t>(arg.as_int()));
  return arg.as_double();
}

int64_t UOp::const_int() const {
  LOUPE_ASSERT(op == Ops::CONST && (arg.is_int() || arg.is_bool()), "const_int of ", op_name(op), " ", arg.str());
  return arg.is_bool() ? int64_t(arg.as_bool()) : arg.as_int();
}

int64_t UOp::const_factor() const {
  if (op == Ops::CONST && arg.is_int()) return arg.as_int() < 0 ? -arg.as_int() : arg.as_int();
  if (op == Ops::VCONST) {
    int64_t g = 0;
    for (const Arg& a : arg.as_tuple()) g = std::gcd(g, a.as_int());
    return g;
  }
  if (op == Ops::ADD) return std::gcd(src[0]->const_factor(), src[1]->const_factor());
  if (op == Ops::MUL) {
    if (src[0]->op == Ops::CONST && src[0]->arg.is_int()) return std::abs(src[0]->arg.as_int());
    if (src[1]->op == Ops::CONST && src[1]->arg.is_int()) return std::abs(src[1]->arg.as_int());
  }
  return 1;
}

UOpPtr UOp::divides(int64_t v) const {
  if (v == 1) return ptr();
  if (v == 0) return nullptr;
  if (op == Ops::CONST && arg.is_int()) return arg.as_int() % v == 0 ? cnst_int(dtype, arg.as_int() / v) : nullptr;
  if (op == Ops::ADD) {
    UOpPtr d0 = src[0]->divides(v);
    if (!d0) return nullptr;
    UOpPtr d1 = src[1]->divides(v);
    return d1 ? d0 + d1 : nullptr;
  }
  if (op == Ops::MUL) {
    if (UOpPtr d0 = src[0]->divides(v)) return d0 * src[1];
    if (UOpPtr d1 = src[1]->divides(v)) return src[0] * d1;
  }
  return nullptr;
}

namespace {
// toposort()'s visited set, kept per thread from walk to walk: a slot counts only when stamped with
// the current walk's number, so a walk starts in O(1) and the table keeps the size it grew to.
class WalkMarks {
public:
  void begin() {
    if (++walk_ == 0) {  // the stamps wrapped: forget them all
      std::fill(slots_.begin(), slots_.end(), Slot{});
      walk_ = 1;
    }
    size_ = 0;
  }
  bool insert(const UOp* u) {  // true when u is new in this walk
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = slot_of(u);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.walk != walk_) {
        s = {u, walk_};
        size_++;
        return true;
      }
      if (s.node == u) return false;
    }
  }

private:
  struct Slot {
    const UOp* node = nullptr;
    uint32_t walk = 0;
  };
  size_t slot_of(const UOp* u) const { return pointer_hash(u) & (slots_.size() - 1); }
  void grow() {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(std::max<size_t>(256, slots_.size() * 2)));
    size_ = 0;
    for (const Slot& s : old)
      if (s.walk == walk_) insert(s.node);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint32_t walk_ = 0;
};
} // namespace

std::vector<const UOp*> UOp::toposort() const {
  thread_local WalkMarks seen;
  seen.begin();
  return detail::sources_first(this, seen, [](const UOp*, size_t) { return true; });
}

std::string UOp::var_name() const {
  if (op == Ops::DEFINE_VAR) return arg.as_tuple()[0].as_string();
  if (op == Ops::RANGE) return "ridx" + std::to_string(arg.is_int() ? arg.as_int() : 0);
  if (op == Ops::SPECIAL) return arg.is_string() ? arg.as_string() : arg.as_tuple()[0].as_string();
  return std::string(op_name(op));
}

// ---- building sugar ----

namespace {
DType result_dtype(Ops op, const UOpList& src) {
  if (op_in(op, kComparison)) return dtypes::bool_.vec(src[0]->dtype.count);
  if (op == Ops::WHERE) return src[1]->dtype;
  return src.back()->dtype.is_weak() && !src[0]->dtype.is_weak() ? src[0]->dtype : src[0]->dtype;
}
} // namespace

UOpPtr alu(Ops op, const UOpList& src) { return UOp::make(op, result_dtype(op, src), src); }
UOpPtr const_of(const UOpPtr& like, int64_t v) { return UOp::cnst_int(like->dtype, v); }

UOpPtr operator+(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::ADD, {a, b}); }
UOpPtr operator+(const UOpPtr& a, int64_t b) { return a + const_of(a, b); }
UOpPtr operator-(const UOpPtr& a, const UOpPtr& b) { return a + (-b); }
UOpPtr operator-(const UOpPtr& a, int64_t b) { return a + const_of(a, -b); }
UOpPtr operator-(const UOpPtr& a) {
  if (a->dtype.scalar().is_float()) return alu(Ops::NEG, {a});
  return a * const_of(a, -1);
}
UOpPtr operator*(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::MUL, {a, b}); }
UOpPtr operator*(const UOpPtr& a, int64_t b) { return a * const_of(a, b); }
UOpPtr floordiv(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::FLOORDIV, {a, b}); }
UOpPtr floordiv(const UOpPtr& a, int64_t b) { return floordiv(a, const_of(a, b)); }
UOpPtr floormod(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::FLOORMOD, {a, b}); }
UOpPtr floormod(const UOpPtr& a, int64_t b) { return floormod(a, const_of(a, b)); }
UOpPtr lt(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::CMPLT, {a, b}); }
UOpPtr lt(const UOpPtr& a, int64_t b) { return lt(a, const_of(a, b)); }
UOpPtr ne(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::CMPNE, {a, b}); }
UOpPtr eq(const UOpPtr& a, const UOpPtr& b) { return logical_not(ne(a, b)); }
UOpPtr logical_not(const UOpPtr& a) { return ne(a, UOp::cnst(a->dtype, 1)); }
UOpPtr logical_and(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::AND, {a, b}); }
UOpPtr logical_or(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::OR, {a, b}); }
UOpPtr umax(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::MAX, {a, b}); }
UOpPtr umin(const UOpPtr& a, const UOpPtr& b) { return -umax(-a, -b); }
UOpPtr where(const UOpPtr& c, const UOpPtr& a, const UOpPtr& b) { return alu(Ops::WHERE, {c, a, b}); }
UOpPtr cast(const UOpPtr& a, DType dtype) {
  if (a->dtype == dtype) return a;
  return UOp::make(Ops::CAST, dtype, {a});
}

} // namespace loupe
