// The lanes of a kernel template: every node of the template rebuilt once per combination of the
// upcast (or unrolled) axes' values it depends on, from its sources' lanes (a whole-graph substitution
// per lane cost the size of the graph for every lane). Lanes are built on demand, from the stores down.
//
// With a vector target, the upcast axes along which the kernel's stores run over consecutive addresses
// (as far as one vector register holds) are the *vector axes*. A node computed the same way on each of
// their lanes (a consecutive load, an accumulator and its update, a value op the target has on
// vectors) is built once per combination of the other axes, as a vector; a lane of it is read with GEP.
// What has no vector form is built as scalar lanes, and the vectorizer joins what it can of those later
// (a run of GEPs of one vector is that vector again). The vectorizer joined the same nodes from the
// scalar lanes before; building them as vectors spares building, simplifying and joining every lane.
#pragma once
#include <deque>
#include <vector>

#include "codegen/expander.h"
#include "codegen/vectorizer.h"
#include "support/flat_ptr_map.h"

namespace loupe {

class LaneExpansion {
public:
  // An accumulator's lanes are distinct accumulators (upcast), or it is rebuilt with the axes' values
  // like any node (unrolled: the values are updates within one iteration).
  enum class Accumulators { split, substituted };

  // The upcast axes of `axes`; `vectors` (null or 0 bytes: scalar lanes only) for vector axes.
  LaneExpansion(const ExpandAxes& axes, QuietLanes* quiet, const VectorTarget* vectors);
  LaneExpansion(std::vector<const UOp*> axes, QuietLanes* quiet, Accumulators accumulators);

  // u for every combination of all the axes' values, the first axis outermost (scalar lanes).
  UOpList every_lane(const UOpPtr& u);

  // Each store that depends on the axes -> one store per combination of their values, first axis
  // outermost; nullptr if no store does.
  UOpPtr expand_sink(const UOpPtr& sink);

private:
  enum class Vector : uint8_t { unknown, no, yes };
  struct Lanes {
    const UOp* node = nullptr;  // the template node
    uint32_t mask = 0;          // the axes (bits in axis order) the node depends on
    bool quiet = false;         // its lanes only rename what the template computes (QuietLanes)
    Vector vector = Vector::unknown;
    UOpList values;   // scalar lanes, one per combination of mask's axes (built on demand)
    UOpList vectors;  // vector form: one per combination of mask's non-vector axes (built on demand)
  };

  Lanes& info(const UOpPtr& u);
  const UOpList& scalars(Lanes& l);
  const UOpList& vectors(Lanes& l);
  bool vectorizable(Lanes& l);
  bool decide(const Lanes& l);
  bool operand_ok(const UOpPtr& s);
  bool mask_ok(const UOpPtr& cond, int width);
  UOpPtr build_vector(const Lanes& l, size_t rest);
  UOpPtr operand(const UOpPtr& s, size_t rest, uint32_t rest_mask);
  UOpPtr build_mask(const UOpPtr& cond, size_t rest, uint32_t rest_mask);
  bool consecutive_lanes(const UOpPtr& index, size_t rest, uint32_t mask);
  Arg accumulator_arg(const UOp* acc, size_t combo, uint32_t mask) const;
  UOpPtr accumulator_lane(const UOp* acc, UOpList src) const;

  void choose_vector_axes(const UOpPtr& sink);
  bool vector_axes_fit(const UOpPtr& sink);
  void settle_accumulators(const UOpPtr& sink);

  uint32_t axis_bits(const UOp* u) const;
  size_t combinations(uint32_t mask) const;
  size_t project(size_t combo, uint32_t mask, uint32_t sub) const;
  size_t vector_lane(size_t combo, uint32_t mask) const;
  size_t combo_of(size_t rest, size_t lane, uint32_t mask) const;
  void keep_quiet(const Lanes& l, const UOpPtr& built);

  QuietLanes* quiet_;
  Accumulators accumulators_;
  std::vector<const UOp*> axes_;
  std::vector<int64_t> extents_;  // of axes_
  const VectorTarget* target_ = nullptr;
  uint32_t vmask_ = 0;               // the vector axes (0: none)
  int width_ = 0;                    // lanes of a vector: the product of their extents
  std::vector<size_t> lane_stride_;  // per axis: its lane stride within a vector (vector axes only)
  FlatPtrMap<const UOp*, uint8_t> vector_accs_;  // accumulator -> whether its update has a vector form
  FlatPtrMap<const UOp*, Lanes*> memo_;
  std::deque<Lanes> store_;  // stable addresses: a node's lanes are read while its sources' are built
};

} // namespace loupe
