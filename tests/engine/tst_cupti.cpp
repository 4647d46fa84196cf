// CUDA kernels' hot spots and metrics through CUPTI, as far as a machine without a GPU can check them:
// the PC records' attribution (synthetic records, exact), stall reasons laid over SASS lines, the trace
// round trip of stalls and metrics, Loupe's declarations of CUPTI against CUPTI's own headers (where the
// toolkit is installed), and CUPTI's profiler host configuring Loupe's metrics for real chips (where
// libcupti is: it needs no GPU for that).
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "engine/recorded_tool_output.h"
#include "inspect/hotspot_annotation.h"
#include "inspect/hotspot_report.h"
#include "inspect/machine_code.h"
#include "observe/kernel_metrics.h"
#include "runtime/cuda/kernel_counters.h"
#include "runtime/cuda/library_table.h"
#include "runtime/cuda/pc_sampling.h"
#include "support/error.h"
#include "support/options.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

#ifdef LOUPE_CUPTI_HEADERS
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#endif

using namespace loupe;

namespace {

// Three PCs of E_8 and one of another function; reason 7 is not among the named ones.
struct SyntheticRecords {
  std::vector<cupti::PCSamplingStallReason> reasons = {{1, 5}, {2, 1},   // +0x0: long_scoreboard 5, selected 1
                                                       {1, 0}, {3, 6},   // +0x10: math_pipe_throttle 6 (a zero row)
                                                       {7, 3}, {2, 0},   // +0x20: reason 7, 3
                                                       {2, 2}, {1, 0}};  // other +0x40: selected 2
  std::vector<cupti::PCSamplingPCData> pcs;
  cupti::PCSamplingData data{};
  char e8[4] = "E_8", other[6] = "other";
  SyntheticRecords() {
    const uint64_t offsets[4] = {0x0, 0x10, 0x20, 0x40};
    pcs.resize(4);
    for (size_t i = 0; i < 4; i++) {
      pcs[i].size = sizeof(cupti::PCSamplingPCData);
      pcs[i].pcOffset = offsets[i];
      pcs[i].functionName = i < 3 ? e8 : other;
      pcs[i].stallReasonCount = 2;
      pcs[i].stallReason = reasons.data() + 2 * i;
    }
    data.size = sizeof(cupti::PCSamplingData);
    data.totalNumPcs = pcs.size();
    data.pPcData = pcs.data();
  }
};

const std::map<uint32_t, std::string> kReasons = {{1, "long_scoreboard"}, {2, "selected"}, {3, "math_pipe_throttle"}};

KernelSamples sampled_e8() {
  SyntheticRecords r;
  KernelSamples s;
  s.clock = "pc-sampling";
  s.period = 1024;
  s.runs = 1;
  add_pc_records(r.data, kReasons, s);
  return s;
}

} // namespace

class TestCupti : public QObject {
  Q_OBJECT
private slots:
  // Each PC's samples are the sum of its reasons; each reason is kept by name (an unnamed one by its
  // index); records of other functions are kept under their own name.
  void pcRecordsAreAttributedExactly() {
    KernelSamples s = sampled_e8();
    const std::map<SampleSite, int64_t> sites = {{{"E_8", 0x0}, 6}, {{"E_8", 0x10}, 6}, {{"E_8", 0x20}, 3}, {{"other", 0x40}, 2}};
    QCOMPARE(s.in_code, sites);
    QCOMPARE(s.stalls.at({"E_8", 0x0}), (std::map<std::string, int64_t>{{"long_scoreboard", 5}, {"selected", 1}}));
    QCOMPARE(s.stalls.at({"E_8", 0x10}), (std::map<std::string, int64_t>{{"math_pipe_throttle", 6}}));
    QCOMPARE(s.stalls.at({"E_8", 0x20}), (std::map<std::string, int64_t>{{"reason 7", 3}}));
    // a second buffer of the same launch adds up
    SyntheticRecords again;
    add_pc_records(again.data, kReasons, s);
    QCOMPARE(s.in_code.at({"E_8", 0x0}), int64_t(12));
    QCOMPARE(s.stalls.at({"E_8", 0x0}).at("long_scoreboard"), int64_t(10));
    KernelSamples sum = sampled_e8();
    sum += sampled_e8();
    QCOMPARE(sum.stalls, s.stalls);
  }

  void stallReasonNamesAreShortened() {
    QCOMPARE(short_stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), std::string("long_scoreboard"));
    QCOMPARE(short_stall_reason("smsp__pcsamp_sample_count"), std::string("sample_count"));
    QCOMPARE(short_stall_reason("smsp__pcsamp_warp_stall_math_pipe_throttle"), std::string("math_pipe_throttle"));
    QCOMPARE(short_stall_reason("selected"), std::string("selected"));
    // the reasons proper, once each: not their _not_issued subsets, not the sampler's own counters
    QVERIFY(collected_stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard"));
    QVERIFY(collected_stall_reason("smsp__pcsamp_warps_issue_stalled_selected"));
    QVERIFY(collected_stall_reason("smsp__pcsamp_warp_stall_barrier"));
    QVERIFY(!collected_stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"));
    QVERIFY(!collected_stall_reason("smsp__pcsamp_sample_count"));
    QVERIFY(!collected_stall_reason("smsp__pcsamp_samples_data_dropped"));
  }

  // Stalls follow the samples onto nvdisasm's rows and the source lines they carry; the kernel's own
  // breakdown is known even without a listing. The report names the reasons of the hot lines.
  void stallsAreLaidOverSassLines() {
    MachineListing l;
    l.kind = "sass";
    parse_nvdisasm(loupe::testing::kNvdisasmE8, "E_8.cu", l);
    KernelSamples s = sampled_e8();
    HotspotAnnotation a = annotate_hotspots(l, "E_8", s);
    QVERIFY2(a.matches, a.mismatch.c_str());
    QCOMPARE(a.line_samples, (std::map<int, int64_t>{{4, 6}, {6, 6}, {7, 3}}));
    QCOMPARE(a.line_stalls.at(6), (std::map<std::string, int64_t>{{"math_pipe_throttle", 6}}));
    QCOMPARE(a.stalls, (std::map<std::string, int64_t>{{"long_scoreboard", 5}, {"math_pipe_throttle", 6}, {"reason 7", 3}, {"selected", 1}}));
    QCOMPARE(stall_summary(a.stalls, 2), std::string("math_pipe_throttle 40.0%, long_scoreboard 33.3%"));
    HotspotAnnotation none = annotate_hotspots(MachineListing{}, "E_8", s);
    QCOMPARE(none.stalls, a.stalls);

    KernelHotspotReport r;
    r.kernel = r.function = "E_8";
    r.device = "CUDA";
    r.source = {"", "", "", "a", "", "b = c * d;", "e"};
    r.samples = s;
    r.listing = l;
    r.annotation = a;
    std::string text = format_hotspot_report(r);
    QVERIFY2(text.find("one warp sampled every 1,024 cycles per SM") != std::string::npos, text.c_str());
    QVERIFY2(text.find("warps stalled on: math_pipe_throttle 40.0%") != std::string::npos, text.c_str());
    QVERIFY2(text.find("6: b = c * d;    [math_pipe_throttle 100.0%]") != std::string::npos, text.c_str());
    QVERIFY2(text.find("GPU metrics not measured (record with --gpu-metrics)") != std::string::npos, text.c_str());
    json::Value j = hotspot_report_json(r);
    QCOMPARE(j.at("stalls").at("long_scoreboard").as_int(), int64_t(5));
  }

  // A trace keeps a kernel's stalls (adding up over runs) and its metrics (a value CUPTI could not
  // compute as NaN, what was unavailable and why).
  void stallsAndMetricsSurviveTheTrace() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("cuda.loupe").toStdString();
    KernelMetrics m;
    m.source = "CUPTI range profiler on GH100, 8 passes (kernel replay)";
    m.values = {{"achieved_occupancy_pct", 45.25}, {"dram_bytes", 2.5e9}, {"l2_hit_rate_pct", NAN}, {"registers_per_thread", 40}};
    m.unavailable = {"tensor_pipe_active_pct (sm__pipe_tensor_cycles_active...): CUPTI_ERROR_INVALID_PARAMETER (1)"};
    int64_t id = 0;
    {
      TraceWriter w(path);
      KernelRecord k;
      k.name = "E_8";
      k.device = "CUDA";
      id = w.record_kernel(k);
      w.record_kernel_samples(id, sampled_e8());
      w.record_kernel_samples(id, sampled_e8());
      w.record_kernel_metrics(id, m);
    }
    TraceReader r(path);
    std::optional<KernelSamples> s = r.kernel_samples(id);
    QVERIFY(s);
    QCOMPARE(s->clock, std::string("pc-sampling"));
    QCOMPARE(s->runs, int64_t(2));
    QCOMPARE(s->stalls.at({"E_8", 0x0}).at("long_scoreboard"), int64_t(10));
    QCOMPARE(s->stalls.at({"E_8", 0x20}).at("reason 7"), int64_t(6));
    std::optional<KernelMetrics> back = r.kernel_metrics(id);
    QVERIFY(back);
    QCOMPARE(back->source, m.source);
    QCOMPARE(back->values.size(), m.values.size());
    QCOMPARE(back->values[0], m.values[0]);
    QCOMPARE(back->values[1], m.values[1]);
    QVERIFY(std::isnan(back->values[2].second));
    QCOMPARE(back->unavailable, m.unavailable);
    QCOMPARE(r.measured_kernels(), std::vector<int64_t>{id});
    std::string text = describe_metrics(*back);
    QVERIFY2(text.find("achieved occupancy 45.2%") != std::string::npos || text.find("achieved occupancy 45.3%") != std::string::npos, text.c_str());
    QVERIFY2(text.find("DRAM bytes 2.50 GB") != std::string::npos, text.c_str());
    QVERIFY2(text.find("registers per thread 40") != std::string::npos, text.c_str());
    QVERIFY2(text.find("not available: tensor_pipe_active_pct") != std::string::npos, text.c_str());
  }

  // The SASS made where a sampled CUDA kernel ran is kept beside its samples: a reader without the GPU's
  // tools (here: no CUDA at all) lays the samples over it, exactly.
  void aRecordedListingServesReadersWithoutTheGpu() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("listed.loupe").toStdString();
    MachineListing sass;
    sass.kind = "sass";
    sass.title = "SASS for sm_90";
    sass.how = "ptxas -arch=sm_90 -lineinfo; nvdisasm -g -c";
    parse_nvdisasm(loupe::testing::kNvdisasmE8, "E_8.cu", sass);
    const std::string source = "extern \"C\" __global__ void E_8(float* data0) {\n  int gidx0 = blockIdx.x;\n}\n";
    int64_t id = 0;
    const bool hotspots = options().hotspots;
    options().hotspots = true;  // a writer keeps CUDA sources for their listings only while sampling
    {
      TraceWriter w(path);
      KernelRecord k;
      k.name = "E_8";
      k.device = "CUDA";
      k.sources.push_back({"CUDA", "opt", source});
      id = w.record_kernel(k);
      KernelRecord cpu;
      cpu.name = "E_8";
      cpu.device = "CPU";
      cpu.sources.push_back({"C", "opt", "void E_8(float* data0) {}"});
      const int64_t cpu_id = w.record_kernel(cpu);
      QVERIFY(w.sampled_without_listing().empty());
      w.record_kernel_samples(id, sampled_e8());
      KernelSamples cpu_samples;
      cpu_samples.clock = "cpu-clock";
      cpu_samples.in_code[{"E_8", 0}] = 1;
      w.record_kernel_samples(cpu_id, cpu_samples);  // a CPU kernel's code is compiled again by readers
      const auto pending = w.sampled_without_listing();
      QCOMPARE(pending.size(), size_t(1));
      QCOMPARE(pending[0].id, id);
      QCOMPARE(pending[0].source.text, source);
      w.record_kernel_listing(id, RecordedListing{sass.kind, sass.title, sass.how, sass.lines, sass.source_lines});
      QVERIFY(w.sampled_without_listing().empty());
    }
    options().hotspots = hotspots;
    TraceReader r(path);
    const std::vector<RecordedListing> listings = r.kernel_listings(id);
    QCOMPARE(listings.size(), size_t(1));
    QCOMPARE(listings[0].lines, sass.lines);
    QCOMPARE(listings[0].source_lines, sass.source_lines);
    KernelHotspotReport report = hotspot_report("E_8", "CUDA", source, *r.kernel_samples(id), listings);
    QVERIFY(report.listing);
    QVERIFY2(report.listing->title.find("made where it ran") != std::string::npos, report.listing->title.c_str());
    QVERIFY2(report.annotation.matches, report.annotation.mismatch.c_str());
    QCOMPARE(report.annotation.line_samples, (std::map<int, int64_t>{{4, 6}, {6, 6}, {7, 3}}));
    // without it, a machine without CUDA says why it cannot attribute
    KernelHotspotReport bare = hotspot_report("E_8", "CUDA", source, *r.kernel_samples(id));
    QVERIFY(!bare.annotation.matches);
    QVERIFY(!bare.annotation.mismatch.empty());
  }

  void metricsWithoutValuesSayWhy() {
    KernelMetrics m;
    m.unavailable = {"CUPTI: cuptiProfilerInitialize failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"};
    QCOMPARE(describe_metrics(m), std::string("GPU metrics not available: CUPTI: cuptiProfilerInitialize failed: "
                                              "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"));
  }

  // CUPTI's L2 hit rate over 100% (tiny kernels on an H200) is shown as measured, with why it can be.
  void anL2HitRateOver100IsShownAsMeasured() {
    KernelMetrics m;
    m.values = {{"l2_hit_rate_pct", 164.6}};
    QCOMPARE(describe_metrics(m), std::string("L2 hit rate 164.6% (CUPTI's ratio, over 100% on little L2 traffic)"));
    m.values = {{"l2_hit_rate_pct", 35.1}};
    QCOMPARE(describe_metrics(m), std::string("L2 hit rate 35.1%"));
  }

  // A library that loads but lacks an entry point is passed over for the next candidate (the GPU machine's
  // Nsight Compute holds a CUPTI 10.2 ahead of CUDA 13's); with none complete the reason names the first.
  void anIncompleteLibraryIsPassedOver() {
    struct Table {
      double (*cos)(double) = nullptr;
    };
    auto fill = [](Table& t, auto& sym) { sym(t.cos, "cos"); };
    cuda::LoadedTable<Table> both;
    cuda::load_table(both, {"libloupe-no-such.so", "libc.so.6", "libm.so.6"}, "Maths: libm not found", fill);
    QVERIFY2(both.ok, both.why.c_str());
    QCOMPARE(both.table.cos(0.0), 1.0);
    QVERIFY(both.why.empty());
    cuda::LoadedTable<Table> incomplete;
    cuda::load_table(incomplete, {"libc.so.6"}, "Maths: libm not found", fill);
    QVERIFY(!incomplete.ok);
    QCOMPARE(incomplete.why, std::string("Maths: libc.so.6 has no cos"));
    cuda::LoadedTable<Table> none;
    cuda::load_table(none, {"libloupe-no-such.so"}, "Maths: libm not found", fill);
    QCOMPARE(none.why, std::string("Maths: libm not found"));
  }

  // CUPTI's profiler host builds the counter configuration for a chip without a GPU: every metric Loupe
  // asks for is one that Hopper, Ampere and Ada have, in a handful of passes each.
  void profilerHostConfiguresLoupesMetrics() {
    std::string why;
    if (!cupti::api(&why)) QSKIP(("no CUPTI here: " + why).c_str());
    for (const char* chip : {"GH100", "GA100", "AD102"}) {
      CounterHost host(chip, {});
      std::string refused;
      for (const std::string& r : host.config().refused) refused += r + "; ";
      QVERIFY2(host.config().refused.empty(), (std::string(chip) + ": " + refused).c_str());
      QCOMPARE(host.config().accepted.size(), cupti_metrics().size());
      QVERIFY(!host.config().image.empty());
      QVERIFY2(host.config().passes >= 1 && host.config().passes <= 12, std::to_string(host.config().passes).c_str());
    }
    // a chip without some of them (Orin's GA10B has no DRAM counters) keeps the others: CUPTI refuses every
    // metric added after a refused one to the same configuration, so each is tried alone first
    {
      CounterHost orin("GA10B", {});
      std::string refused;
      for (const std::string& r : orin.config().refused) refused += r + "; ";
      QVERIFY2(refused.find("dram_bytes") != std::string::npos && refused.find("l2_hit_rate") == std::string::npos, refused.c_str());
      QCOMPARE(orin.config().accepted.size() + orin.config().refused.size(), cupti_metrics().size());
      QVERIFY(orin.config().accepted.size() >= 4);
      QVERIFY(!orin.config().image.empty() && orin.config().passes >= 1);
    }
    try {
      CounterHost bogus("NOT_A_CHIP", {});
      QFAIL("an unknown chip was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("NOT_A_CHIP") != std::string::npos, e.what());
    }
    // every counter-based key is one readers know
    for (const CuptiMetric& m : cupti_metrics()) {
      bool known = false;
      for (const MetricInfo& info : known_kernel_metrics()) known = known || std::string(info.key) == m.key;
      QVERIFY2(known, m.key);
    }
  }

  // Loupe's own declarations of CUPTI's parameter blocks and records match CUPTI's headers byte for byte.
  void declarationsMatchCuptisHeaders() {
#ifndef LOUPE_CUPTI_HEADERS
    QSKIP("CUPTI's headers are not installed here (the CUDA toolkit's include/ or extras/CUPTI/include)");
#else
#define SAME_LAYOUT(ours, theirs) static_assert(sizeof(cupti::ours) == sizeof(theirs), #ours " size")
#define SAME_FIELD(ours, theirs, field) static_assert(offsetof(cupti::ours, field) == offsetof(theirs, field), #ours "." #field)
    SAME_LAYOUT(PCSamplingStallReason, CUpti_PCSamplingStallReason);
    SAME_LAYOUT(PCSamplingPCData, CUpti_PCSamplingPCData);
    SAME_FIELD(PCSamplingPCData, CUpti_PCSamplingPCData, pcOffset);
    SAME_FIELD(PCSamplingPCData, CUpti_PCSamplingPCData, functionName);
    SAME_FIELD(PCSamplingPCData, CUpti_PCSamplingPCData, stallReasonCount);
    SAME_FIELD(PCSamplingPCData, CUpti_PCSamplingPCData, stallReason);
    SAME_FIELD(PCSamplingPCData, CUpti_PCSamplingPCData, correlationId);
    SAME_LAYOUT(PCSamplingData, CUpti_PCSamplingData);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, totalSamples);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, droppedSamples);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, totalNumPcs);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, remainingNumPcs);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, pPcData);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, nonUsrKernelsTotalSamples);
    SAME_FIELD(PCSamplingData, CUpti_PCSamplingData, hardwareBufferFull);
    SAME_LAYOUT(PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo);
    SAME_FIELD(PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeStatus);
    SAME_FIELD(PCSamplingConfigurationInfo, CUpti_PCSamplingConfigurationInfo, attributeData);
    static_assert(offsetof(cupti::PCSamplingConfigurationInfo, attributeData.stallReasonData.pStallReasonIndex) ==
                  offsetof(CUpti_PCSamplingConfigurationInfo, attributeData.stallReasonData.pStallReasonIndex));
    SAME_LAYOUT(PCSamplingConfigurationInfoParams, CUpti_PCSamplingConfigurationInfoParams);
    SAME_LAYOUT(PCSamplingGetDataParams, CUpti_PCSamplingGetDataParams);
    SAME_LAYOUT(PCSamplingContextParams, CUpti_PCSamplingEnableParams);
    SAME_LAYOUT(PCSamplingContextParams, CUpti_PCSamplingStartParams);
    SAME_LAYOUT(PCSamplingGetNumStallReasonsParams, CUpti_PCSamplingGetNumStallReasonsParams);
    SAME_LAYOUT(PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams);
    SAME_FIELD(PCSamplingGetStallReasonsParams, CUpti_PCSamplingGetStallReasonsParams, stallReasons);
    static_assert(cupti::kStallReasonNameSize == CUPTI_STALL_REASON_STRING_SIZE);
    static_assert(int(cupti::PC_SAMPLING_ATTR_SAMPLING_DATA_BUFFER) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
    static_assert(int(cupti::PC_SAMPLING_ATTR_ENABLE_START_STOP_CONTROL) == int(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
    static_assert(int(cupti::PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED) == int(CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED));
    static_assert(int(cupti::PROFILER_AUTO_RANGE) == int(CUPTI_AutoRange));
    static_assert(int(cupti::PROFILER_KERNEL_REPLAY) == int(CUPTI_KernelReplay));
    static_assert(int(cupti::PROFILER_TYPE_RANGE_PROFILER) == int(CUPTI_PROFILER_TYPE_RANGE_PROFILER));
    static_assert(cupti::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES == int(::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));
    static_assert(cupti::CUPTI_ERROR_OUT_OF_MEMORY == int(::CUPTI_ERROR_OUT_OF_MEMORY));
    SAME_LAYOUT(DeviceGetChipNameParams, CUpti_Device_GetChipName_Params);
    SAME_LAYOUT(ProfilerGetCounterAvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params);
    SAME_LAYOUT(ProfilerHostInitializeParams, CUpti_Profiler_Host_Initialize_Params);
    SAME_FIELD(ProfilerHostInitializeParams, CUpti_Profiler_Host_Initialize_Params, pHostObject);
    SAME_LAYOUT(ProfilerHostConfigAddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params);
    SAME_LAYOUT(ProfilerHostGetConfigImageSizeParams, CUpti_Profiler_Host_GetConfigImageSize_Params);
    SAME_LAYOUT(ProfilerHostGetConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params);
    SAME_LAYOUT(ProfilerHostGetNumOfPassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params);
    SAME_LAYOUT(ProfilerHostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    SAME_FIELD(ProfilerHostEvaluateToGpuValuesParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
    SAME_LAYOUT(RangeProfilerEnableParams, CUpti_RangeProfiler_Enable_Params);
    SAME_LAYOUT(RangeProfilerObjectParams, CUpti_RangeProfiler_Start_Params);
    SAME_LAYOUT(RangeProfilerObjectParams, CUpti_RangeProfiler_Disable_Params);
    SAME_LAYOUT(RangeProfilerStopParams, CUpti_RangeProfiler_Stop_Params);
    SAME_FIELD(RangeProfilerStopParams, CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
    SAME_LAYOUT(RangeProfilerDecodeDataParams, CUpti_RangeProfiler_DecodeData_Params);
    SAME_LAYOUT(RangeProfilerGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params);
    SAME_FIELD(RangeProfilerGetCounterDataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumRangeTreeNodes);
    SAME_LAYOUT(RangeProfilerCounterDataImageInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    SAME_LAYOUT(RangeProfilerGetCounterDataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params);
    SAME_LAYOUT(RangeProfilerSetConfigParams, CUpti_RangeProfiler_SetConfig_Params);
    SAME_FIELD(RangeProfilerSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, range);
    SAME_FIELD(RangeProfilerSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, numNestingLevels);
    SAME_FIELD(RangeProfilerSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, passIndex);
    SAME_FIELD(RangeProfilerSetConfigParams, CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel);
    SAME_LAYOUT(ProfilerInitializeParams, CUpti_Profiler_Initialize_Params);
    // the sizes Loupe passes are CUPTI's *_STRUCT_SIZE
    QCOMPARE(LOUPE_CUPTI_SIZE(cupti::RangeProfilerSetConfigParams, targetNestingLevel), CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    QCOMPARE(LOUPE_CUPTI_SIZE(cupti::RangeProfilerStopParams, isAllPassSubmitted), CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    QCOMPARE(LOUPE_CUPTI_SIZE(cupti::PCSamplingGetDataParams, pcSamplingData), CUpti_PCSamplingGetDataParamsSize);
    QCOMPARE(LOUPE_CUPTI_SIZE(cupti::PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo),
             CUpti_PCSamplingConfigurationInfoParamsSize);
#undef SAME_LAYOUT
#undef SAME_FIELD
#endif
  }
};

QTEST_MAIN(TestCupti)
#include "tst_cupti.moc"
