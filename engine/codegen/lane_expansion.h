// The lanes of a kernel template: every node of the template rebuilt once per combination of the
// upcast (or unrolled) axes' values it depends on, from its sources' lanes (so the cost follows the
// lanes that exist, not the graph's size times the lanes). Lanes are built on demand, from the stores
// down.
//
// With a vector target, the upcast axes along which the kernel's stores run over consecutive addresses
// (as far as one vector register holds) are the *vector axes*; where a load inside a reduce loop gives
// full vectors and the stores narrower ones, that load's axes are, and the stores write lane by lane. A node computed the same way on each of
// their lanes (a consecutive load, an accumulator and its update, a value op the target has on
// vectors) is built once per combination of the other axes, as a vector; a lane of it is read with GEP.
// What has no vector form is built as scalar lanes, and the vectorizer joins what it can of those later
// (a run of GEPs of one vector is that vector again). Building vectors directly spares building,
// simplifying and joining every scalar lane. Values the stores' vectors do not vary over, computed
// outside the reduce loops, can be vectors over other upcast axes too (a softmax's exps per row, read
// by a matmul's vectors as scalars), which the vectorizer, seeded from the stores, would not join.
//
// lane_expansion.cpp builds the lanes; lane_vector_axes.cpp decides which axes are vector axes and
// which nodes take a vector form.
#pragma once
#include <deque>
#include <vector>

#include "codegen/expander.h"
#include "codegen/vectorizer.h"
#include "rewrite/graph_rewrite.h"
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
  // outermost; nullptr if no store does. A step of `stage` per store expanded.
  UOpPtr expand_sink(const UOpPtr& sink, TracedStage* stage = nullptr);

private:
  // Axes whose lanes are one vector: the stores' (`stores_`), or others that lanes the stores' vectors
  // do not depend on vary over (`others_`: a softmax's exps per row, read by a matmul's vectors as
  // scalars).
  struct VectorGroup {
    uint32_t mask = 0;                 // its axes (0: none)
    int width = 0;                     // lanes of a vector: the product of their extents
    std::vector<size_t> lane_stride;   // per axis: its lane stride within a vector (its axes only)
  };
  enum class Vector : uint8_t { unknown, no, yes };
  struct Lanes {
    const UOp* node = nullptr;  // the template node
    uint32_t mask = 0;          // the axes (bits in axis order) the node depends on
    bool quiet = false;         // its lanes only rename what the template computes (QuietLanes)
    Vector vector = Vector::unknown;
    const VectorGroup* group = nullptr;  // of its vector form
    bool in_reduce_loop = false;         // computed inside a loop of a reduce (not hoisted out of it)
    UOpList values;   // scalar lanes, one per combination of mask's axes (built on demand)
    UOpList vectors;  // vector form: one per combination of mask's axes outside its group (on demand)
  };

  Lanes& info(const UOpPtr& u);
  const UOpList& scalars(Lanes& l);
  const UOpList& vectors(Lanes& l);
  bool vectorizable(Lanes& l);
  const VectorGroup* group_for(const Lanes& l) const;
  bool decide(const Lanes& l, const VectorGroup& g);
  bool operand_ok(const UOpPtr& s, const VectorGroup& g);
  bool mask_ok(const UOpPtr& cond, int width, const VectorGroup& g);
  UOpPtr build_vector(const Lanes& l, size_t rest);
  UOpPtr operand(const UOpPtr& s, size_t rest, uint32_t rest_mask, const VectorGroup& g);
  UOpPtr build_mask(const UOpPtr& cond, size_t rest, uint32_t rest_mask, const VectorGroup& g);
  bool consecutive_lanes(const UOpPtr& index, size_t rest, uint32_t mask, const VectorGroup& g);
  Arg accumulator_arg(const UOp* acc, size_t combo, uint32_t mask) const;
  UOpPtr accumulator_lane(const UOp* acc, UOpList src) const;

  struct VectorChain {
    std::vector<std::pair<size_t, int64_t>> axes;  // (axis, its lanes in a vector), innermost first
    int64_t width = 1;                             // lanes of a vector
  };
  bool direct_vector_stores(const UOpPtr& sink, const UOpPtr& store, UOpList& out);
  VectorChain vector_chain(const UOpPtr& index, int64_t widest, int64_t narrowest);
  void choose_vector_axes(const UOpPtr& sink);
  bool vector_axes_fit(const UOpPtr& sink);
  void settle_accumulators();
  void choose_other_axes();
  void undecide();
  std::vector<int64_t> address_steps(const UOpPtr& index);

  uint32_t axis_bits(const UOp* u) const;
  size_t combinations(uint32_t mask) const;
  size_t project(size_t combo, uint32_t mask, uint32_t sub) const;
  size_t vector_lane(size_t combo, uint32_t mask, const VectorGroup& g) const;
  size_t combo_of(size_t rest, size_t lane, uint32_t mask, const VectorGroup& g) const;
  void keep_quiet(const Lanes& l, const UOpPtr& built);

  QuietLanes* quiet_;
  Accumulators accumulators_;
  std::vector<const UOp*> axes_;
  std::vector<int64_t> extents_;  // of axes_
  const VectorTarget* target_ = nullptr;
  VectorGroup stores_, others_;
  bool scattered_stores_ = false;  // stores_ are a load's axes, not the stores': their lanes stored one by one
  std::vector<const UOp*> order_;         // the template's nodes, sources first (with a vector target)
  FlatPtrSet<const UOp*> reduce_loops_;  // the loops of the template's accumulators
  FlatPtrMap<const UOp*, uint8_t> vector_accs_;  // accumulator -> whether its update has a vector form
  FlatPtrMap<const UOp*, Lanes*> memo_;
  std::deque<Lanes> store_;  // stable addresses: a node's lanes are read while its sources' are built
};

} // namespace loupe
