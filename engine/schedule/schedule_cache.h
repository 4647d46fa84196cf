// The schedule cache: a tensor graph structurally equal to one scheduled before (the same ops, dtypes,
// args and provenance, over buffers of the same device, dtype and size in the same aliasing pattern)
// gets that schedule again, with the kernels' buffers bound to this graph's buffers and fresh ones for
// what the schedule makes. A training loop's step builds the same graph every time over new buffers:
// from the second step on, fusion, kernel ASTs and their views' simplification are skipped. SCACHE=0
// turns it off (tinygrad's name).
#pragma once
#include <cstdint>

#include "schedule/schedule.h"

namespace loupe {

// create_schedule(outputs, opts), through the cache (opts must answer the same for a device every time).
Schedule cached_schedule(const UOpList& outputs, const ScheduleOptions& opts = {});

struct ScheduleCacheStats {
  int64_t hits = 0, misses = 0, entries = 0;
};
ScheduleCacheStats schedule_cache_stats();
void clear_schedule_cache();

} // namespace loupe
