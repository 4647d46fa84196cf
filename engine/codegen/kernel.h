// Kernel: one kernel AST seen as an iteration space (reference map §9). Every buffer access (and
// every reduce) has a ShapeTracker over the same axes; simplifications and optimizations reshape and
// permute all of them together. Axis order: [global | local | group | reduce | upcast/unroll].
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "shape/shapetracker.h"

namespace loupe {

enum class AxisKind { Global, Local, GroupReduce, Reduce, Upcast, Unroll };
const char* axis_kind_name(AxisKind k);
const char* axis_kind_colour(AxisKind k);  // tinygrad's: blue, cyan, green, red, yellow, magenta

class Kernel {
public:
  explicit Kernel(UOpPtr ast);

  const UOpPtr& ast() const { return ast_; }
  size_t shape_len() const { return sts_.empty() ? 0 : sts_[0].ndim(); }
  std::vector<int64_t> full_shape() const;    // the iteration space (largest extent per axis)
  std::vector<int64_t> output_shape() const;  // the STORE's shape (1 on reduce axes)
  size_t first_reduce() const;                // first axis where output and full shape differ
  size_t first_upcast() const { return shape_len() - upcasted_; }
  size_t global_dims() const { return first_reduce() - local_dims_; }
  bool has_reduce() const { return !reduceops_.empty(); }
  std::vector<AxisKind> axis_kinds() const;

  // tinygrad-style name: "r_" or "E_" and the axis sizes ("r_16_16_4"); unique per distinct AST
  // in this process ("r_16_16_4n1").
  std::string name() const;
  std::string base_name() const;

  // The AST with every view replaced by this kernel's (permuted/reshaped) trackers, reduce axes
  // updated, and SINK.arg = (name, local_dims, upcasted, dont_use_locals).
  UOpPtr optimized_ast() const;

  const std::vector<ShapeTracker>& sts() const { return sts_; }

  // Reshape (per-tracker shape function) and/or permute every tracker together.
  void reshape_and_permute(const std::function<sints(const sints&)>& new_shape, const std::vector<int64_t>* permute);

private:
  void simplify_ones();
  void simplify_merge_adjacent();

  UOpPtr ast_;
  std::vector<UOpPtr> bufs_;     // nodes carrying a VIEW: STORE, LOAD, IOTA, VALID
  std::vector<const UOp*> reduceops_;
  std::vector<ShapeTracker> sts_;  // per buf, then per reduce: (output tracker, input tracker)
  size_t upcasted_ = 0, local_dims_ = 0;
  bool dont_use_locals_ = false;
};

} // namespace loupe
