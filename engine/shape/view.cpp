// View creation, the movement ops other than reshape, evaluation and printing.
#include "shape/view.h"

#include <algorithm>
#include <functional>

#include "support/error.h"

namespace loupe {

namespace {

sints canonicalize_strides(const sints& shape, const sints& strides) {
  sints out(strides);
  for (size_t i = 0; i < shape.size(); i++)
    if (shape[i] == 1) out[i] = 0;
  return out;
}

bool has_zero_dim(const sints& shape) {
  return std::any_of(shape.begin(), shape.end(), [](const sint& s) { return s == 0; });
}

} // namespace

sints strides_for_shape(const sints& shape) {
  sints strides(shape.size(), sint(0));
  sint acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc = acc * shape[i];
  }
  return canonicalize_strides(shape, strides);
}

sints unravel(const sints& shape, const sint& offset) {
  sints idx(shape.size(), sint(0));
  sint acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = sfloormod(sfloordiv(offset, acc), shape[i]);
    acc = acc * shape[i];
  }
  return idx;
}

std::string ranges_str(const Ranges& r) {
  std::string s = "(";
  for (size_t i = 0; i < r.size(); i++) s += (i ? ", " : "") + std::string("(") + r[i].first.str() + ", " + r[i].second.str() + ")";
  if (r.size() == 1) s += ",";
  return s + ")";
}

View View::create(const sints& shape, std::optional<sints> strides, sint offset, std::optional<Ranges> mask) {
  for (const sint& s : shape)
    if (s.is_int() && s.as_int() < 0) throw Error(cat("View: negative dimension in shape ", shape_str(shape)));
  if (strides && strides->size() != shape.size())
    throw Error(cat("View: ", strides->size(), " strides ", shape_str(*strides), " for shape ", shape_str(shape)));
  if (mask && mask->size() != shape.size())
    throw Error(cat("View: mask ", ranges_str(*mask), " has ", mask->size(), " dims for shape ", shape_str(shape)));
  {  // every later computation multiplies dims and strides: refuse shapes whose size overflows
    int64_t n = 1;
    for (const sint& s : shape)
      if (__builtin_mul_overflow(n, s.vmax(), &n)) throw Error(cat("View: shape ", shape_str(shape), " has too many elements"));
  }
  View v;
  v.shape = shape;
  v.strides = strides ? canonicalize_strides(shape, *strides) : strides_for_shape(shape);
  if (has_zero_dim(shape)) {
    v.strides.assign(shape.size(), sint(0));
    v.offset = 0;
    v.contiguous = true;
    return v;
  }
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < shape.size(); i++) full = full && (*mask)[i].first == 0 && (*mask)[i].second == shape[i];
    if (full) mask.reset();
  }
  if (mask) {
    // A dim whose mask admits at most one index is constant: fold its position into the offset.
    std::vector<bool> single(shape.size());
    bool any_single = false, any_empty = false;
    for (size_t i = 0; i < shape.size(); i++) {
      const auto& [b, e] = (*mask)[i];
      single[i] = !resolve_lt(b + 1, e, true);
      any_single = any_single || single[i];
      any_empty = any_empty || !resolve_lt(b, e, true);
    }
    if (any_empty) {  // nothing is valid: one canonical form for all such views
      v.strides.assign(shape.size(), sint(0));
      offset = 0;
      mask = Ranges(shape.size(), Range(0, 0));
    }
    if (any_single) {
      for (size_t i = 0; i < shape.size(); i++)
        if (single[i]) {
          offset = offset + v.strides[i] * (*mask)[i].first;
          v.strides[i] = 0;
        }
    }
  }
  v.offset = offset;
  v.mask = std::move(mask);
  v.contiguous = v.offset == 0 && !v.mask && v.strides == strides_for_shape(shape);
  return v;
}

int64_t View::size() const { return max_prod(shape); }

bool View::is_concrete() const {
  if (!all_int(shape) || !all_int(strides) || !offset.is_int()) return false;
  if (mask)
    for (const auto& [b, e] : *mask)
      if (!b.is_int() || !e.is_int()) return false;
  return true;
}

namespace {
// Shrink/pad core: a window [begin, end) per dim (begin may be negative for padding); the old mask
// is moved into the window and intersected with `mask` when given.
View resize(const View& v, const Ranges& window, std::optional<Ranges> mask) {
  sint delta = 0;
  for (size_t i = 0; i < v.ndim(); i++) delta = delta + v.strides[i] * window[i].first;
  if (v.mask) {
    Ranges moved;
    for (size_t i = 0; i < v.ndim(); i++) {
      const auto& [mb, me] = (*v.mask)[i];
      const auto& [wb, we] = window[i];
      moved.emplace_back(smax(0, smin(mb - wb, we - wb)), smax(0, smin(me - wb, we - wb)));
    }
    if (mask) {
      for (size_t i = 0; i < v.ndim(); i++)
        (*mask)[i] = Range(smax(moved[i].first, (*mask)[i].first), smin(moved[i].second, (*mask)[i].second));
    } else {
      mask = std::move(moved);
    }
  }
  sints shape;
  for (const auto& [b, e] : window) shape.push_back(e - b);
  return View::create(shape, v.strides, v.offset + delta, std::move(mask));
}
} // namespace

View View::pad(const Ranges& arg) const {
  if (arg.size() != ndim())
    throw Error(cat("pad: ", ranges_str(arg), " has ", arg.size(), " (before, after) pairs for shape ", shape_str(shape),
                    " with ", ndim(), " dims"));
  for (const auto& [b, e] : arg)
    if ((b.is_int() && b.as_int() < 0) || (e.is_int() && e.as_int() < 0))
      throw Error(cat("pad: negative padding ", ranges_str(arg), " for shape ", shape_str(shape)));
  bool any = false;
  for (const auto& [b, e] : arg) any = any || resolve_ne(b, 0, true) || resolve_ne(e, 0, true);
  if (!any) return *this;
  Ranges window, mask;
  for (size_t i = 0; i < ndim(); i++) {
    window.emplace_back(-arg[i].first, shape[i] + arg[i].second);
    mask.emplace_back(arg[i].first, shape[i] + arg[i].first);
  }
  return resize(*this, window, std::move(mask));
}

View View::shrink(const Ranges& arg) const {
  if (arg.size() != ndim())
    throw Error(cat("shrink: ", ranges_str(arg), " has ", arg.size(), " (begin, end) pairs for shape ", shape_str(shape),
                    " with ", ndim(), " dims"));
  for (size_t i = 0; i < ndim(); i++) {
    const auto& [b, e] = arg[i];
    if (!b.is_int() || !e.is_int() || !shape[i].is_int()) continue;  // symbolic bounds are trusted
    if (!(0 <= b.as_int() && b.as_int() <= e.as_int() && e.as_int() <= shape[i].as_int()))
      throw Error(cat("shrink: ", ranges_str(arg), " is out of bounds for shape ", shape_str(shape), " (dim ", i, ": [",
                      b.as_int(), ", ", e.as_int(), ") not within [0, ", shape[i].as_int(), "])"));
  }
  return resize(*this, arg, std::nullopt);
}

View View::expand(const sints& new_shape) const {
  if (new_shape.size() != ndim())
    throw Error(cat("expand: ", shape_str(shape), " to ", shape_str(new_shape), ": expand keeps the number of dims (",
                    ndim(), " vs ", new_shape.size(), ")"));
  for (size_t i = 0; i < ndim(); i++) {
    if (new_shape[i].is_int() && new_shape[i].as_int() < 0)
      throw Error(cat("expand: negative dimension in ", shape_str(new_shape)));
    if (!(resolve_eq(shape[i], new_shape[i], true) || shape[i] == 1))
      throw Error(cat("expand: cannot expand ", shape_str(shape), " to ", shape_str(new_shape), " (dim ", i, " has size ",
                      shape[i].str(), "; only size-1 dims can be expanded)"));
  }
  if (has_zero_dim(shape)) return create(new_shape);
  std::optional<Ranges> new_mask;
  if (mask) {
    new_mask.emplace();
    for (size_t i = 0; i < ndim(); i++) {
      const Range& m = (*mask)[i];
      if (resolve_ne(shape[i], new_shape[i], false))
        new_mask->push_back(m == Range(0, 1) ? Range(0, new_shape[i]) : Range(0, 0));
      else
        new_mask->push_back(m);
    }
  }
  return create(new_shape, strides, offset, std::move(new_mask));
}

View View::permute(const std::vector<int64_t>& order) const {
  std::vector<int64_t> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == ndim();
  for (size_t i = 0; ok && i < sorted.size(); i++) ok = sorted[i] == int64_t(i);
  if (!ok)
    throw Error(cat("permute: ", shape_str(order), " is not a permutation of the ", ndim(), " dims of shape ",
                    shape_str(shape)));
  sints new_shape, new_strides;
  std::optional<Ranges> new_mask;
  if (mask) new_mask.emplace();
  for (int64_t a : order) {
    new_shape.push_back(shape[a]);
    new_strides.push_back(strides[a]);
    if (mask) new_mask->push_back((*mask)[a]);
  }
  return create(new_shape, new_strides, offset, std::move(new_mask));
}

View View::flip(const std::vector<bool>& axes) const {
  if (axes.size() != ndim())
    throw Error(cat("flip: ", axes.size(), " flags for shape ", shape_str(shape), " with ", ndim(), " dims"));
  sint new_offset = offset;
  sints new_strides(strides);
  std::optional<Ranges> new_mask = mask;
  for (size_t i = 0; i < ndim(); i++) {
    if (!axes[i]) continue;
    new_offset = new_offset + (shape[i] - 1) * strides[i];
    new_strides[i] = -strides[i];
    if (new_mask) {
      auto [b, e] = (*mask)[i];
      (*new_mask)[i] = Range(shape[i] - e, shape[i] - b);
    }
  }
  return create(shape, new_strides, new_offset, std::move(new_mask));
}

std::optional<int64_t> View::offset_of(const std::vector<int64_t>& idx) const {
  LOUPE_ASSERT(idx.size() == ndim(), "index has ", idx.size(), " dims, view ", ndim());
  int64_t off = offset.as_int();
  for (size_t i = 0; i < ndim(); i++) {
    if (mask && (idx[i] < (*mask)[i].first.as_int() || idx[i] >= (*mask)[i].second.as_int())) return std::nullopt;
    off += idx[i] * strides[i].as_int();
  }
  return off;
}

std::pair<UOpPtr, UOpPtr> View::to_indexed(const UOpList& idxs, const UOpPtr& valid_in) const {
  LOUPE_ASSERT(idxs.size() == ndim(), idxs.size(), " index expressions for ", ndim(), " dims");
  UOpPtr index;
  auto add = [&](const UOpPtr& term) { index = index ? index + term : term; };
  UOpPtr valid = valid_in;
  auto also = [&](const UOpPtr& cond) { valid = valid ? logical_and(valid, cond) : cond; };
  for (size_t i = 0; i < ndim(); i++) {
    const UOpPtr& idx = idxs[i];
    if (resolve_ne(shape[i], 1, true) && resolve_ne(strides[i], 0, true)) add(strides[i] == 1 ? idx : idx * strides[i].uop());
    if (mask) {
      const auto& [b, e] = (*mask)[i];
      if (resolve_ne(b, 0, true)) also(logical_not(lt(idx, b.uop())));
      if (resolve_ne(e, shape[i], true)) also(lt(idx, e.uop()));
    }
  }
  if (!index) index = offset.uop();
  else if (!(offset == 0)) index = index + offset.uop();
  return {index, valid ? valid : UOp::cnst_bool(true)};
}

UOpList View::vars() const {
  UOpList out;
  for (const sint& s : shape) collect_vars(s, out);
  for (const sint& s : strides) collect_vars(s, out);
  collect_vars(offset, out);
  if (mask)
    for (const auto& [b, e] : *mask) {
      collect_vars(b, out);
      collect_vars(e, out);
    }
  return out;
}

namespace {
// Rebuilds an expression with every BIND replaced by its DEFINE_VAR.
sint strip_binds(const sint& x, UOpMap<UOpPtr>& memo) {
  if (x.is_int()) return x;
  std::function<UOpPtr(const UOpPtr&)> go = [&](const UOpPtr& u) -> UOpPtr {
    if (auto it = memo.find(u); it != memo.end()) return it->second;
    UOpPtr out;
    if (u->op == Ops::BIND) {
      out = u->src[0];
    } else {
      UOpList src;
      for (const UOpPtr& s : u->src) src.push_back(go(s));
      out = u->replace_src(std::move(src));
    }
    memo[u] = out;
    return out;
  };
  return sint(go(x.sym()));
}
} // namespace

std::pair<View, std::vector<std::pair<UOpPtr, int64_t>>> View::unbind() const {
  std::vector<std::pair<UOpPtr, int64_t>> values;
  for (const UOpPtr& v : vars())
    if (v->op == Ops::BIND && v->src.size() == 2 && v->src[1]->is_const()) values.emplace_back(v->src[0], v->src[1]->const_int());
  if (values.empty()) return {*this, {}};
  UOpMap<UOpPtr> memo;
  auto strip = [&](const sints& xs) {
    sints out;
    for (const sint& x : xs) out.push_back(strip_binds(x, memo));
    return out;
  };
  std::optional<Ranges> new_mask;
  if (mask) {
    new_mask.emplace();
    for (const auto& [b, e] : *mask) new_mask->emplace_back(strip_binds(b, memo), strip_binds(e, memo));
  }
  return {create(strip(shape), strip(strides), strip_binds(offset, memo), std::move(new_mask)), values};
}

bool View::operator==(const View& o) const {
  return shape == o.shape && strides == o.strides && offset == o.offset && mask == o.mask && contiguous == o.contiguous;
}

void View::hash(StableHasher& h) const {
  h.u64(shape.size());
  for (const sint& s : shape) s.hash(h);
  for (const sint& s : strides) s.hash(h);
  offset.hash(h);
  h.u64(mask.has_value());
  if (mask)
    for (const auto& [b, e] : *mask) {
      b.hash(h);
      e.hash(h);
    }
  h.u64(contiguous);
}

std::string View::str() const {
  return cat("View(shape=", shape_str(shape), ", strides=", shape_str(strides), ", offset=", offset.str(),
             ", mask=", mask ? ranges_str(*mask) : std::string("None"), ", contiguous=", contiguous ? "True" : "False", ")");
}

} // namespace loupe
