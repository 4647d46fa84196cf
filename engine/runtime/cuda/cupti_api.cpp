#include "runtime/cuda/cupti_api.h"

#include <cstdlib>
#include <mutex>

#include "runtime/cuda/library_table.h"

namespace loupe::cupti {

namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* p = std::getenv("LOUPE_CUPTI_LIBRARY"); p && *p) c.push_back(p);
  for (const char* n : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}) c.push_back(n);
  std::vector<std::string> roots;
  for (const char* env : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* p = std::getenv(env); p && *p) roots.push_back(p);
  roots.push_back("/usr/local/cuda");
  for (const std::string& root : roots)
    for (const char* dir : {"/extras/CUPTI/lib64/", "/lib64/", "/lib/"})
      for (const char* n : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}) c.push_back(root + dir + n);
  return c;
}

} // namespace

const Api* api(std::string* why) {
  static cuda::LoadedTable<Api> l;
  static std::once_flag once;
  std::call_once(once, [] {
    cuda::load_table(l, candidates(),
               "CUPTI: libcupti.so not found (it comes with the CUDA toolkit, in extras/CUPTI/lib64; LOUPE_CUPTI_LIBRARY names it)",
               [](Api& a, auto& sym) {
                 sym(a.GetResultString, "cuptiGetResultString");
                 sym(a.PCSamplingGetNumStallReasons, "cuptiPCSamplingGetNumStallReasons");
                 sym(a.PCSamplingGetStallReasons, "cuptiPCSamplingGetStallReasons");
                 sym(a.PCSamplingSetConfigurationAttribute, "cuptiPCSamplingSetConfigurationAttribute");
                 sym(a.PCSamplingEnable, "cuptiPCSamplingEnable");
                 sym(a.PCSamplingDisable, "cuptiPCSamplingDisable");
                 sym(a.PCSamplingStart, "cuptiPCSamplingStart");
                 sym(a.PCSamplingStop, "cuptiPCSamplingStop");
                 sym(a.PCSamplingGetData, "cuptiPCSamplingGetData");
                 sym(a.ProfilerInitialize, "cuptiProfilerInitialize");
                 sym(a.DeviceGetChipName, "cuptiDeviceGetChipName");
                 sym(a.ProfilerGetCounterAvailability, "cuptiProfilerGetCounterAvailability");
                 // the profiler host and range profiler arrived in CUDA 12.6: an older CUPTI lacks them
                 sym(a.ProfilerHostInitialize, "cuptiProfilerHostInitialize");
                 sym(a.ProfilerHostDeinitialize, "cuptiProfilerHostDeinitialize");
                 sym(a.ProfilerHostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics");
                 sym(a.ProfilerHostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize");
                 sym(a.ProfilerHostGetConfigImage, "cuptiProfilerHostGetConfigImage");
                 sym(a.ProfilerHostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses");
                 sym(a.ProfilerHostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues");
                 sym(a.RangeProfilerEnable, "cuptiRangeProfilerEnable");
                 sym(a.RangeProfilerDisable, "cuptiRangeProfilerDisable");
                 sym(a.RangeProfilerStart, "cuptiRangeProfilerStart");
                 sym(a.RangeProfilerStop, "cuptiRangeProfilerStop");
                 sym(a.RangeProfilerDecodeData, "cuptiRangeProfilerDecodeData");
                 sym(a.RangeProfilerGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize");
                 sym(a.RangeProfilerCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize");
                 sym(a.RangeProfilerGetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo");
                 sym(a.RangeProfilerSetConfig, "cuptiRangeProfilerSetConfig");
               });
    if (!l.ok && l.why.find(" has no ") != std::string::npos) l.why += " (CUPTI 12.6 or newer is needed)";
  });
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.table : nullptr;
}

const Api& require_api() {
  std::string why;
  const Api* a = api(&why);
  if (!a) throw Error(why);
  return *a;
}

std::string result_name(CUptiResult rc) {
  const Api* a = api();
  const char* name = nullptr;
  if (a && a->GetResultString(rc, &name) == CUPTI_SUCCESS && name) return cat(name, " (", rc, ")");
  return cat("CUPTI error ", rc);
}

void check(CUptiResult rc, const std::string& what) {
  if (rc == CUPTI_SUCCESS) return;
  std::string hint;
  if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    hint = ": the driver lets administrators only read the GPU's counters (run as root, or load the nvidia module with"
           " NVreg_RestrictProfilingToAdminUsers=0)";
  else if (rc == CUPTI_ERROR_NOT_SUPPORTED)
    hint = ": this GPU, driver or virtual machine does not support it";
  throw Error(cat("CUPTI: ", what, " failed: ", result_name(rc), hint));
}

} // namespace loupe::cupti
