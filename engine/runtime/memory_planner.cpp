#include "runtime/memory_planner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <span>

#include "runtime/buffer.h"
#include "runtime/device.h"
#include "support/options.h"

namespace loupe {

MemoryPlan plan_memory(const std::vector<PlannedBuffer>& buffers) {
  MemoryPlan plan;
  plan.assigned.resize(buffers.size());
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // in order of first use; ties: the larger first, so it becomes the allocation the smaller ones reuse
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
    return buffers[a].buffer->nbytes() > buffers[b].buffer->nbytes();
  });
  struct Slot {
    std::shared_ptr<Buffer> buffer;
    int64_t free_after;  // the last kernel of its current holder
  };
  std::vector<Slot> slots;
  const bool no_sharing = options().no_memory_planner;
  for (size_t i : order) {
    const PlannedBuffer& p = buffers[i];
    plan.unplanned_bytes += static_cast<int64_t>(p.buffer->nbytes());
    Slot* best = nullptr;
    for (Slot& s : no_sharing ? std::span<Slot>() : std::span<Slot>(slots)) {
      bool fits = s.free_after < p.first && &s.buffer->device() == &p.buffer->device() && s.buffer->nbytes() >= p.buffer->nbytes();
      if (fits && (!best || s.buffer->nbytes() < best->buffer->nbytes())) best = &s;
    }
    if (!best) {
      slots.push_back({p.buffer, p.last});
      plan.assigned[i] = p.buffer;
      plan.planned_bytes += static_cast<int64_t>(p.buffer->nbytes());
      continue;
    }
    best->free_after = p.last;
    plan.assigned[i] = best->buffer;
  }
  plan.allocations = static_cast<int64_t>(slots.size());
  return plan;
}

int64_t peak_bytes(const std::vector<std::pair<int64_t, int64_t>>& lifetimes, const std::vector<int64_t>& sizes) {
  std::map<int64_t, int64_t> delta;  // +size at first use, -size after last use
  for (size_t i = 0; i < lifetimes.size(); i++) {
    delta[lifetimes[i].first] += sizes[i];
    delta[lifetimes[i].second + 1] -= sizes[i];
  }
  int64_t now = 0, peak = 0;
  for (auto& [at, d] : delta) {
    now += d;
    peak = std::max(peak, now);
  }
  return peak;
}

} // namespace loupe
