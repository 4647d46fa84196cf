// The scheduler (reference map §8): turns a lazy tensor graph into an ordered list of kernels.
//  1. "movement to views": every movement op becomes VIEW(base, ShapeTracker) (a graph_rewrite).
//  2. realize decisions: outputs, CONTIGUOUS, COPY (and its source), and reduces read by several
//     kernels or whose nesting into their consumer would recompute too much (kernel_ast.h).
//  3. one SINK(STORE) kernel AST per realized node: views are composed down to the loads
//     (view_left), masked views over computed values gate with VALID.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace loupe {

class PatternMatcher;

struct ScheduleItem {
  UOpPtr ast;    // SINK(STORE(DEFINE_GLOBAL 0, VIEW, value)), or COPY (arg: the target
                 // device) copying bufs[1] into bufs[0]
  UOpList bufs;  // tensor-level BUFFER nodes; bufs[i] is DEFINE_GLOBAL i (0: the output)
  std::vector<uint32_t> metadata;  // the tensor ops fused into it (ir/metadata.h), first seen first
  UOpPtr root;  // the tensor-level node it realizes, in the scheduler's graph (null from the schedule cache)
  // Symbolic shapes: the values of this run's variables. The AST holds only unbound DEFINE_VARs (its kernel
  // is the same for every value); each pair is one of them and the value it was bound to.
  std::vector<std::pair<UOpPtr, int64_t>> var_vals;
};

struct Schedule {
  std::vector<ScheduleItem> items;
  // What each requested output became: a view (RESHAPE) of its realized BUFFER, or the same node when
  // it already was a contiguous view of a buffer.
  UOpList outputs;
};

// What the scheduler needs to know of the devices, asked by the caller (the scheduler opens none).
struct ScheduleOptions {
  // Whether a device runs one thread per kernel element (GPUs with work-groups): a nested reduce is then
  // recomputed by every thread. Unset: no device does (the host devices).
  std::function<bool(const std::string& device)> threads_per_element;
  // Whether such a device's work-groups reduce a row together (warp shuffles: CUDA), so that a nested
  // reduce read along the kernel's last axis alone runs once per row (ir/cooperative_rows.h).
  std::function<bool(const std::string& device)> row_groups;
};

Schedule create_schedule(const UOpList& outputs, const ScheduleOptions& opts = {});

// The name of the pass whose result is the scheduler's own graph: the graph whose nodes become kernels
// (ScheduleItem::root).
inline constexpr const char* kSchedulerGraphPass = "movement ops to views";

// The scheduler's rule sets ("movement ops to views", "split big reduces"), for explaining their rules
// (codegen/stage_table.h); their callbacks need the scheduler's state.
const PatternMatcher& schedule_movement_rules();
const PatternMatcher& schedule_split_rules();

} // namespace loupe
