// View: one strided, optionally masked window onto a buffer (reference map §7.1–7.3). Element
// (i0, ..., in) reads buffer[offset + sum(ik * strides[k])] when every ik lies in mask[k] = [bk, ek),
// and is padding (reads as 0) otherwise. Views are values: every operation returns a new one, built by
// View::create so equal windows have equal representations.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "shape/sint.h"

namespace loupe {

using Range = std::pair<sint, sint>;  // half-open [begin, end)
using Ranges = std::vector<Range>;    // one per dim: a mask, pad widths, shrink bounds

class View {
public:
  sints shape;
  sints strides;
  sint offset = 0;
  std::optional<Ranges> mask;  // none: every element is valid
  bool contiguous = true;

  // The canonical view (§7.1): row-major strides by default, size-1 dims get stride 0, a full mask is
  // dropped, a dim whose mask admits one index is folded into the offset, an empty mask empties all.
  // Throws loupe::Error for a negative dim or mismatched lengths.
  static View create(const sints& shape, std::optional<sints> strides = std::nullopt, sint offset = 0,
                     std::optional<Ranges> mask = std::nullopt);

  size_t ndim() const { return shape.size(); }
  int64_t size() const;  // elements (symbolic dims at their largest value)

  // Movement ops. Bad arguments throw loupe::Error naming the op, the argument and the shape.
  View pad(const Ranges& before_after) const;   // (before, after) per dim, both >= 0
  View shrink(const Ranges& bounds) const;      // [begin, end) per dim within the shape
  View expand(const sints& new_shape) const;    // only size-1 dims may change
  View permute(const std::vector<int64_t>& order) const;
  View flip(const std::vector<bool>& axes) const;  // one flag per dim
  // Reshape within this one view, or nullopt when one view cannot express it (the caller then stacks a
  // second view). A size mismatch or negative dim is a loupe::Error.
  std::optional<View> reshape(const sints& new_shape) const;

  // Composition (§7.3): the single view equal to applying `inner` (which indexes into this view's
  // output) and then this view, or nullopt when no single view can express both.
  std::optional<View> merge(const View& inner) const;
  // A view that undoes this one's permutes and flips (for a contiguous permuted copy), if it has size
  // prod(out_shape).
  std::optional<View> invert(const sints& out_shape) const;
  // The same view reshaped to as few dims as possible (linear runs merged).
  View minify() const;

  // Evaluation with concrete indices: the buffer offset, or nullopt for padding. Requires a concrete view.
  std::optional<int64_t> offset_of(const std::vector<int64_t>& idx) const;
  // Index and validity expressions over the given index expressions (one per dim); `valid` is ANDed
  // onto an incoming condition (null means True).
  std::pair<UOpPtr, UOpPtr> to_indexed(const UOpList& idxs, const UOpPtr& valid = nullptr) const;

  bool is_concrete() const;
  UOpList vars() const;  // variables used by shape, strides, offset, mask
  // Bound variables replaced by their DEFINE_VARs, with the values they were bound to.
  std::pair<View, std::vector<std::pair<UOpPtr, int64_t>>> unbind() const;

  bool operator==(const View& o) const;
  void hash(StableHasher& h) const;
  // tinygrad's repr: View(shape=(4, 4), strides=(4, 1), offset=0, mask=None, contiguous=True)
  std::string str() const;
};

// tinygrad's spelling of composition: `outer + inner` is outer.merge(inner).
inline std::optional<View> operator+(const View& outer, const View& inner) { return outer.merge(inner); }

sints strides_for_shape(const sints& shape);
// The position of a flat offset in each dim of `shape` (floor semantics, like numpy's unravel_index
// but without bounds checks).
sints unravel(const sints& shape, const sint& offset);

// Groups dims into maximal linear blocks: (merged size, innermost stride, size of the non-broadcast
// part). Size-1 dims are absorbed; a dim whose mask admits one index joins the next block.
struct MergedDim {
  int64_t size, stride, real_size;
};
std::vector<MergedDim> merge_dims(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                  const std::optional<std::vector<std::pair<int64_t, int64_t>>>& mask = std::nullopt);

std::string ranges_str(const Ranges& r);  // "((0, 2), (1, 3))"

} // namespace loupe
