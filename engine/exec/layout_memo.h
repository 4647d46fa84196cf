// Layout copies kept across schedules. The host's tiles read a matmul's right operand packed into
// column panels and a convolution's weights channel first (tensor/matmul_operands.h): a copy kernel per
// call, which an inference loop runs again and again on weights that never change (transformer_block:
// 2.7-3 ms of packing in 11-16 ms). A copy that only moves the elements of buffers realized before its
// schedule, through views without padding, is remembered with its output buffer; while neither its
// inputs nor that output has been written since (Buffer::writes), the next schedule with the same copy
// binds its output to the remembered buffer instead of running it.
//
// Only on the host devices (where every write to a buffer is counted: kernels run through execute, and
// host copies count themselves), never while a TinyJit captures (its replay must run the copy, as the
// weights may change between calls), while a trace records or BEAM and the NOOPT comparison time
// kernels (they show and measure what ran). LAYOUT_MEMO=0 turns it off.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "ir/uop.h"
#include "schedule/schedule.h"

namespace loupe {

class Buffer;

// Whether a kernel's AST only copies elements (stores loads, through views without masks).
bool is_layout_copy(const UOpPtr& ast);

// One schedule's use of the memo: which items' copies may be reused, and the bindings and records as
// the schedule runs.
class LayoutReuse {
public:
  explicit LayoutReuse(const Schedule& schedule);

  // The outputs of the reusable copies: the memory planner must leave them their own buffers.
  const std::unordered_set<const UOp*>& outputs() const { return outputs_; }

  // Before item i runs: binds its output to a remembered copy and returns true if there is one.
  bool reuse(size_t i, const ScheduleItem& item);
  // After item i ran on `buffers` (its output first): remembers its copy if it may be reused.
  void ran(size_t i, const ScheduleItem& item, const std::vector<std::shared_ptr<Buffer>>& buffers);

private:
  std::vector<bool> reusable_;  // per item
  std::unordered_set<const UOp*> outputs_;
};

// Forgets every remembered copy (tests; the buffers go back to their allocators).
void clear_layout_memo();
// How many copies were reused instead of run, since the process started.
int64_t layout_copies_reused();

} // namespace loupe
