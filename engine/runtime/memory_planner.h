// The memory planner (tinygrad's memory_planner): buffers used only inside a run of kernels (a schedule,
// a TinyJit step) whose lifetimes (from the first kernel that touches one to the last) do not overlap
// share one allocation.
// Buffers are matched by device and size in bytes (best fit among the free allocations that are large
// enough); a kernel only sees a device pointer, so a larger allocation of another dtype serves as well.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace loupe {

class Buffer;

struct MemoryPlan {
  // For each planned buffer (by its index in the input list): the allocation it uses.
  std::vector<std::shared_ptr<Buffer>> assigned;
  int64_t unplanned_bytes = 0;  // every planned buffer allocated at once
  int64_t planned_bytes = 0;    // the shared allocations
  int64_t allocations = 0;      // how many shared allocations serve them
};

struct PlannedBuffer {
  std::shared_ptr<Buffer> buffer;  // its own allocation (reused as a shared one where it is chosen)
  int64_t first = 0, last = 0;     // the kernels (by index) that touch it first and last
};

// Plans `buffers`; a buffer's own allocation becomes the shared one of its group. NO_MEMORY_PLANNER=1
// (options().no_memory_planner) leaves every buffer its own.
MemoryPlan plan_memory(const std::vector<PlannedBuffer>& buffers);

// The peak of bytes alive at once over the kernels, given each buffer's lifetime and size.
int64_t peak_bytes(const std::vector<std::pair<int64_t, int64_t>>& lifetimes, const std::vector<int64_t>& sizes);

} // namespace loupe
