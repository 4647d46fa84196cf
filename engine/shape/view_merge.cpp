// Composition of two views into one (reference map §7.3) and inversion.
//
// `outer.merge(inner)`: inner indexes into outer's output. Inner's offset and strides are projected
// onto outer's dims; the result is one view only if, within every (possibly merged) outer dim, the
// projected position never carries into the next dim, and outer's mask can be restated as a mask on
// inner's dims.
#include <algorithm>
#include <numeric>

#include "shape/view.h"
#include "support/error.h"

namespace loupe {

namespace {

// An affine function of inner's index variables: c + sum(coef[d] * idx_d), idx_d in [0, n_d).
// Its exact range over the index box decides whether a carry can happen.
struct Affine {
  std::vector<__int128> coef;
  __int128 c = 0;

  explicit Affine(size_t n) : coef(n, 0) {}
  void add_scaled(const Affine& o, __int128 k) {
    for (size_t i = 0; i < coef.size(); i++) coef[i] += o.coef[i] * k;
    c += o.c * k;
  }
  __int128 lo(const std::vector<int64_t>& n) const {
    __int128 v = c;
    for (size_t i = 0; i < coef.size(); i++) v += std::min<__int128>(0, coef[i] * (n[i] - 1));
    return v;
  }
  __int128 hi(const std::vector<int64_t>& n) const {
    __int128 v = c;
    for (size_t i = 0; i < coef.size(); i++) v += std::max<__int128>(0, coef[i] * (n[i] - 1));
    return v;
  }
};

struct Term {
  size_t d1;   // inner dim
  int64_t s1;  // how far one step of it moves along this outer dim
};

constexpr int kMaxDepth = 64;  // each retry narrows a mask or merges dims; this only guards against bugs

std::optional<View> merge_views(const View& vm2, const View& vm1, int depth);

std::optional<View> merge_views_checked(const View& vm2, const View& vm1, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  return merge_views(vm2, vm1, depth + 1);
}

std::optional<View> merge_views(const View& vm2, const View& vm1, int depth) {
  if (vm2.contiguous) return vm1;
  if (vm1.contiguous && vm1.shape == vm2.shape) return vm2;
  if (vm1.contiguous && vm1.size() == vm2.size()) {
    try {
      if (std::optional<View> r = vm2.reshape(vm1.shape)) return r;
    } catch (const Error&) {  // e.g. a symbolic shape the view cannot take: not mergeable
      return std::nullopt;
    }
  }
  if (vm1.mask) {
    // Merge the valid part, then pad it back out.
    View shrunk = vm1.shrink(*vm1.mask);
    if (shrunk == vm1) return std::nullopt;
    std::optional<View> merged = merge_views_checked(vm2, shrunk, depth);
    if (!merged) return std::nullopt;
    Ranges widths;
    for (size_t i = 0; i < vm1.ndim(); i++) widths.emplace_back((*vm1.mask)[i].first, vm1.shape[i] - (*vm1.mask)[i].second);
    return merged->pad(widths);
  }
  if (!vm1.is_concrete() || !vm2.is_concrete()) return std::nullopt;
  if (vm1.size() == 0) return View::create(vm1.shape);  // nothing is read

  const size_t n1 = vm1.ndim(), n2 = vm2.ndim();
  std::vector<int64_t> shape1 = to_ints(vm1.shape), shape2 = to_ints(vm2.shape), strides2 = to_ints(vm2.strides);
  int64_t off1 = vm1.offset.as_int();

  // Project inner's offset and strides onto outer's dims.
  std::vector<int64_t> origin = to_ints(unravel(vm2.shape, off1));
  std::vector<std::vector<Term>> terms(n2);
  std::vector<int64_t> strides(n1, 0);
  for (size_t d1 = 0; d1 < n1; d1++) {
    int64_t st = vm1.strides[d1].as_int();
    if (st == 0) continue;
    std::vector<int64_t> moved = to_ints(unravel(vm2.shape, off1 + st));
    for (size_t d2 = 0; d2 < n2; d2++) {
      int64_t s1 = moved[d2] - origin[d2];
      if (s1 == 0) continue;
      terms[d2].push_back({d1, s1});
      strides[d1] += s1 * strides2[d2];
    }
  }

  // Find the outer dims (merged where needed) within which positions never carry, innermost first.
  struct Extent {
    int64_t size;
    Affine term;
  };
  std::vector<Extent> extents;
  int64_t merged_size = 1;
  Affine merged(n1);
  for (size_t d2 = n2; d2-- > 0;) {
    Affine here(n1);
    for (const Term& t : terms[d2]) here.coef[t.d1] += t.s1;
    here.c = origin[d2];
    merged.add_scaled(here, merged_size);
    merged_size *= shape2[d2];
    if (merged.lo(shape1) >= 0 && merged.hi(shape1) < merged_size) {
      extents.push_back({merged_size, merged});
      merged_size = 1;
      merged = Affine(n1);
    }
  }
  bool pending = merged.c != 0 || std::any_of(merged.coef.begin(), merged.coef.end(), [](__int128 c) { return c != 0; });
  if (pending) return std::nullopt;  // a carry between outer dims is not expressible
  sints merged_shape;
  for (size_t i = extents.size(); i-- > 0;) merged_shape.push_back(extents[i].size);
  if (merged_shape != vm2.shape) {
    std::optional<View> reshaped = vm2.reshape(merged_shape);
    if (!reshaped) return std::nullopt;
    if (reshaped->shape != vm2.shape) return merge_views_checked(*reshaped, vm1, depth);
  }

  if (vm2.mask) {
    // Restate outer's mask on inner's dims: each masked outer dim must move with one inner dim.
    std::vector<int64_t> newb(n1, 0), newe(shape1);
    bool bad = false;
    for (size_t d2 = 0; d2 < n2; d2++) {
      int64_t b = (*vm2.mask)[d2].first.as_int(), e = (*vm2.mask)[d2].second.as_int(), o = origin[d2];
      const Affine& t = extents[n2 - 1 - d2].term;
      if (b <= t.lo(shape1) && t.hi(shape1) < e) continue;  // never masked
      if (terms[d2].size() != 1) {
        if (terms[d2].empty() && !newe.empty()) newe[0] = 0;  // constant and outside the mask: nothing valid
        else bad = true;
        continue;
      }
      auto [d1, s1] = terms[d2][0];
      newb[d1] = std::max(newb[d1], ceil_div(s1 > 0 ? b - o : e - o - 1, s1));
      newe[d1] = std::min(newe[d1], floor_div(s1 < 0 ? b - o : e - o - 1, s1) + 1);
    }
    bool narrowed = false;
    for (size_t d1 = 0; d1 < n1; d1++) narrowed = narrowed || newb[d1] != 0 || newe[d1] != shape1[d1];
    if (narrowed) {
      Ranges m;
      for (size_t d1 = 0; d1 < n1; d1++) m.emplace_back(newb[d1], newe[d1]);
      return merge_views_checked(vm2, View::create(vm1.shape, vm1.strides, vm1.offset, std::move(m)), depth);
    }
    if (bad) return std::nullopt;
  }

  int64_t offset = vm2.offset.as_int();
  for (size_t d2 = 0; d2 < n2; d2++) offset += origin[d2] * strides2[d2];
  return View::create(vm1.shape, to_sints(strides), offset);
}

} // namespace

std::optional<View> View::merge(const View& inner) const { return merge_views(*this, inner, 0); }

std::optional<View> View::invert(const sints& out_shape) const {
  if (!all_int(strides)) return std::nullopt;
  View ret = create(shape);
  if (mask) ret = ret.shrink(*mask);
  std::vector<bool> flips;
  for (const sint& st : strides) flips.push_back(st.as_int() < 0);
  ret = ret.flip(flips);
  // Outermost first: larger positive strides, then negative ones, then broadcast (stride 0) dims.
  std::vector<int64_t> order(ndim());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int64_t i) {
    int64_t st = strides[i].as_int();
    return st > 0 ? -st : st;
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
  ret = ret.permute(order);
  if (!resolve_eq(prod(ret.shape), prod(out_shape), false)) return std::nullopt;
  return ret;
}

} // namespace loupe
