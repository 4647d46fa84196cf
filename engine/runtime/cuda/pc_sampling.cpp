#include "runtime/cuda/pc_sampling.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "support/error.h"
#include "support/options.h"

namespace loupe {

using namespace cupti;

namespace {

constexpr size_t kRecordsPerFetch = 4096;  // PCs per GetData call; a kernel with more is fetched in turns

template <typename Params> Params params_for(CUcontext ctx, size_t size) {
  Params p{};
  p.size = size;
  p.ctx = ctx;
  return p;
}

} // namespace

bool collected_stall_reason(const std::string& name) {
  const bool subset = name.size() >= 11 && name.compare(name.size() - 11, 11, "_not_issued") == 0;
  return !subset && (name.find("stalled_") != std::string::npos || name.find("warp_stall_") != std::string::npos);
}

std::string short_stall_reason(const std::string& name) {
  for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_warp_stall_", "smsp__pcsamp_"})
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  return name;
}

void add_pc_records(const PCSamplingData& data, const std::map<uint32_t, std::string>& reasons, KernelSamples& out) {
  for (size_t i = 0; i < data.totalNumPcs; i++) {
    const PCSamplingPCData& pc = data.pPcData[i];
    const SampleSite site{pc.functionName ? pc.functionName : "?", static_cast<int64_t>(pc.pcOffset)};
    int64_t samples = 0;
    for (size_t r = 0; r < pc.stallReasonCount; r++) {
      const PCSamplingStallReason& s = pc.stallReason[r];
      if (s.samples == 0) continue;
      samples += s.samples;
      auto name = reasons.find(s.pcSamplingStallReasonIndex);
      out.stalls[site][name == reasons.end() ? cat("reason ", s.pcSamplingStallReasonIndex) : name->second] += s.samples;
    }
    if (samples > 0) out.in_code[site] += samples;
  }
}

void PcSampler::RecordBuffer::allocate(size_t num_pcs, size_t num_reasons) {
  pcs.assign(num_pcs, PCSamplingPCData{});
  stalls.assign(num_pcs * num_reasons, PCSamplingStallReason{});
  for (size_t i = 0; i < num_pcs; i++) {
    pcs[i].size = sizeof(PCSamplingPCData);
    pcs[i].stallReasonCount = num_reasons;
    pcs[i].stallReason = stalls.data() + i * num_reasons;
  }
  data = PCSamplingData{};
  data.size = sizeof(PCSamplingData);
  data.collectNumPcs = num_pcs;
  data.pPcData = pcs.data();
}

PcSampler::PcSampler(CUcontext ctx) : api_(require_api()), ctx_(ctx) {
  if (const char* p = std::getenv("LOUPE_PC_SAMPLING_PERIOD")) {  // 2^p cycles between samples
    int v = std::atoi(p);
    if (v < 5 || v > 31) throw Error(cat("LOUPE_PC_SAMPLING_PERIOD=", p, ": CUPTI samples every 2^5 to 2^31 cycles; give 5..31"));
    period_exponent_ = static_cast<uint32_t>(v);
  }
  enable();
}

PcSampler::~PcSampler() {
  pause();
  keep_names(kept_.data);  // what the disable copied there
  for (char* n : names_) std::free(n);
}

void PcSampler::keep_names(const PCSamplingData& data) {
  for (size_t i = 0; i < data.totalNumPcs && i < data.collectNumPcs; i++)
    if (data.pPcData[i].functionName) names_.insert(data.pPcData[i].functionName);
}

void PcSampler::enable() {
  auto p = params_for<PCSamplingContextParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingContextParams, ctx));
  check(api_.PCSamplingEnable(&p), "cuptiPCSamplingEnable");
  enabled_ = true;
  if (reasons_.empty()) {
    size_t count = 0;
    auto n = params_for<PCSamplingGetNumStallReasonsParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingGetNumStallReasonsParams, numStallReasons));
    n.numStallReasons = &count;
    check(api_.PCSamplingGetNumStallReasons(&n), "cuptiPCSamplingGetNumStallReasons");
    std::vector<uint32_t> index(count);
    std::vector<std::vector<char>> names(count, std::vector<char>(kStallReasonNameSize, '\0'));
    std::vector<char*> name_ptrs(count);
    for (size_t i = 0; i < count; i++) name_ptrs[i] = names[i].data();
    auto r = params_for<PCSamplingGetStallReasonsParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingGetStallReasonsParams, stallReasons));
    r.numStallReasons = count;
    r.stallReasonIndex = index.data();
    r.stallReasons = name_ptrs.data();
    check(api_.PCSamplingGetStallReasons(&r), "cuptiPCSamplingGetStallReasons");
    for (size_t i = 0; i < count; i++) {
      std::string name(names[i].data());
      if (!collected_stall_reason(name)) continue;
      reasons_[index[i]] = short_stall_reason(name);
      collected_.push_back(index[i]);
    }
    if (options().debug >= 2) {
      std::string names;
      for (const auto& [index, name] : reasons_) names += cat(names.empty() ? "" : ", ", name);
      std::cerr << "loupe: CUPTI PC sampling, one warp every 2^" << period_exponent_ << " cycles per SM; collecting "
                << reasons_.size() << " of " << count << " stall reasons: " << names << "\n";
    }
    kept_.allocate(kRecordsPerFetch, collected_.size());
    fetched_.allocate(kRecordsPerFetch, collected_.size());
  }
  configure();
}

void PcSampler::configure() {
  std::vector<PCSamplingConfigurationInfo> info(7);
  info[0].attributeType = PC_SAMPLING_ATTR_SAMPLING_PERIOD;
  info[0].attributeData.samplingPeriod = period_exponent_;
  info[1].attributeType = PC_SAMPLING_ATTR_STALL_REASON;
  info[1].attributeData.stallReasonData.stallReasonCount = collected_.size();
  info[1].attributeData.stallReasonData.pStallReasonIndex = collected_.data();
  info[2].attributeType = PC_SAMPLING_ATTR_COLLECTION_MODE;
  info[2].attributeData.collectionMode = PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  info[3].attributeType = PC_SAMPLING_ATTR_ENABLE_START_STOP_CONTROL;
  info[3].attributeData.enableStartStopControl = 1;
  info[4].attributeType = PC_SAMPLING_ATTR_OUTPUT_DATA_FORMAT;
  info[4].attributeData.outputDataFormat = PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  info[5].attributeType = PC_SAMPLING_ATTR_SAMPLING_DATA_BUFFER;
  info[5].attributeData.samplingDataBuffer = &kept_.data;
  info[6].attributeType = PC_SAMPLING_ATTR_SCRATCH_BUFFER_SIZE;
  info[6].attributeData.scratchBufferSize = size_t(4) << 20;  // ~20,000 PCs with every reason
  auto p = params_for<PCSamplingConfigurationInfoParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo));
  p.numAttributes = info.size();
  p.pPCSamplingConfigurationInfo = info.data();
  CUptiResult rc = api_.PCSamplingSetConfigurationAttribute(&p);
  if (rc != CUPTI_SUCCESS) {
    std::string which;
    for (const PCSamplingConfigurationInfo& i : info)
      if (i.attributeStatus != CUPTI_SUCCESS) which += cat(which.empty() ? " (attribute " : ", ", int(i.attributeType), ": ", result_name(i.attributeStatus));
    check(rc, "cuptiPCSamplingSetConfigurationAttribute" + (which.empty() ? "" : which + ")"));
  }
}

void PcSampler::pause() {
  if (!enabled_) return;
  auto p = params_for<PCSamplingContextParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingContextParams, ctx));
  api_.PCSamplingDisable(&p);  // (also copies what CUPTI still holds into kept_, which is dropped: nothing is sampling)
  enabled_ = false;
}

std::optional<KernelSamples> PcSampler::sample(const std::function<void()>& launch) {
  if (!enabled_) enable();
  KernelSamples out;
  out.clock = "pc-sampling";
  out.period = period_cycles();
  out.runs = 1;
  auto p = params_for<PCSamplingContextParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingContextParams, ctx));
  check(api_.PCSamplingStart(&p), "cuptiPCSamplingStart");
  try {
    launch();
  } catch (...) {
    api_.PCSamplingStop(&p);
    throw;
  }
  check(api_.PCSamplingStop(&p), "cuptiPCSamplingStop");
  if (!drain(out)) return std::nullopt;
  return out;
}

bool PcSampler::drain(KernelSamples& out) {
  uint64_t total = 0, dropped = 0, other_kernels = 0;
  for (int turn = 0; turn < 4096; turn++) {  // bounded: each turn takes up to kRecordsPerFetch PCs
    fetched_.data.totalNumPcs = fetched_.data.remainingNumPcs = 0;
    fetched_.data.totalSamples = fetched_.data.droppedSamples = fetched_.data.nonUsrKernelsTotalSamples = 0;
    auto g = params_for<PCSamplingGetDataParams>(ctx_, LOUPE_CUPTI_SIZE(PCSamplingGetDataParams, pcSamplingData));
    g.pcSamplingData = &fetched_.data;
    CUptiResult rc = api_.PCSamplingGetData(&g);
    if (rc == CUPTI_ERROR_OUT_OF_MEMORY) {  // the hardware buffer filled: CUPTI gives no PC data for the launch
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::cerr << "loupe: CUPTI's PC sampling buffer filled: the longest launches go unsampled (a larger"
                     " LOUPE_PC_SAMPLING_PERIOD samples less often)\n";
      });
      return false;
    }
    check(rc, "cuptiPCSamplingGetData");
    keep_names(fetched_.data);
    add_pc_records(fetched_.data, reasons_, out);
    // a range's totals repeat in each buffer of it
    total = std::max<uint64_t>(total, fetched_.data.totalSamples);
    dropped = std::max<uint64_t>(dropped, fetched_.data.droppedSamples);
    other_kernels = std::max<uint64_t>(other_kernels, fetched_.data.nonUsrKernelsTotalSamples);
    if (fetched_.data.remainingNumPcs == 0) break;
  }
  out.lost += static_cast<int64_t>(dropped);
  if (other_kernels > 0) out.outside["(driver kernels)"] += static_cast<int64_t>(other_kernels);
  const uint64_t named = static_cast<uint64_t>(out.in_code_total()) + dropped + other_kernels;
  if (total > named) out.outside["(no PC record)"] += static_cast<int64_t>(total - named);
  return true;
}

} // namespace loupe
