#include "runtime/cuda/kernel_counters.h"

#include <exception>
#include <memory>
#include <optional>

#include "support/error.h"

namespace loupe {

using namespace cupti;

namespace {

template <typename Params> Params sized(size_t size) {
  Params p{};
  p.structSize = size;
  return p;
}

} // namespace

const std::vector<CuptiMetric>& cupti_metrics() {
  // Nsight Compute's names for the same figures (its "Achieved Occupancy", "Issue Slots Busy", "DRAM
  // Throughput", "L2 Hit Rate", "Duration"); each costs about one pass
  static const std::vector<CuptiMetric> metrics = {
      {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"},
      {"issue_slots_busy_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active"},
      {"dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"dram_bytes", "dram__bytes.sum"},
      {"l2_hit_rate_pct", "lts__t_sector_hit_rate.pct"},
      {"tensor_pipe_active_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
      {"gpu_time_ns", "gpu__time_duration.sum"},
  };
  return metrics;
}

namespace {

ProfilerHostObject* host_for(const Api& api, const std::string& chip, const uint8_t* availability) {
  auto init = sized<ProfilerHostInitializeParams>(LOUPE_CUPTI_SIZE(ProfilerHostInitializeParams, pHostObject));
  init.profilerType = PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = availability;
  check(api.ProfilerHostInitialize(&init), cat("cuptiProfilerHostInitialize for chip ", chip));
  return init.pHostObject;
}

void release(const Api& api, ProfilerHostObject* host) {
  auto p = sized<ProfilerHostObjectParams>(LOUPE_CUPTI_SIZE(ProfilerHostObjectParams, pHostObject));
  p.pHostObject = host;
  api.ProfilerHostDeinitialize(&p);
}

CUptiResult add_metrics(const Api& api, ProfilerHostObject* host, std::vector<const char*> names) {
  auto add = sized<ProfilerHostConfigAddMetricsParams>(LOUPE_CUPTI_SIZE(ProfilerHostConfigAddMetricsParams, numMetrics));
  add.pHostObject = host;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  return api.ProfilerHostConfigAddMetrics(&add);
}

} // namespace

CounterHost::CounterHost(const std::string& chip, const std::vector<uint8_t>& availability)
    : api_(require_api()), availability_(availability) {
  const uint8_t* image_of_availability = availability_.empty() ? nullptr : availability_.data();
  // each metric is tried in a host object of its own: once one is refused, CUPTI refuses every later one
  // added to the same object (CUPTI 13: CUPTI_ERROR_UNKNOWN), so one the chip lacks would lose the rest
  for (const CuptiMetric& m : cupti_metrics()) {
    ProfilerHostObject* probe = host_for(api_, chip, image_of_availability);
    CUptiResult rc = add_metrics(api_, probe, {m.cupti_name});
    release(api_, probe);
    if (rc == CUPTI_SUCCESS) config_.accepted.push_back(m);
    else config_.refused.push_back(cat(m.key, " (", m.cupti_name, "): ", result_name(rc)));
  }
  host_ = host_for(api_, chip, image_of_availability);
  if (config_.accepted.empty()) return;
  std::vector<const char*> names;
  for (const CuptiMetric& m : config_.accepted) names.push_back(m.cupti_name);
  check(add_metrics(api_, host_, names), "cuptiProfilerHostConfigAddMetrics");
  auto size = sized<ProfilerHostGetConfigImageSizeParams>(LOUPE_CUPTI_SIZE(ProfilerHostGetConfigImageSizeParams, configImageSize));
  size.pHostObject = host_;
  check(api_.ProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  config_.image.resize(size.configImageSize);
  auto image = sized<ProfilerHostGetConfigImageParams>(LOUPE_CUPTI_SIZE(ProfilerHostGetConfigImageParams, pConfigImage));
  image.pHostObject = host_;
  image.configImageSize = config_.image.size();
  image.pConfigImage = config_.image.data();
  check(api_.ProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");
  auto passes = sized<ProfilerHostGetNumOfPassesParams>(LOUPE_CUPTI_SIZE(ProfilerHostGetNumOfPassesParams, numOfPasses));
  passes.configImageSize = config_.image.size();
  passes.pConfigImage = config_.image.data();
  check(api_.ProfilerHostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses");
  config_.passes = passes.numOfPasses;
  if (config_.image.empty() || config_.passes == 0)
    throw Error(cat("CUPTI: the profiler host made an empty configuration for chip ", chip, " (", names.size(), " metrics)"));
}

CounterHost::~CounterHost() {
  if (host_) release(api_, host_);
}

std::vector<double> CounterHost::evaluate(const std::vector<uint8_t>& counter_data, size_t range) const {
  std::vector<const char*> names;
  for (const CuptiMetric& m : config_.accepted) names.push_back(m.cupti_name);
  std::vector<double> values(names.size(), 0.0);
  auto p = sized<ProfilerHostEvaluateToGpuValuesParams>(LOUPE_CUPTI_SIZE(ProfilerHostEvaluateToGpuValuesParams, pMetricValues));
  p.pHostObject = host_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(api_.ProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

void add_launch_metrics(const cuda::Driver& drv, cuda::CUfunction fn, cuda::CUdevice dev, int64_t block_threads, int64_t dynamic_shared,
                        KernelMetrics& out) {
  auto attribute = [&](int which, const char* key, int64_t plus = 0) {
    int v = 0;
    if (drv.FuncGetAttribute(&v, which, fn) != cuda::CUDA_SUCCESS) out.unavailable.push_back(cat(key, ": cuFuncGetAttribute failed"));
    else out.values.emplace_back(key, static_cast<double>(v + plus));
  };
  attribute(cuda::CU_FUNC_ATTRIBUTE_NUM_REGS, "registers_per_thread");
  attribute(cuda::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local_bytes_per_thread");
  attribute(cuda::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "shared_bytes_per_block", dynamic_shared);  // static and dynamic
  int blocks = 0, threads_per_sm = 0;
  if (block_threads > 0 && drv.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, static_cast<int>(block_threads), size_t(dynamic_shared)) == cuda::CUDA_SUCCESS &&
      drv.DeviceGetAttribute(&threads_per_sm, cuda::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev) == cuda::CUDA_SUCCESS &&
      threads_per_sm > 0) {
    const int64_t warps_per_block = (block_threads + 31) / 32;
    out.values.emplace_back("theoretical_occupancy_pct", 100.0 * static_cast<double>(blocks * warps_per_block) / (threads_per_sm / 32));
  } else {
    out.unavailable.push_back("theoretical_occupancy_pct: cuOccupancyMaxActiveBlocksPerMultiprocessor failed");
  }
}

CounterProfiler::CounterProfiler(cuda::CUcontext ctx, int ordinal) : api_(require_api()), ctx_(ctx) {
  auto init = sized<ProfilerInitializeParams>(LOUPE_CUPTI_SIZE(ProfilerInitializeParams, pPriv));
  check(api_.ProfilerInitialize(&init), "cuptiProfilerInitialize");
  auto chip = sized<DeviceGetChipNameParams>(LOUPE_CUPTI_SIZE(DeviceGetChipNameParams, pChipName));
  chip.deviceIndex = static_cast<size_t>(ordinal);
  check(api_.DeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  chip_ = chip.pChipName ? chip.pChipName : "";
  auto avail = sized<ProfilerGetCounterAvailabilityParams>(LOUPE_CUPTI_SIZE(ProfilerGetCounterAvailabilityParams, pCounterAvailabilityImage));
  avail.ctx = ctx_;
  check(api_.ProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability (size)");
  std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  check(api_.ProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
  host_ = std::make_unique<CounterHost>(chip_, availability);
}

// (cuptiProfilerDeInitialize is left to CUPTI's exit: one profiler serves the process)
CounterProfiler::~CounterProfiler() = default;

KernelMetrics CounterProfiler::measure(const std::function<void()>& launch) {
  KernelMetrics out;
  const CounterConfig& config = host_->config();
  out.unavailable = config.refused;
  if (config.accepted.empty()) {
    launch();
    return out;
  }
  // the launch runs exactly once whatever CUPTI does: its result is the program's
  bool launched = false;
  std::exception_ptr launch_failed;
  auto run_launch = [&] {
    launched = true;
    try {
      launch();
    } catch (...) {
      launch_failed = std::current_exception();
    }
  };
  RangeProfilerObject* profiler = nullptr;
  auto disable = [&] {
    if (!profiler) return;
    auto d = sized<RangeProfilerObjectParams>(LOUPE_CUPTI_SIZE(RangeProfilerObjectParams, pRangeProfilerObject));
    d.pRangeProfilerObject = profiler;
    api_.RangeProfilerDisable(&d);
    profiler = nullptr;
  };
  try {
    auto enable = sized<RangeProfilerEnableParams>(LOUPE_CUPTI_SIZE(RangeProfilerEnableParams, pRangeProfilerObject));
    enable.ctx = ctx_;
    check(api_.RangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
    profiler = enable.pRangeProfilerObject;
    std::vector<const char*> names;
    for (const CuptiMetric& m : config.accepted) names.push_back(m.cupti_name);
    auto size = sized<RangeProfilerGetCounterDataSizeParams>(LOUPE_CUPTI_SIZE(RangeProfilerGetCounterDataSizeParams, counterDataSize));
    size.pRangeProfilerObject = profiler;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    check(api_.RangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
    std::vector<uint8_t> counter_data(size.counterDataSize, 0);
    auto image = sized<RangeProfilerCounterDataImageInitializeParams>(
        LOUPE_CUPTI_SIZE(RangeProfilerCounterDataImageInitializeParams, pCounterData));
    image.pRangeProfilerObject = profiler;
    image.counterDataSize = counter_data.size();
    image.pCounterData = counter_data.data();
    check(api_.RangeProfilerCounterDataImageInitialize(&image), "cuptiRangeProfilerCounterDataImageInitialize");
    auto set = sized<RangeProfilerSetConfigParams>(LOUPE_CUPTI_SIZE(RangeProfilerSetConfigParams, targetNestingLevel));
    set.pRangeProfilerObject = profiler;
    set.configSize = config.image.size();
    set.pConfig = config.image.data();
    set.counterDataImageSize = counter_data.size();
    set.pCounterDataImage = counter_data.data();
    set.range = PROFILER_AUTO_RANGE;         // the launch is the range
    set.replayMode = PROFILER_KERNEL_REPLAY;  // CUPTI replays it per pass, saving and restoring its memory
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(api_.RangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
    auto start = sized<RangeProfilerObjectParams>(LOUPE_CUPTI_SIZE(RangeProfilerObjectParams, pRangeProfilerObject));
    start.pRangeProfilerObject = profiler;
    check(api_.RangeProfilerStart(&start), "cuptiRangeProfilerStart");
    run_launch();
    if (launch_failed) {
      auto stop = sized<RangeProfilerStopParams>(LOUPE_CUPTI_SIZE(RangeProfilerStopParams, isAllPassSubmitted));
      stop.pRangeProfilerObject = profiler;
      api_.RangeProfilerStop(&stop);
      disable();
      std::rethrow_exception(launch_failed);  // as it was (the handler below passes it on)
    }
    auto stop = sized<RangeProfilerStopParams>(LOUPE_CUPTI_SIZE(RangeProfilerStopParams, isAllPassSubmitted));
    stop.pRangeProfilerObject = profiler;
    check(api_.RangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    // with kernel replay every pass ran inside the one launch; were it not so, launching again would run
    // the kernel twice, so the metrics are reported missing instead
    if (!stop.isAllPassSubmitted) throw Error(cat("CUPTI: kernel replay left passes unsubmitted (", config.passes, " needed)"));
    auto decode = sized<RangeProfilerDecodeDataParams>(LOUPE_CUPTI_SIZE(RangeProfilerDecodeDataParams, numOfRangeDropped));
    decode.pRangeProfilerObject = profiler;
    check(api_.RangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    if (decode.numOfRangeDropped > 0) throw Error(cat("CUPTI: the range profiler dropped the launch's range (", decode.numOfRangeDropped, " dropped)"));
    auto info = sized<RangeProfilerGetCounterDataInfoParams>(LOUPE_CUPTI_SIZE(RangeProfilerGetCounterDataInfoParams, numTotalRanges));
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    check(api_.RangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    if (info.numTotalRanges == 0) throw Error("CUPTI: the range profiler recorded no range for the launch");
    std::vector<double> values = host_->evaluate(counter_data, 0);
    for (size_t i = 0; i < values.size(); i++) out.values.emplace_back(config.accepted[i].key, values[i]);
    out.source = cat("CUPTI range profiler on ", chip_, ", ", config.passes, " pass", config.passes == 1 ? "" : "es", " (kernel replay)");
  } catch (const Error& e) {
    disable();
    if (launch_failed) std::rethrow_exception(launch_failed);
    out.unavailable.insert(out.unavailable.begin(), e.what());
    if (!launched) launch();
    return out;
  }
  disable();
  return out;
}

} // namespace loupe
