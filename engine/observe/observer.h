// The seam between what runs and what records it. The runtime reports buffer allocations, frees and
// copies; execution reports the kernels it compiles and runs, TinyJit calls and memory plans, and opens
// contexts around a kernel's planning. Neither knows who listens: the trace session attaches its writer
// as the process's observer while it records. With none attached nothing is built to be reported.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "observe/kernel_metrics.h"
#include "observe/kernel_samples.h"
#include "observe/records.h"

namespace loupe {

class ExecutionObserver {
public:
  virtual ~ExecutionObserver() = default;
  virtual int64_t now_ns() const = 0;  // the observer's clock, for the events' times
  virtual int64_t record_kernel(const KernelRecord& k) = 0;  // returns the kernel's id
  virtual void record_kernel_run(const KernelRun& run) = 0;
  virtual void record_alloc(const BufferAlloc& a) = 0;
  virtual void record_free(const BufferFree& f) = 0;
  virtual void record_copy(const BufferCopy& c) = 0;
  // What to keep of the buffers of a kernel about to run (`bytes` in all): their bytes, their digest
  // (input_digest), or nothing. Then the snapshot or the digest.
  enum class InputCapture { none, digest, bytes };
  virtual InputCapture input_capture(int64_t kernel_id, int64_t bytes) {
    (void)kernel_id, (void)bytes;
    return InputCapture::none;
  }
  virtual void record_inputs(const KernelInputs& inputs) { (void)inputs; }
  virtual void record_input_digest(int64_t kernel_id, int64_t bytes, const std::string& digest) {
    (void)kernel_id, (void)bytes, (void)digest;
  }
  virtual void record_tensor_call(const TensorCall& call) { (void)call; }
  // A run's hot-spot samples (HOTSPOTS), added to what earlier runs of the kernel recorded.
  virtual void record_kernel_samples(int64_t kernel_id, const KernelSamples& samples) { (void)kernel_id, (void)samples; }
  // A GPU kernel's disassembly as made where it ran, kept beside its samples.
  virtual void record_kernel_listing(int64_t kernel_id, const RecordedListing& listing) { (void)kernel_id, (void)listing; }
  // A GPU kernel's hardware metrics (GPU_METRICS), once per kernel.
  virtual void record_kernel_metrics(int64_t kernel_id, const KernelMetrics& metrics) { (void)kernel_id, (void)metrics; }
  // The nodes of the open context's last graph that became its schedule's kernels, in schedule order.
  virtual void record_schedule_roots(const std::vector<ScheduleRoot>& roots) { (void)roots; }
  // Contexts group what happens inside them ("schedule", "kernel", "noopt"); they nest.
  virtual int64_t begin_context(std::string_view kind, std::string_view name) = 0;
  virtual void end_context() = 0;  // the innermost open one
};

// The process's observer, or null. Attach before work starts and detach after it ends: a call in
// flight keeps using the observer it found.
ExecutionObserver* execution_observer();
void attach_execution_observer(ExecutionObserver* observer);  // null detaches

// A context of the observer for the lifetime of the scope (nothing without an observer).
class ObservedContext {
public:
  ObservedContext(std::string_view kind, std::string_view name);
  ~ObservedContext();
  ObservedContext(const ObservedContext&) = delete;
  ObservedContext& operator=(const ObservedContext&) = delete;
  int64_t id() const { return id_; }  // -1 without an observer

private:
  ExecutionObserver* observer_ = nullptr;
  int64_t id_ = -1;
};

} // namespace loupe
