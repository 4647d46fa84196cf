#include "bench/machine_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "support/host_cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOUPE_X86 1
#endif

namespace loupe::bench {

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Together {
  double wall = 0;            // from the release to the last thread finishing
  std::vector<double> cpu;    // each thread's CPU seconds in body
  // Every thread was on a CPU for most of the wall time: nothing else took our cores meanwhile.
  bool undisturbed(double share = 0.9) const {
    for (double c : cpu)
      if (c < share * wall) return false;
    return true;
  }
};

// Runs body(thread index) on `threads` threads released together.
Together run_together(int threads, const std::function<void(int)>& body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Together r;
  r.cpu.assign(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back([&, t] {
      ready++;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      double c0 = thread_cpu_seconds();
      body(t);
      r.cpu[t] = thread_cpu_seconds() - c0;
    });
  while (ready.load() < threads) std::this_thread::yield();
  auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& t : pool) t.join();
  r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

constexpr int kChains = 12;  // independent accumulators: FMA latency (4-5 cycles) x 2 ports < 12

#ifdef LOUPE_X86
__attribute__((target("avx2,fma"))) float fma_loop_avx2(int64_t iters, float seed) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; i++) acc[i] = _mm256_set1_ps(seed + 0.001f * static_cast<float>(i));
  const __m256 mul = _mm256_set1_ps(0.9999999f), add = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; it++) {
    acc[0] = _mm256_fmadd_ps(acc[0], mul, add);
    acc[1] = _mm256_fmadd_ps(acc[1], mul, add);
    acc[2] = _mm256_fmadd_ps(acc[2], mul, add);
    acc[3] = _mm256_fmadd_ps(acc[3], mul, add);
    acc[4] = _mm256_fmadd_ps(acc[4], mul, add);
    acc[5] = _mm256_fmadd_ps(acc[5], mul, add);
    acc[6] = _mm256_fmadd_ps(acc[6], mul, add);
    acc[7] = _mm256_fmadd_ps(acc[7], mul, add);
    acc[8] = _mm256_fmadd_ps(acc[8], mul, add);
    acc[9] = _mm256_fmadd_ps(acc[9], mul, add);
    acc[10] = _mm256_fmadd_ps(acc[10], mul, add);
    acc[11] = _mm256_fmadd_ps(acc[11], mul, add);
  }
  __m256 s = acc[0];
  for (int i = 1; i < kChains; i++) s = _mm256_add_ps(s, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  float r = 0;
  for (float l : lanes) r += l;
  return r;
}

// The same chains in 512-bit registers: the peak of a CPU whose kernels compile to AVX-512 (host_cpu()).
__attribute__((target("avx512f"))) float fma_loop_avx512(int64_t iters, float seed) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; i++) acc[i] = _mm512_set1_ps(seed + 0.001f * static_cast<float>(i));
  const __m512 mul = _mm512_set1_ps(0.9999999f), add = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; it++) {
    acc[0] = _mm512_fmadd_ps(acc[0], mul, add);
    acc[1] = _mm512_fmadd_ps(acc[1], mul, add);
    acc[2] = _mm512_fmadd_ps(acc[2], mul, add);
    acc[3] = _mm512_fmadd_ps(acc[3], mul, add);
    acc[4] = _mm512_fmadd_ps(acc[4], mul, add);
    acc[5] = _mm512_fmadd_ps(acc[5], mul, add);
    acc[6] = _mm512_fmadd_ps(acc[6], mul, add);
    acc[7] = _mm512_fmadd_ps(acc[7], mul, add);
    acc[8] = _mm512_fmadd_ps(acc[8], mul, add);
    acc[9] = _mm512_fmadd_ps(acc[9], mul, add);
    acc[10] = _mm512_fmadd_ps(acc[10], mul, add);
    acc[11] = _mm512_fmadd_ps(acc[11], mul, add);
  }
  __m512 s = acc[0];
  for (int i = 1; i < kChains; i++) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2"))) void copy_avx2(float* __restrict dst, const float* __restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 a = _mm256_load_ps(src + i), b = _mm256_load_ps(src + i + 8);
    __m256 c = _mm256_load_ps(src + i + 16), d = _mm256_load_ps(src + i + 24);
    _mm256_store_ps(dst + i, a);
    _mm256_store_ps(dst + i + 8, b);
    _mm256_store_ps(dst + i + 16, c);
    _mm256_store_ps(dst + i + 24, d);
  }
  for (; i < n; i++) dst[i] = src[i];
}
#endif

float fma_loop_scalar(int64_t iters, float seed) {
  float acc[kChains];
  for (int i = 0; i < kChains; i++) acc[i] = seed + 0.001f * static_cast<float>(i);
  volatile float vmul = 0.9999999f, vadd = 1e-7f;  // opaque: the loop cannot be folded
  const float mul = vmul, add = vadd;
  for (int64_t it = 0; it < iters; it++)
    for (int i = 0; i < kChains; i++) acc[i] = acc[i] * mul + add;
  float r = 0;
  for (float a : acc) r += a;
  return r;
}

void copy_scalar(float* __restrict dst, const float* __restrict src, int64_t n) { std::memcpy(dst, src, n * sizeof(float)); }

struct Isa {
  float (*fma)(int64_t, float);
  void (*copy)(float*, const float*, int64_t);
  int lanes;
  const char* name;
};

Isa pick_isa() {
#ifdef LOUPE_X86
  // what the kernels compile to (a forced AVX2 target measures AVX2's peak on an AVX-512 CPU)
  if (host_cpu().vector_isa == "avx512") return {fma_loop_avx512, copy_avx2, 16, "avx512f"};
  if (host_cpu().vector_isa == "avx2") return {fma_loop_avx2, copy_avx2, 8, "avx2+fma"};
#endif
  return {fma_loop_scalar, copy_scalar, 1, "scalar"};
}

std::atomic<float> sink{0};  // keeps the loops' results alive

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

} // namespace

PeakResult measure_peak_gflops(int threads, double seconds_per_trial, int trials) {
  threads = std::max(threads, 1);
  Isa isa = pick_isa();
  const double flops_per_iter = 2.0 * kChains * isa.lanes;
  // Calibrate on one thread: iterations for about seconds_per_trial.
  int64_t iters = 1 << 16;
  for (;;) {
    auto t0 = Clock::now();
    sink = sink + isa.fma(iters, 1.0f);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > 0.02 || iters > (int64_t(1) << 40)) {
      iters = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(iters) * seconds_per_trial / std::max(s, 1e-9)));
      break;
    }
    iters *= 4;
  }
  // The FMA units are private to a core, so each thread's rate over its own CPU time is what that core
  // can do, whatever else the machine runs meanwhile; the peak is their sum (over at most as many
  // threads as there are logical CPUs: more threads only take turns).
  int cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  double best = 0;
  for (int trial = 0; trial < std::max(trials, 1); trial++) {
    std::vector<float> results(threads);
    Together tg = run_together(threads, [&](int t) { results[t] = isa.fma(iters, 1.0f + static_cast<float>(t)); });
    for (float r : results) sink = sink + r;
    std::vector<double> rates;
    for (double c : tg.cpu) rates.push_back(flops_per_iter * static_cast<double>(iters) / std::max(c, 1e-9) / 1e9);
    std::sort(rates.rbegin(), rates.rend());
    double sum = 0;
    for (int i = 0; i < std::min(threads, cpus); i++) sum += rates[i];
    best = std::max(best, sum);
  }
  return {best, isa.name};
}

double measure_copy_bandwidth_gbs(int threads, int64_t bytes_per_array, int trials) {
  threads = std::max(threads, 1);
  Isa isa = pick_isa();
  int64_t n = bytes_per_array / static_cast<int64_t>(sizeof(float));
  n -= n % (int64_t(32) * threads);  // every slice a whole number of 32-float blocks (aligned loads)
  if (n <= 0) return 0;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  std::unique_ptr<float, FreeDeleter> src(static_cast<float*>(std::aligned_alloc(64, bytes)));
  std::unique_ptr<float, FreeDeleter> dst(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (!src || !dst) return 0;
  int64_t slice = n / threads;
  // first touch by the thread that will copy the slice
  run_together(threads, [&](int t) {
    for (int64_t i = t * slice; i < (t + 1) * slice; i++) src.get()[i] = static_cast<float>(i & 1023), dst.get()[i] = 0;
  });
  // Memory bandwidth is shared, so only trials during which every thread kept its core count (the
  // wall clock then measures all threads copying together); if the machine never left us alone, the
  // best of all trials.
  double best = 0, best_undisturbed = 0;
  for (int trial = 0; trial < std::max(trials, 1); trial++) {
    Together tg = run_together(threads, [&](int t) { isa.copy(dst.get() + t * slice, src.get() + t * slice, slice); });
    double rate = 2.0 * static_cast<double>(bytes) / tg.wall / 1e9;
    best = std::max(best, rate);
    if (tg.undisturbed()) best_undisturbed = std::max(best_undisturbed, rate);
  }
  if (best_undisturbed > 0) best = best_undisturbed;
  sink = sink + dst.get()[n / 2];
  return best;
}

} // namespace loupe::bench
