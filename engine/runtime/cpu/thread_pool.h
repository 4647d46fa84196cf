// A persistent pool of worker threads for the CPU device: a kernel whose outer loop is split
// (RenderedKernel::split_loop) runs as chunks [start, end) of that loop spread over the pool, the
// calling thread working alongside the workers. The launch blocks until every chunk has run, so the
// time measured around it is the whole launch.
#pragma once
#include <atomic>
#include <condition_variable>
#include <exception>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loupe {

// How a range [0, n) is cut: `chunks` pieces of `size` iterations (the last one may be shorter).
struct ChunkPlan {
  int64_t size = 0;
  int64_t chunks = 0;
};

// At most `per_thread` chunks per thread (so a slow thread can be caught up by the others), never
// smaller than `min_chunk` iterations (so a tiny range stays in one piece and on one thread).
ChunkPlan plan_chunks(int64_t n, int threads, int64_t min_chunk, int per_thread = 4);

class ThreadPool {
public:
  // `threads` counts the caller too: a pool of 1 has no workers and runs everything inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // The kernel's thread ids of the workers (not the caller's): whom a profiler samples during a launch.
  std::vector<int> worker_thread_ids() const { return worker_tids_; }

  // Calls fn(start, end) for the chunks of `plan` covering [0, n), on the pool's threads, and returns
  // when all have finished. Chunks are disjoint and handed out in order. If the pool is already busy
  // (a launch from another thread, or from inside a chunk) the whole range runs on the caller, in order.
  // `fn` must not throw. `stop`, if given, is asked on the calling thread before each chunk it takes:
  // true cancels every chunk not yet started (those running finish) and the call returns early.
  // Returns how many threads ran at least one chunk.
  int parallel_for(int64_t n, ChunkPlan plan, const std::function<void(int64_t, int64_t)>& fn,
                   const std::function<bool()>& stop = nullptr);

  int64_t launches() const { return launches_; }           // parallel_for calls that used the workers
  int64_t inline_launches() const { return inline_launches_; } // that ran whole on the caller

private:
  struct Job;
  void worker_main();
  static void work_on(Job& job, const std::function<bool()>* stop = nullptr);
  static void cancel_rest(Job& job);

  std::vector<std::thread> workers_;
  std::vector<int> worker_tids_;    // filled before the constructor returns
  std::mutex mutex_;                // guards job_, generation_, stop_
  std::condition_variable wake_;
  std::shared_ptr<Job> job_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::mutex launch_mutex_;         // one launch at a time uses the workers
  std::atomic<int64_t> launches_{0}, inline_launches_{0};
};

// A stop question for parallel_for: whether Ctrl-C is pending (check_interrupt()); what that threw is
// kept in `caught`, for the caller to rethrow once the launch has returned.
std::function<bool()> interrupt_stop(std::exception_ptr& caught);

// The number of threads a CPU launch uses: Options::threads (THREADS), 0 meaning every core.
int cpu_thread_count();

// The process-wide pool, sized by cpu_thread_count() (re-created when that changes).
std::shared_ptr<ThreadPool> cpu_thread_pool();

} // namespace loupe
