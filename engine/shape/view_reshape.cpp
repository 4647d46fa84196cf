// Reshape within one view (reference map §7.2): strides by walking linear blocks of the old dims,
// and the mask carried through the reshape where it does not straddle a split.
#include <algorithm>

#include "ir/eval.h"
#include "shape/view.h"
#include "support/error.h"

namespace loupe {

using IntRanges = std::vector<std::pair<int64_t, int64_t>>;

std::vector<MergedDim> merge_dims(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                  const std::optional<IntRanges>& mask) {
  std::vector<MergedDim> out;
  if (shape.empty()) return out;
  LOUPE_ASSERT(shape.size() == strides.size() && (!mask || mask->size() == shape.size()));
  out.push_back({shape[0], strides[0], strides[0] != 0 ? shape[0] : 0});
  // A dim that admits a single index (size 1, or a one-wide mask) never breaks linearity with the next.
  auto pins = [&](size_t i) { return mask ? (*mask)[i].second - (*mask)[i].first == 1 : shape[i] == 1; };
  bool merging = pins(0);
  for (size_t i = 1; i < shape.size(); i++) {
    int64_t s = shape[i], st = strides[i];
    if (s == 1) continue;  // size-1 dims vanish (and leave `merging` as it was)
    MergedDim& last = out.back();
    if (merging || last.stride == s * st) {
      last = {last.size * s, st, merging ? s : last.real_size * s};
    } else {
      out.push_back({s, st, s});
    }
    merging = pins(i);
  }
  return out;
}

namespace {

// The mask after reshaping old_shape to new_shape, or nullopt when a mask range cannot be expressed
// per new dim. Walks both shapes from the innermost dim outward.
std::optional<IntRanges> reshape_mask(const IntRanges& mask, const std::vector<int64_t>& old_shape,
                                      const std::vector<int64_t>& new_shape) {
  IntRanges out;
  size_t old_left = old_shape.size(), new_left = new_shape.size(), mask_left = mask.size();
  // Past the outermost dim the shapes continue with 1s (and unmasked ranges).
  auto next_old = [&]() -> int64_t { return old_left ? old_shape[--old_left] : 1; };
  auto next_new = [&]() -> int64_t { return new_left ? new_shape[--new_left] : 1; };
  auto next_mask = [&]() -> std::pair<int64_t, int64_t> { return mask_left ? mask[--mask_left] : std::pair<int64_t, int64_t>(0, 1); };

  int64_t curr_stride = 1, old_dim = next_old(), new_dim = next_new();
  std::pair<int64_t, int64_t> m = next_mask();
  size_t guard = 4 * (old_shape.size() + new_shape.size()) + 16;
  while (out.size() < new_shape.size()) {
    LOUPE_ASSERT(guard-- > 0, "reshape_mask does not terminate for ", shape_str(old_shape), " -> ", shape_str(new_shape));
    auto [l, r] = m;
    int64_t next_stride = new_dim * curr_stride;
    if (old_dim == next_stride) {  // this new dim ends where the old one does: take the rest of its range
      out.emplace_back(floor_div(l, curr_stride), floor_div(r - 1, curr_stride) + 1);
      curr_stride = 1;
      old_dim = next_old();
      new_dim = next_new();
      m = next_mask();
    } else if (old_dim > next_stride) {  // the old dim splits: the range must stay within one block
      if (old_dim % next_stride != 0) return std::nullopt;
      if ((l % next_stride != 0 || r % next_stride != 0) && floor_div(l, next_stride) != floor_div(r - 1, next_stride))
        return std::nullopt;
      out.emplace_back(floor_div(floor_mod(l, next_stride), curr_stride),
                       floor_div(floor_mod(r - 1, next_stride), curr_stride) + 1);
      curr_stride = next_stride;
      new_dim = next_new();
    } else {  // several old dims combine: only if the inner range is full (or the outer admits one index)
      auto outer = next_mask();
      if (m != std::pair<int64_t, int64_t>(0, old_dim) && l != r && outer.second - outer.first != 1) return std::nullopt;
      m = {outer.first * old_dim + l, (outer.second - 1) * old_dim + r};
      old_dim *= next_old();
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::optional<IntRanges> int_mask(const View& v) {
  if (!v.mask) return std::nullopt;
  IntRanges out;
  for (const auto& [b, e] : *v.mask) out.emplace_back(b.as_int(), e.as_int());
  return out;
}

} // namespace

std::optional<View> View::reshape(const sints& new_shape) const {
  if (shape == new_shape) return *this;
  for (const sint& s : new_shape)
    if (s.is_int() && s.as_int() < 0) throw Error(cat("reshape: negative dimension in ", shape_str(new_shape)));
  if (all_int(shape) && resolve_ne(prod(shape), prod(new_shape), false))
    throw Error(cat("reshape: cannot reshape ", shape_str(shape), " (", prod(shape).str(), " elements) to ",
                    shape_str(new_shape), " (", prod(new_shape).str(), " elements)"));
  if (std::any_of(shape.begin(), shape.end(), [](const sint& s) { return s == 0; })) return create(new_shape);
  if (new_shape.empty() && mask &&
      std::any_of(mask->begin(), mask->end(), [](const Range& m) { return m.first == m.second; }))
    return std::nullopt;
  if (contiguous) return create(new_shape);

  if (all_int(shape) && !all_int(new_shape)) {
    // A non-contiguous view only takes a symbolic shape that names exactly its current dims.
    auto refuse = [&]() {
      return Error(cat("reshape: cannot give the non-contiguous ", str(), " the symbolic shape ", shape_str(new_shape)));
    };
    if (new_shape.size() != ndim()) throw refuse();
    for (size_t i = 0; i < ndim(); i++) {
      int64_t v;
      try {
        v = bound_value(new_shape[i]);
      } catch (const Error&) {
        throw refuse();
      }
      if (v != shape[i].as_int()) throw refuse();
    }
    View out = *this;
    out.shape = new_shape;
    return out;
  }
  if (!is_concrete() || !all_int(new_shape)) return std::nullopt;  // symbolic strides or masks: stack a view

  std::vector<int64_t> old_ints = to_ints(shape), new_ints = to_ints(new_shape);
  std::optional<IntRanges> old_mask = int_mask(*this);
  std::vector<MergedDim> blocks = merge_dims(old_ints, to_ints(strides), old_mask);

  // Tile each linear block, innermost first, with new dims; the part of a block beyond its real
  // (non-broadcast) size is broadcast again, so it gets stride 0.
  std::vector<int64_t> r_strides;
  size_t new_left = new_ints.size();
  for (size_t bi = blocks.size(); bi-- > 0;) {
    const MergedDim& blk = blocks[bi];
    int64_t acc = 1, stride = blk.stride;
    while (acc < blk.size) {
      int64_t dim = new_left ? new_ints[--new_left] : 0;
      if (dim <= 0) break;
      r_strides.push_back(stride * acc);
      acc *= dim;
      if (!(acc < blk.real_size)) stride = 0;
    }
    if (acc != blk.size) return std::nullopt;
  }
  sints new_strides(new_ints.size() - r_strides.size(), sint(0));
  for (size_t i = r_strides.size(); i-- > 0;) new_strides.push_back(r_strides[i]);

  std::optional<IntRanges> new_mask = old_mask ? reshape_mask(*old_mask, old_ints, new_ints) : std::optional<IntRanges>();
  if (old_mask && !new_mask) return std::nullopt;
  int64_t extra = 0;
  std::optional<Ranges> mask_out;
  if (new_mask) {
    // Re-anchor the offset: the first valid element must keep reading the same place.
    for (size_t i = 0; i < ndim(); i++) extra += (*old_mask)[i].first * strides[i].as_int();
    mask_out.emplace();
    for (size_t i = 0; i < new_ints.size(); i++) {
      extra -= (*new_mask)[i].first * new_strides[i].as_int();
      mask_out->emplace_back((*new_mask)[i].first, (*new_mask)[i].second);
    }
  }
  return create(new_shape, new_strides, offset + extra, std::move(mask_out));
}

View View::minify() const {
  if (!is_concrete()) return *this;
  sints min_shape;
  for (const MergedDim& d : merge_dims(to_ints(shape), to_ints(strides), int_mask(*this))) min_shape.push_back(d.size);
  std::optional<View> v = reshape(min_shape);
  return v ? *v : *this;
}

} // namespace loupe
