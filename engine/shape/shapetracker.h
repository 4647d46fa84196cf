// ShapeTracker: a stack of views (reference map §7.4–7.5). views().front() reads the buffer; each later
// view indexes into the output of the one before it; views().back() defines the visible shape. Movement
// ops act on the last view and stack a new view only when one view cannot express the result. It is a
// UOp arg (kind "ShapeTracker") so kernels and traces can carry it.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/arg.h"
#include "shape/view.h"

namespace loupe {

class ShapeTracker : public ArgObject {
public:
  explicit ShapeTracker(std::vector<View> views);
  static ShapeTracker from_shape(const sints& shape);
  static ShapeTracker from_shape(const std::vector<int64_t>& shape) { return from_shape(to_sints(shape)); }

  const std::vector<View>& views() const { return views_; }
  const sints& shape() const { return views_.back().shape; }
  size_t ndim() const { return shape().size(); }
  int64_t size() const { return views_.back().size(); }
  bool contiguous() const { return views_.size() == 1 && views_[0].contiguous; }
  // One unmasked view with row-major strides (the offset may be nonzero).
  bool consecutive() const;
  sints reduce(const std::vector<int64_t>& axes) const;  // shape with these axes set to 1

  // Movement ops (errors as for View: a loupe::Error naming the op and the shapes).
  ShapeTracker reshape(const sints& new_shape) const;
  ShapeTracker pad(const Ranges& before_after) const;
  ShapeTracker shrink(const Ranges& bounds) const;
  ShapeTracker expand(const sints& new_shape) const;
  ShapeTracker permute(const std::vector<int64_t>& order) const;
  ShapeTracker flip(const std::vector<bool>& axes) const;
  ShapeTracker flip_axes(const std::vector<int64_t>& axes) const;  // axes to flip (negative counts from the end)
  ShapeTracker movement(Ops op, const Arg& arg) const;  // RESHAPE/PERMUTE/EXPAND/PAD/SHRINK/FLIP with its arg
  // The same strides over a longer dim `axis` (size `size`), without the mask a pad would add: where the
  // last view has no mask and every new element still reads inside what the view below it holds (the
  // first view: `buffer_elements`). A kernel padding an output axis reads there values that only padded
  // outputs use, which are never stored. nullopt where some new element would read outside, or the
  // tracker is symbolic.
  std::optional<ShapeTracker> extended(size_t axis, int64_t size, int64_t buffer_elements) const;

  // Merges neighbouring views while one view can express them.
  ShapeTracker simplify() const;
  // Applies `other`'s views on top of this one's, simplifying after each.
  ShapeTracker operator+(const ShapeTracker& other) const;
  std::optional<ShapeTracker> invert(const sints& out_shape) const;

  // Ground truth by evaluation of the views (concrete trackers only): the buffer offset element `idx`
  // reads, or -1 for padding; and that for every element in row-major order.
  int64_t offset_of(const std::vector<int64_t>& idx) const;
  std::vector<int64_t> mapping() const;

  // Index and valid expressions over RANGE variables ridx0.. (one per dim, or the given ones).
  // `simplified`: run the symbolic simplifier (and validity simplification) over both.
  std::pair<UOpPtr, UOpPtr> to_indexed(bool simplified = true) const;
  std::pair<UOpPtr, UOpPtr> to_indexed(const UOpList& idxs, bool simplified = true) const;
  // Per dim: the stride when the index is affine in that dim alone, 0 when unused, nullopt otherwise
  // (and for masked dims unless ignore_valid).
  std::vector<std::optional<sint>> real_strides(bool ignore_valid = false) const;
  // to_indexed and real_strides remember their results for every tracker of the process; this forgets
  // them (for measurements from a cold start).
  static void forget_memos();
  std::vector<int64_t> unit_stride_axes(bool ignore_valid = false) const;
  bool axis_is_masked(int64_t axis) const;
  // Buffer elements needed: the largest offset any valid element reads, plus one.
  int64_t real_size() const;

  UOpList vars() const;
  std::pair<ShapeTracker, std::vector<std::pair<UOpPtr, int64_t>>> unbind() const;

  UOpPtr to_uop() const;  // VIEW with this tracker as arg
  Arg to_arg() const;

  bool operator==(const ShapeTracker& o) const { return views_ == o.views_; }

  // ArgObject
  const char* kind() const override { return "ShapeTracker"; }
  void hash(StableHasher& h) const override;
  bool equals(const ArgObject& other) const override;
  std::string str() const override;  // ShapeTracker(views=(View(...),))
  std::string encode() const override;
  static ShapeTracker decode(const std::string& text);  // throws loupe::Error on malformed text

private:
  std::vector<View> views_;
  ShapeTracker with_last(View v) const;
};

// Registers the "ShapeTracker" arg decoder. It also happens when this file's object is linked in; a
// program that only decodes traces calls this so the linker keeps it.
void register_shapetracker_arg();

} // namespace loupe
