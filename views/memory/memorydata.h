// The Memory panel's data, built once from a trace's profile events: every device buffer's life (its
// allocation to its free, or the trace's end), stacked per device in allocation order so that a
// buffer's height is its size and the top of the stack is the bytes in use; the kernel runs that wrote
// and read each buffer; the memory planner's sharing in TinyJit captures; and the captures and replays
// as spans of time. Read-only after build().
#pragma once
#include <optional>
#include <QString>

#include <memory>
#include <utility>
#include <vector>

#include "profile/profiledata.h"
#include "trace/trace_reader.h"

namespace loupe::views {

// A kernel run that touched buffers.
struct MemoryRun {
  qint64 eventId = 0;
  qint64 kernelId = -1;  // the trace's kernel id (-1: unknown)
  QString name, device;
  qint64 startNs = 0, durationNs = 0;
};

struct MemoryBuffer {
  qint64 id = -1;  // the runtime's buffer id
  QString device, what;  // what: "1024 x float"
  qint64 bytes = 0;
  qint64 startNs = 0, endNs = 0;
  bool freed = false;  // false: still allocated when the trace ends
  int lane = 0;        // index into MemoryData::lanes()
  std::vector<int> writers, readers;  // MemoryData::runs() indices, in time order
  // Its place in the device's stack: (from this time, offset in bytes), the first at startNs. A buffer
  // moves down when one allocated before it is freed.
  std::vector<std::pair<qint64, qint64>> offsets;
  // The memory planner: a buffer used only inside a TinyJit step names the allocation it moved to, and
  // between which kernels of the step it lives; a shared allocation (of a step or of one schedule)
  // lists the buffers it serves, with their kernel ranges.
  qint64 sharedAllocation = -1;
  int firstKernel = -1, lastKernel = -1;
  struct Served {
    qint64 buffer;  // its id (a schedule's planned buffers never get an allocation of their own)
    int firstKernel, lastKernel;
    bool inSchedule;  // shared within one schedule, rather than across a captured step
  };
  std::vector<Served> serves;

  qint64 offsetAt(qint64 t) const;  // its offset at time t (which must lie in its life)
};

// One device: its buffers and the bytes in use over time.
struct MemoryLane {
  QString device;
  std::vector<int> buffers;                      // MemoryData::buffers() indices, by allocation
  std::vector<std::pair<qint64, qint64>> inUse;  // (from this time, bytes allocated)
  qint64 peakBytes = 0, peakNs = 0;
  // A DISK device's lane: its buffers are mappings of one file (each from its first byte), not memory of their own.
  bool isFile() const { return device.startsWith(QLatin1String("DISK:")); }
};

class MemoryData {
public:
  static std::shared_ptr<MemoryData> build(const std::vector<loupe::TraceEvent>& events);
  // Times are shown from this instant (the Profile's zero, so both panels name a moment alike); the
  // first event's time until set.
  void setOriginNs(qint64 origin) { origin_ = origin; }
  qint64 originNs() const { return origin_.value_or(start_); }

  const std::vector<MemoryBuffer>& buffers() const { return buffers_; }
  const std::vector<MemoryRun>& runs() const { return runs_; }
  const std::vector<MemoryLane>& lanes() const { return lanes_; }
  const std::vector<JitCall>& spans() const { return spans_; }
  qint64 startNs() const { return start_; }
  qint64 endNs() const { return end_; }
  bool empty() const { return buffers_.empty(); }

  int bufferIndex(qint64 bufferId) const;  // -1 when the trace never saw it allocated
  // The buffer of a lane drawn at time t and height `bytes` above the lane's floor, or -1.
  int bufferAt(int lane, qint64 t, double bytes) const;
  qint64 inUseAt(int lane, qint64 t) const;

private:
  std::vector<MemoryBuffer> buffers_;
  std::vector<MemoryRun> runs_;
  std::vector<MemoryLane> lanes_;
  std::vector<JitCall> spans_;
  std::vector<std::pair<qint64, int>> byId_;  // sorted (buffer id, index)
  std::optional<qint64> origin_;
  qint64 start_ = 0, end_ = 0;
};

} // namespace loupe::views
