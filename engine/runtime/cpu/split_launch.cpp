#include "runtime/cpu/split_launch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "runtime/cpu/thread_pool.h"
#include "support/error.h"

namespace loupe {

namespace {
int64_t untimed_min_chunk(const RenderedKernel& k) {
  if (!k.split_loop || k.global[0] <= 0) return 1;
  int64_t largest = 1;
  for (const BufferParam& b : k.buffers) largest = std::max<int64_t>(largest, b.dtype.ptr_size);
  int64_t per_iteration = std::max<int64_t>(1, largest / k.global[0]);
  return (SplitLaunch::kMinChunkElements + per_iteration - 1) / per_iteration;
}
} // namespace

double SplitLaunch::launch(const RenderedKernel& k, int64_t global0, const std::function<void(int64_t, int64_t)>& chunk) {
  const int64_t end = k.split_loop ? global0 : 0;
  if (k.split_loop && (end < 0 || end > k.global[0]))
    throw Error(cat("kernel ", k.name, ": outer loop range [0, ", end, ") exceeds its extent ", k.global[0]));
  auto t0 = std::chrono::steady_clock::now();  // the whole launch: pool, chunking, every thread
  if (end <= 0) {  // not split (or an empty range): one call
    chunk(0, end);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::shared_ptr<ThreadPool> pool = cpu_thread_pool();
  double per_iteration = seconds_per_iteration_.load(std::memory_order_relaxed);
  int64_t min_chunk = per_iteration > 0 ? static_cast<int64_t>(std::ceil(kMinChunkSeconds / per_iteration)) : untimed_min_chunk(k);
  // enough chunks that none runs much past kMaxChunkSeconds: Ctrl-C is looked at between them
  int per_thread = kUntimedChunksPerThread;
  if (per_iteration > 0) {
    double cpu_seconds = per_iteration * static_cast<double>(end) / pool->threads();
    per_thread = static_cast<int>(std::clamp(std::ceil(cpu_seconds / kMaxChunkSeconds), 4.0, 65536.0));
  }
  std::exception_ptr interrupted;
  int ran_on = pool->parallel_for(end, plan_chunks(end, pool->threads(), min_chunk, per_thread), chunk, interrupt_stop(interrupted));
  if (interrupted) std::rethrow_exception(interrupted);  // the kernel's output is incomplete: nothing is timed
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seconds_per_iteration_.store(seconds * std::max(ran_on, 1) / static_cast<double>(end), std::memory_order_relaxed);
  return seconds;
}

} // namespace loupe
