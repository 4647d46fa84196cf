// Where a CUDA kernel spends its time (HOTSPOTS=1 on a CUDA device): CUPTI's PC sampling. While a sampled
// launch runs, every SM samples one of its warps every 2^k cycles: the program counter (an offset into the
// kernel's function, as nvdisasm numbers its SASS) and why the warp was stalled there. Launches are
// serialized and sampled one at a time (start/stop around each); the samples come back as KernelSamples,
// clock "pc-sampling", named by function and offset like a CPU kernel's, with the stall reasons per site.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "observe/kernel_samples.h"
#include "runtime/cuda/cupti_api.h"

namespace loupe {

// CUPTI's stall reason names shortened: "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard".
std::string short_stall_reason(const std::string& cupti_name);
// Whether a name CUPTI lists among its stall reasons is one to collect: the reasons proper, each once —
// not their "_not_issued" subsets nor counters such as smsp__pcsamp_sample_count — so that a PC's
// reasons add up to its samples.
bool collected_stall_reason(const std::string& cupti_name);

// Adds one buffer of CUPTI's parsed PC records to `out` (in_code and stalls by function and offset);
// `reasons` names CUPTI's stall reason indices. Records of reasons not named are counted but not named.
void add_pc_records(const cupti::PCSamplingData& data, const std::map<uint32_t, std::string>& reasons, KernelSamples& out);

class PcSampler {
public:
  // Enables PC sampling on `ctx`; loupe::Error with CUPTI's reason when this machine refuses it.
  explicit PcSampler(cuda::CUcontext ctx);
  ~PcSampler();
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  // Samples `launch`, which launches one kernel and waits for it; nothing when CUPTI's hardware buffer
  // overflowed (then CUPTI gives no PC data for it).
  std::optional<KernelSamples> sample(const std::function<void()>& launch);
  // Disables sampling until the next sample(): CUPTI's counters (kernel_counters.h) cannot run beside it.
  void pause();

  int64_t period_cycles() const { return int64_t(1) << period_exponent_; }

private:
  void enable();
  void configure();
  bool drain(KernelSamples& out);  // false: the hardware buffer overflowed
  void keep_names(const cupti::PCSamplingData& data);

  const cupti::Api& api_;
  cuda::CUcontext ctx_;
  bool enabled_ = false;
  uint32_t period_exponent_ = 10;
  std::map<uint32_t, std::string> reasons_;  // CUPTI's index -> short name, of the reasons collected
  std::vector<uint32_t> collected_;          // their indices
  // two parsed-record buffers: the one CUPTI keeps (configuration) and the one GetData fills
  struct RecordBuffer {
    cupti::PCSamplingData data{};
    std::vector<cupti::PCSamplingPCData> pcs;
    std::vector<cupti::PCSamplingStallReason> stalls;
    void allocate(size_t num_pcs, size_t num_reasons);
  };
  RecordBuffer kept_, fetched_;
  // the function names CUPTI allocated for the records: freed once sampling ends, as CUPTI asks (they may be
  // shared between records and calls)
  std::set<char*> names_;
};

} // namespace loupe
