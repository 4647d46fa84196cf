// ShapeTracker as expressions (reference map §7.5): the index and valid UOps of a buffer access, and
// what can be read off them (real strides, masked axes, the buffer size needed).
#include <algorithm>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "rewrite/graph_rewrite.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {

UOpPtr range_for(const sint& size, int64_t axis) {
  if (size.is_int()) return UOp::range(size.as_int(), axis);
  return UOp::make(Ops::RANGE, dtypes::index, {size.uop()}, Arg(axis));
}

// unravel() over an index expression: the position in each dim of `shape`.
UOpList unravel_expr(const sints& shape, const UOpPtr& flat) {
  UOpList out(shape.size());
  sint acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    UOpPtr q = acc == 1 ? flat : floordiv(flat, acc.uop());
    out[i] = floormod(q, shape[i].uop());
    acc = acc * shape[i];
  }
  return out;
}

void split_adds(const UOpPtr& u, UOpList& out) {
  if (u->op == Ops::ADD) {
    for (const UOpPtr& s : u->src) split_adds(s, out);
  } else {
    out.push_back(u);
  }
}

std::vector<int64_t> range_axes(const UOpPtr& u) {
  std::vector<int64_t> out;
  for (const UOp* x : u->toposort())
    if (x->op == Ops::RANGE && x->arg.is_int()) out.push_back(x->arg.as_int());
  return out;
}

bool contains(const std::vector<int64_t>& xs, int64_t x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// The raw expressions: the last view over the index variables, then each earlier view (minified)
// over the flat position unravelled into its shape.
std::pair<UOpPtr, UOpPtr> raw_indexed(const std::vector<View>& views, const UOpList& idxs) {
  auto [idx, valid] = views.back().to_indexed(idxs);
  for (size_t i = views.size() - 1; i-- > 0;) {
    View v = views[i].minify();
    std::tie(idx, valid) = v.to_indexed(unravel_expr(v.shape, idx), valid);
  }
  return {idx, valid};
}

// Memo of expression results per tracker (kernels ask the same trackers again and again, and the
// symbolic rewrite is the expensive part). Keyed by content hash, confirmed by comparing the views;
// bounded by dropping everything when full.
template <typename V> class Memo {
public:
  std::optional<V> get(const Hash128& key, const std::vector<View>& views) {
    std::lock_guard lock(mutex_);
    auto it = map_.find(key.lo);
    if (it == map_.end() || !(it->second.key == key) || it->second.views != views) return std::nullopt;
    return it->second.value;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    map_.clear();
  }
  void put(const Hash128& key, const std::vector<View>& views, V value) {
    std::lock_guard lock(mutex_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_[key.lo] = Entry{key, views, std::move(value)};
  }

private:
  static constexpr size_t kMaxEntries = 8192;
  struct Entry {
    Hash128 key;
    std::vector<View> views;
    V value;
  };
  std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> map_;
};

Hash128 memo_key(const std::vector<View>& views, const UOpList& idxs, uint64_t flags) {
  StableHasher h;
  h.u64(flags);
  h.u64(views.size());
  for (const View& v : views) v.hash(h);
  h.u64(idxs.size());
  for (const UOpPtr& u : idxs) h.hash(u->key());
  return h.finish();
}

Memo<std::pair<UOpPtr, UOpPtr>>& indexed_memo() {
  static Memo<std::pair<UOpPtr, UOpPtr>> memo;
  return memo;
}
Memo<std::vector<std::optional<sint>>>& strides_memo() {
  static Memo<std::vector<std::optional<sint>>> memo;
  return memo;
}

} // namespace

void ShapeTracker::forget_memos() {
  indexed_memo().clear();
  strides_memo().clear();
}

std::pair<UOpPtr, UOpPtr> ShapeTracker::to_indexed(bool simplified) const {
  UOpList idxs;
  for (size_t i = 0; i < ndim(); i++) idxs.push_back(range_for(shape()[i], int64_t(i)));
  return to_indexed(idxs, simplified);
}

std::pair<UOpPtr, UOpPtr> ShapeTracker::to_indexed(const UOpList& idxs, bool simplified) const {
  if (idxs.size() != ndim()) throw Error(cat("to_indexed: ", idxs.size(), " index expressions for shape ", shape_str(shape())));
  auto [idx, valid] = raw_indexed(views_, idxs);
  if (!simplified) return {idx, valid};
  auto& memo = indexed_memo();
  Hash128 key = memo_key(views_, idxs, 1);
  if (auto hit = memo.get(key, views_)) return *hit;
  idx = loupe::simplify(idx);
  valid = loupe::simplify(valid);
  if (UOpPtr v = simplify_valid(valid)) valid = v;
  // The index only matters where valid holds: simplify it under that assumption.
  if (UOpPtr i = uop_given_valid(valid, idx)) idx = loupe::simplify(i);
  memo.put(key, views_, {idx, valid});
  return {idx, valid};
}

std::vector<std::optional<sint>> ShapeTracker::real_strides(bool ignore_valid) const {
  if (views_.size() == 1 && !views_[0].mask) return {views_[0].strides.begin(), views_[0].strides.end()};
  auto& memo = strides_memo();
  Hash128 key = memo_key(views_, {}, ignore_valid ? 3 : 2);
  if (auto hit = memo.get(key, views_)) return *hit;
  std::vector<std::optional<sint>> ret(ndim());
  UOpList idxs;
  for (size_t i = 0; i < ndim(); i++) idxs.push_back(range_for(shape()[i], int64_t(i)));
  auto [idx, valid] = raw_indexed(views_, idxs);
  idx = graph_rewrite(idx, symbolic_flat(), {.name = "real_strides idx"});
  valid = graph_rewrite(valid, symbolic_flat(), {.name = "real_strides valid"});
  if (UOpPtr v = simplify_valid(valid)) valid = v;
  if (UOpPtr i = uop_given_valid(valid, idx)) idx = graph_rewrite(i, symbolic_flat(), {.name = "real_strides idx"});
  UOpList terms;
  split_adds(idx, terms);
  for (const UOpPtr& c : terms) {
    if (c->op == Ops::RANGE) ret[c->arg.as_int()] = sint(1);
    if (c->op == Ops::MUL) {
      for (int k = 0; k < 2; k++) {
        const UOpPtr &r = c->src[k], &m = c->src[1 - k];
        if (r->op == Ops::RANGE && m->op == Ops::CONST) ret[r->arg.as_int()] = sint(m->const_int());
      }
    }
  }
  std::vector<int64_t> used = range_axes(idx);
  for (size_t i = 0; i < ret.size(); i++)
    if (!contains(used, int64_t(i))) ret[i] = sint(0);
  if (!ignore_valid)
    for (int64_t a : range_axes(valid))
      if (a >= 0 && a < int64_t(ret.size())) ret[a] = std::nullopt;
  memo.put(key, views_, ret);
  return ret;
}

std::vector<int64_t> ShapeTracker::unit_stride_axes(bool ignore_valid) const {
  std::vector<int64_t> out;
  auto rs = real_strides(ignore_valid);
  for (size_t i = 0; i < rs.size(); i++)
    if (rs[i] && *rs[i] == 1) out.push_back(int64_t(i));
  return out;
}

bool ShapeTracker::axis_is_masked(int64_t axis) const {
  if (axis < 0 || axis >= int64_t(ndim())) throw Error(cat("axis_is_masked: axis ", axis, " out of range for shape ", shape_str(shape())));
  UOpPtr valid = to_indexed(true).second;
  valid = graph_rewrite(valid, symbolic_flat(), {.name = "axis_is_masked"});
  return contains(range_axes(valid), axis);
}

int64_t ShapeTracker::real_size() const {
  if (std::any_of(shape().begin(), shape().end(), [](const sint& s) { return s == 0; })) return 0;
  View v = views_[0].mask ? views_[0].shrink(*views_[0].mask) : views_[0];
  UOpList idxs;
  for (size_t i = 0; i < v.ndim(); i++) idxs.push_back(range_for(v.shape[i], int64_t(i)));
  UOpPtr idx = v.to_indexed(idxs).first;
  __int128 hi = idx->vmax();
  if (hi >= (__int128(1) << 62)) throw Error(cat("real_size: ", str(), " reaches beyond any buffer"));
  return static_cast<int64_t>(hi) + 1;
}

} // namespace loupe
