#include "runtime/profile/hotspot_sampler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support/error.h"

namespace loupe {

namespace {

// About 10,000 samples a second per thread either way: enough to rank the lines of a kernel that runs
// for milliseconds, little enough to cost about a percent (the note of issue 47 has the measurement).
constexpr int64_t kCyclePeriod = 250007;     // prime, so a loop's period cannot alias with it
constexpr int64_t kClockPeriodNs = 100000;
// 2^7 pages of ring per thread: 32,768 16-byte samples, 3 s of one thread's samples; a window that
// overflows it counts the samples lost.
constexpr size_t kRingPages = 128;

perf_event_attr attributes(uint32_t type, uint64_t config, int64_t period) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.disabled = 1;
  a.exclude_kernel = 1;  // the kernel's own code is not ours, and paranoid=2 forbids sampling it
  a.exclude_hv = 1;
  if (period > 0) {
    a.sample_period = static_cast<uint64_t>(period);
    a.sample_type = PERF_SAMPLE_IP;
  }
  return a;
}

int open_event(perf_event_attr a, int tid) {
  return static_cast<int>(syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string paranoid_level() {
  std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
  std::string level;
  f >> level;
  return level.empty() ? "unknown" : level;
}

std::string refusal(int error) {
  if (error == EACCES || error == EPERM)
    return cat("perf_event_open is not allowed for this user: kernel.perf_event_paranoid is ", paranoid_level(),
               " (sampling one's own threads needs 2 or less: `sudo sysctl kernel.perf_event_paranoid=2`)");
  if (error == ENOSYS) return "this kernel has no perf events (perf_event_open: not implemented)";
  return cat("perf_event_open failed: ", std::strerror(error));
}

// Copies n bytes at ring offset `at` (wrapping around the end of the ring).
void copy_ring(const char* ring, uint64_t ring_size, uint64_t at, void* out, size_t n) {
  const uint64_t start = at % ring_size, first = std::min<uint64_t>(n, ring_size - start);
  std::memcpy(out, ring + start, first);
  if (first < n) std::memcpy(static_cast<char*>(out) + first, ring, n - first);
}

} // namespace

// One thread's sampling event with its ring, and its counting events (-1 where the PMU has none).
struct HotspotSampler::ThreadEvents {
  int sampler = -1;
  void* ring = MAP_FAILED;
  size_t ring_bytes = 0;
  int counters[4] = {-1, -1, -1, -1};  // cycles, instructions, cache misses, branch misses

  ~ThreadEvents() {
    if (ring != MAP_FAILED) munmap(ring, ring_bytes);
    if (sampler >= 0) close(sampler);
    for (int fd : counters)
      if (fd >= 0) close(fd);
  }
  std::vector<int> fds() const {
    std::vector<int> out;
    if (sampler >= 0) out.push_back(sampler);
    for (int fd : counters)
      if (fd >= 0) out.push_back(fd);
    return out;
  }

  // The samples written since the last drain, appended to `out`.
  void drain(RawSamples& out) {
    if (ring == MAP_FAILED) return;
    auto* meta = static_cast<perf_event_mmap_page*>(ring);
    const long page = sysconf(_SC_PAGESIZE);
    const char* data = static_cast<const char*>(ring) + (meta->data_offset ? meta->data_offset : page);
    const uint64_t size = meta->data_size ? meta->data_size : ring_bytes - page;
    const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    for (uint64_t tail = meta->data_tail; tail < head;) {
      perf_event_header h;
      copy_ring(data, size, tail, &h, sizeof h);
      if (h.size < sizeof h) break;  // never written this way; stop rather than loop
      if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 8) {
        uint64_t ip;
        copy_ring(data, size, tail + sizeof h, &ip, 8);
        out.ips.push_back(ip);
      } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
        uint64_t id_and_lost[2];
        copy_ring(data, size, tail + sizeof h, id_and_lost, 16);
        out.lost += static_cast<int64_t>(id_and_lost[1]);
      }
      tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
  }
};

HotspotSampler::HotspotSampler() {
  // The hardware cycle counter where there is one; the software CPU clock (virtual machines) where not.
  const int self = static_cast<int>(gettid());
  int fd = open_event(attributes(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, kCyclePeriod), self);
  if (fd >= 0) {
    clock_ = "cycles", period_ = kCyclePeriod, hardware_ = true;
  } else {
    fd = open_event(attributes(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, kClockPeriodNs), self);
    if (fd < 0) throw Error("hot spots: " + refusal(errno));
    clock_ = "cpu-clock", period_ = kClockPeriodNs;
  }
  close(fd);
}

HotspotSampler::~HotspotSampler() = default;

HotspotSampler& HotspotSampler::instance() {
  static HotspotSampler* sampler = new HotspotSampler();  // (a throw leaves it unset: asked again next time)
  return *sampler;
}

std::optional<std::string> hotspot_sampling_unavailable() {
  try {
    HotspotSampler::instance();
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

HotspotSampler::ThreadEvents& HotspotSampler::events_of(int tid) {
  auto& slot = threads_[tid];
  if (slot) return *slot;
  slot = std::make_unique<ThreadEvents>();
  ThreadEvents& t = *slot;
  t.sampler = hardware_ ? open_event(attributes(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, period_), tid)
                        : open_event(attributes(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, period_), tid);
  if (t.sampler >= 0) {
    t.ring_bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE)) * (1 + kRingPages);
    t.ring = mmap(nullptr, t.ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, t.sampler, 0);
  }
  if (hardware_) {
    const uint64_t configs[4] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_MISSES,
                                 PERF_COUNT_HW_BRANCH_MISSES};
    for (int i = 0; i < 4; i++) t.counters[i] = open_event(attributes(PERF_TYPE_HARDWARE, configs[i], 0), tid);
  }
  return t;
}

void HotspotSampler::begin(const std::vector<int>& threads) {
  window_.lock();  // released by end(), on this thread
  active_.clear();
  if (threads_.size() > 64)  // threads that launched kernels once and may be gone: their rings go
    std::erase_if(threads_, [&](const auto& t) { return std::find(threads.begin(), threads.end(), t.first) == threads.end(); });
  for (int tid : threads) {
    ThreadEvents& t = events_of(tid);
    RawSamples stale;
    t.drain(stale);  // anything from before this window
    for (int fd : t.fds()) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
    active_.push_back(&t);
  }
}

RawSamples HotspotSampler::end() {
  RawSamples out;
  for (ThreadEvents* t : active_)
    for (int fd : t->fds()) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  for (ThreadEvents* t : active_) {
    t->drain(out);
    std::optional<int64_t>* slots[4] = {&out.counters.cycles, &out.counters.instructions, &out.counters.cache_misses,
                                        &out.counters.branch_misses};
    for (int i = 0; i < 4; i++) {
      uint64_t value = 0;
      if (t->counters[i] >= 0 && read(t->counters[i], &value, sizeof value) == sizeof value)
        *slots[i] = slots[i]->value_or(0) + static_cast<int64_t>(value);
    }
  }
  active_.clear();
  window_.unlock();
  return out;
}

} // namespace loupe
