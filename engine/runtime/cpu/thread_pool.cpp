#include "runtime/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <unistd.h>

#include "support/error.h"
#include "support/options.h"

namespace loupe {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
} // namespace

ChunkPlan plan_chunks(int64_t n, int threads, int64_t min_chunk, int per_thread) {
  if (n <= 0) return {0, 0};
  min_chunk = std::max<int64_t>(min_chunk, 1);
  int64_t most = std::max<int64_t>(1, static_cast<int64_t>(std::max(threads, 1)) * std::max(per_thread, 1));
  int64_t chunks = std::clamp<int64_t>(n / min_chunk, 1, most);
  int64_t size = (n + chunks - 1) / chunks;
  return {size, (n + size - 1) / size};
}

// One launch: chunks are claimed with `next` and counted with `done`; whoever finishes the last one
// wakes the caller. Workers hold the Job by shared_ptr, so one that wakes late finds no chunk left
// and never touches `fn` after the launch has returned.
struct ThreadPool::Job {
  int64_t n = 0, size = 0, chunks = 0;
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<int> participants{0};
  std::atomic<bool> stopped{false};  // the stop question said yes
  std::mutex mutex;
  std::condition_variable finished;
};

ThreadPool::ThreadPool(int threads) {
  std::mutex started_mutex;
  std::condition_variable started;
  for (int i = 1; i < threads; i++)
    workers_.emplace_back([&, this] {
      {
        std::lock_guard lock(started_mutex);
        worker_tids_.push_back(static_cast<int>(gettid()));
      }
      started.notify_one();
      worker_main();
    });
  std::unique_lock lock(started_mutex);  // (the locals outlive every worker's use of them)
  started.wait(lock, [&] { return worker_tids_.size() == workers_.size(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// No chunk not yet claimed will start: they count as done, so the caller's wait ends when the ones
// running now have finished.
void ThreadPool::cancel_rest(Job& job) {
  int64_t claimed = job.next.exchange(job.chunks, std::memory_order_relaxed);
  if (claimed >= job.chunks) return;
  int64_t skipped = job.chunks - claimed;
  if (job.done.fetch_add(skipped, std::memory_order_acq_rel) + skipped == job.chunks) {
    std::lock_guard lock(job.mutex);
    job.finished.notify_all();
  }
}

void ThreadPool::work_on(Job& job, const std::function<bool()>* stop) {
  for (bool first = true;; first = false) {
    if (stop && (*stop)()) {
      job.stopped = true;
      cancel_rest(job);
      return;
    }
    int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) return;
    if (first) job.participants++;
    int64_t start = c * job.size, end = std::min(job.n, start + job.size);
    (*job.fn)(start, end);
    if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.chunks) {
      std::lock_guard lock(job.mutex);  // the caller checks `done` under this lock: no lost wake-up
      job.finished.notify_all();
    }
  }
}

void ThreadPool::worker_main() {
  uint64_t seen = 0;
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    if (job) work_on(*job);
  }
}

int ThreadPool::parallel_for(int64_t n, ChunkPlan plan, const std::function<void(int64_t, int64_t)>& fn,
                             const std::function<bool()>& stop) {
  if (n <= 0) return 0;
  std::unique_lock launch(launch_mutex_, std::try_to_lock);
  if (workers_.empty() || plan.chunks <= 1 || !launch.owns_lock()) {
    if (!workers_.empty() && plan.chunks > 1) inline_launches_++;  // busy: correct, just not parallel
    if (!stop || plan.chunks <= 1 || plan.size <= 0) {
      fn(0, n);
      return 1;
    }
    for (int64_t start = 0; start < n && !stop(); start += plan.size) fn(start, std::min(n, start + plan.size));  // in order, stoppable
    return 1;
  }
  launches_++;
  auto job = std::make_shared<Job>();
  job->n = n;
  job->size = plan.size;
  job->chunks = (n + plan.size - 1) / plan.size;
  job->fn = &fn;
  {
    std::lock_guard lock(mutex_);
    job_ = job;
    generation_++;
  }
  wake_.notify_all();
  work_on(*job, stop ? &stop : nullptr);
  // Spin briefly (the others usually finish their last chunk about now), then sleep.
  for (int spin = 0; spin < 1000 && job->done.load(std::memory_order_acquire) < job->chunks; spin++) cpu_relax();
  {
    // With a stop question, it is asked while the others finish too (every 20 ms): a chunk running a long
    // compile stops when the question raised Ctrl-C (support/interrupt_epoch.h), but only if someone asks.
    auto all_done = [&] { return job->done.load(std::memory_order_acquire) == job->chunks; };
    std::unique_lock lock(job->mutex);
    for (bool asking = stop && !job->stopped; !all_done();) {
      if (!asking) {
        job->finished.wait(lock, all_done);
        break;
      }
      if (job->finished.wait_for(lock, std::chrono::milliseconds(20), all_done)) break;
      lock.unlock();
      if (stop()) {
        job->stopped = true;
        cancel_rest(*job);
        asking = false;
      }
      lock.lock();
    }
  }
  std::lock_guard lock(mutex_);
  if (job_ == job) job_.reset();
  return job->participants.load();
}

std::function<bool()> interrupt_stop(std::exception_ptr& caught) {
  return [&caught] {
    try {
      check_interrupt();
      return false;
    } catch (...) {
      caught = std::current_exception();
      return true;
    }
  };
}

int cpu_thread_count() {
  int t = options().threads;
  if (t < 0) throw Error(cat("THREADS must be 0 (every core) or a positive number of threads, got ", t));
  if (t == 0) t = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(t, 1, 1024);
}

std::shared_ptr<ThreadPool> cpu_thread_pool() {
  static std::mutex mutex;
  static std::shared_ptr<ThreadPool> pool;
  int want = cpu_thread_count();
  std::lock_guard lock(mutex);
  if (!pool || pool->threads() != want) pool = std::make_shared<ThreadPool>(want);  // in-flight launches keep the old one
  return pool;
}

} // namespace loupe
