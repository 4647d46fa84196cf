// The parts of CUPTI (CUDA's profiling library, 12.6 and newer) that Loupe uses, declared here and
// resolved with dlopen, so the engine builds without the CUDA toolkit and runs without CUPTI:
//   PC sampling (cupti_pcsampling.h): each SM samples a warp's program counter and why it is stalled;
//   the range profiler (cupti_range_profiler.h, cupti_profiler_host.h): hardware counters of a kernel,
//   replayed by CUPTI once per pass, evaluated to metrics on the host.
// Layouts and values follow CUPTI 13's headers field for field; tst_cupti_layout checks them against the
// real headers where the toolkit is installed. Every parameter block starts with its own size, which
// CUPTI reads to know which fields the caller has (its *_STRUCT_SIZE macros; cupti_size below).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/cuda/cuda_api.h"

namespace loupe::cupti {

using cuda::CUcontext;
using CUptiResult = int;
constexpr CUptiResult CUPTI_SUCCESS = 0;
constexpr CUptiResult CUPTI_ERROR_OUT_OF_MEMORY = 8;
constexpr CUptiResult CUPTI_ERROR_NOT_SUPPORTED = 27;
constexpr CUptiResult CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35;

// A parameter block's size up to and including `last`, as CUPTI's *_STRUCT_SIZE macros compute it.
#define LOUPE_CUPTI_SIZE(type_, last_) (offsetof(type_, last_) + sizeof(((type_*)nullptr)->last_))

// ---- PC sampling (packed, 8-byte aligned records as CUPTI's PACKED_ALIGNMENT declares them)

enum PCSamplingCollectionMode : int { PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED = 2 };
enum PCSamplingOutputDataFormat : int { PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED = 1 };
enum PCSamplingAttribute : int {
  PC_SAMPLING_ATTR_SAMPLING_PERIOD = 1,
  PC_SAMPLING_ATTR_STALL_REASON = 2,
  PC_SAMPLING_ATTR_SCRATCH_BUFFER_SIZE = 3,
  PC_SAMPLING_ATTR_HARDWARE_BUFFER_SIZE = 4,
  PC_SAMPLING_ATTR_COLLECTION_MODE = 5,
  PC_SAMPLING_ATTR_ENABLE_START_STOP_CONTROL = 6,
  PC_SAMPLING_ATTR_OUTPUT_DATA_FORMAT = 7,
  PC_SAMPLING_ATTR_SAMPLING_DATA_BUFFER = 8,
};
constexpr size_t kStallReasonNameSize = 128;  // CUPTI_STALL_REASON_STRING_SIZE

struct __attribute__((packed, aligned(8))) PCSamplingStallReason {
  uint32_t pcSamplingStallReasonIndex;
  uint32_t samples;
};

struct __attribute__((packed, aligned(8))) PCSamplingPCData {
  size_t size;
  uint64_t cubinCrc;
  uint64_t pcOffset;  // from the start of the function
  uint32_t functionIndex;
  uint32_t pad;
  char* functionName;
  size_t stallReasonCount;
  PCSamplingStallReason* stallReason;
  uint32_t correlationId;
};

struct __attribute__((packed, aligned(8))) PCSamplingData {
  size_t size;
  size_t collectNumPcs;
  uint64_t totalSamples;    // every sample, dropped and other kernels' included
  uint64_t droppedSamples;  // the hardware buffer overflowed
  size_t totalNumPcs;
  size_t remainingNumPcs;
  uint64_t rangeId;
  PCSamplingPCData* pPcData;
  uint64_t nonUsrKernelsTotalSamples;
  uint8_t hardwareBufferFull;
};

struct PCSamplingConfigurationInfo {
  PCSamplingAttribute attributeType;
  CUptiResult attributeStatus;
  union {
    uint64_t invalidData[3];
    uint32_t samplingPeriod;  // 2^samplingPeriod cycles, 5..31
    struct {
      size_t stallReasonCount;
      uint32_t* pStallReasonIndex;
    } stallReasonData;
    size_t scratchBufferSize;
    size_t hardwareBufferSize;
    PCSamplingCollectionMode collectionMode;
    uint32_t enableStartStopControl;
    PCSamplingOutputDataFormat outputDataFormat;
    void* samplingDataBuffer;
  } attributeData;
};

struct PCSamplingConfigurationInfoParams {
  size_t size;
  void* pPriv;
  CUcontext ctx;
  size_t numAttributes;
  PCSamplingConfigurationInfo* pPCSamplingConfigurationInfo;
};
struct PCSamplingGetDataParams {
  size_t size;
  void* pPriv;
  CUcontext ctx;
  void* pcSamplingData;
};
// cuptiPCSamplingEnable, Disable, Start and Stop take the same block
struct PCSamplingContextParams {
  size_t size;
  void* pPriv;
  CUcontext ctx;
};
struct PCSamplingGetNumStallReasonsParams {
  size_t size;
  void* pPriv;
  CUcontext ctx;
  size_t* numStallReasons;
};
struct PCSamplingGetStallReasonsParams {
  size_t size;
  void* pPriv;
  CUcontext ctx;
  size_t numStallReasons;
  uint32_t* stallReasonIndex;
  char** stallReasons;  // numStallReasons buffers of kStallReasonNameSize bytes
};

// ---- the range profiler and the profiler host

enum ProfilerRange : int { PROFILER_AUTO_RANGE = 1 };
enum ProfilerReplayMode : int { PROFILER_KERNEL_REPLAY = 2 };
enum ProfilerType : int { PROFILER_TYPE_RANGE_PROFILER = 0 };
struct RangeProfilerObject;
struct ProfilerHostObject;

struct ProfilerInitializeParams {  // cuptiProfilerInitialize / cuptiProfilerDeInitialize
  size_t structSize;
  void* pPriv;
};
struct DeviceGetChipNameParams {
  size_t structSize;
  void* pPriv;
  size_t deviceIndex;
  const char* pChipName;
};
struct ProfilerGetCounterAvailabilityParams {
  size_t structSize;
  void* pPriv;
  CUcontext ctx;
  size_t counterAvailabilityImageSize;
  uint8_t* pCounterAvailabilityImage;
};
struct ProfilerHostInitializeParams {
  size_t structSize;
  void* pPriv;
  ProfilerType profilerType;
  const char* pChipName;
  const uint8_t* pCounterAvailabilityImage;
  ProfilerHostObject* pHostObject;
};
struct ProfilerHostObjectParams {  // cuptiProfilerHostDeinitialize
  size_t structSize;
  void* pPriv;
  ProfilerHostObject* pHostObject;
};
struct ProfilerHostConfigAddMetricsParams {
  size_t structSize;
  void* pPriv;
  ProfilerHostObject* pHostObject;
  const char** ppMetricNames;
  size_t numMetrics;
};
struct ProfilerHostGetConfigImageSizeParams {
  size_t structSize;
  void* pPriv;
  ProfilerHostObject* pHostObject;
  size_t configImageSize;
};
struct ProfilerHostGetConfigImageParams {
  size_t structSize;
  void* pPriv;
  ProfilerHostObject* pHostObject;
  size_t configImageSize;
  uint8_t* pConfigImage;
};
struct ProfilerHostGetNumOfPassesParams {
  size_t structSize;
  void* pPriv;
  size_t configImageSize;
  uint8_t* pConfigImage;
  size_t numOfPasses;
};
struct ProfilerHostEvaluateToGpuValuesParams {
  size_t structSize;
  void* pPriv;
  ProfilerHostObject* pHostObject;
  const uint8_t* pCounterDataImage;
  size_t counterDataImageSize;
  size_t rangeIndex;
  const char** ppMetricNames;
  size_t numMetrics;
  double* pMetricValues;
};
struct RangeProfilerEnableParams {
  size_t structSize;
  void* pPriv;
  CUcontext ctx;
  RangeProfilerObject* pRangeProfilerObject;
};
struct RangeProfilerObjectParams {  // cuptiRangeProfilerDisable / Start
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
};
struct RangeProfilerStopParams {
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
  size_t passIndex;
  size_t targetNestingLevel;
  uint8_t isAllPassSubmitted;
};
struct RangeProfilerDecodeDataParams {
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
  size_t numOfRangeDropped;
};
struct RangeProfilerGetCounterDataSizeParams {
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
  const char** pMetricNames;
  size_t numMetrics;
  size_t maxNumOfRanges;
  uint32_t maxNumRangeTreeNodes;
  size_t counterDataSize;
};
struct RangeProfilerCounterDataImageInitializeParams {
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
  size_t counterDataSize;
  uint8_t* pCounterData;
};
struct RangeProfilerGetCounterDataInfoParams {
  size_t structSize;
  void* pPriv;
  const uint8_t* pCounterDataImage;
  size_t counterDataImageSize;
  size_t numTotalRanges;
};
struct RangeProfilerSetConfigParams {
  size_t structSize;
  void* pPriv;
  RangeProfilerObject* pRangeProfilerObject;
  size_t configSize;
  const uint8_t* pConfig;
  size_t counterDataImageSize;
  uint8_t* pCounterDataImage;
  ProfilerRange range;
  ProfilerReplayMode replayMode;
  size_t maxRangesPerPass;
  uint16_t numNestingLevels;
  uint16_t minNestingLevel;
  size_t passIndex;
  uint16_t targetNestingLevel;
};

struct Api {
  CUptiResult (*GetResultString)(CUptiResult, const char**);
  // PC sampling
  CUptiResult (*PCSamplingGetNumStallReasons)(PCSamplingGetNumStallReasonsParams*);
  CUptiResult (*PCSamplingGetStallReasons)(PCSamplingGetStallReasonsParams*);
  CUptiResult (*PCSamplingSetConfigurationAttribute)(PCSamplingConfigurationInfoParams*);
  CUptiResult (*PCSamplingEnable)(PCSamplingContextParams*);
  CUptiResult (*PCSamplingDisable)(PCSamplingContextParams*);
  CUptiResult (*PCSamplingStart)(PCSamplingContextParams*);
  CUptiResult (*PCSamplingStop)(PCSamplingContextParams*);
  CUptiResult (*PCSamplingGetData)(PCSamplingGetDataParams*);
  // the range profiler
  CUptiResult (*ProfilerInitialize)(ProfilerInitializeParams*);
  CUptiResult (*DeviceGetChipName)(DeviceGetChipNameParams*);
  CUptiResult (*ProfilerGetCounterAvailability)(ProfilerGetCounterAvailabilityParams*);
  CUptiResult (*ProfilerHostInitialize)(ProfilerHostInitializeParams*);
  CUptiResult (*ProfilerHostDeinitialize)(ProfilerHostObjectParams*);
  CUptiResult (*ProfilerHostConfigAddMetrics)(ProfilerHostConfigAddMetricsParams*);
  CUptiResult (*ProfilerHostGetConfigImageSize)(ProfilerHostGetConfigImageSizeParams*);
  CUptiResult (*ProfilerHostGetConfigImage)(ProfilerHostGetConfigImageParams*);
  CUptiResult (*ProfilerHostGetNumOfPasses)(ProfilerHostGetNumOfPassesParams*);
  CUptiResult (*ProfilerHostEvaluateToGpuValues)(ProfilerHostEvaluateToGpuValuesParams*);
  CUptiResult (*RangeProfilerEnable)(RangeProfilerEnableParams*);
  CUptiResult (*RangeProfilerDisable)(RangeProfilerObjectParams*);
  CUptiResult (*RangeProfilerStart)(RangeProfilerObjectParams*);
  CUptiResult (*RangeProfilerStop)(RangeProfilerStopParams*);
  CUptiResult (*RangeProfilerDecodeData)(RangeProfilerDecodeDataParams*);
  CUptiResult (*RangeProfilerGetCounterDataSize)(RangeProfilerGetCounterDataSizeParams*);
  CUptiResult (*RangeProfilerCounterDataImageInitialize)(RangeProfilerCounterDataImageInitializeParams*);
  CUptiResult (*RangeProfilerGetCounterDataInfo)(RangeProfilerGetCounterDataInfoParams*);
  CUptiResult (*RangeProfilerSetConfig)(RangeProfilerSetConfigParams*);
};

// CUPTI, loaded on first use from LOUPE_CUPTI_LIBRARY, the loader's path, $CUDA_PATH/$CUDA_HOME and
// /usr/local/cuda (lib64, extras/CUPTI/lib64); null with the reason when it is not there or too old.
const Api* api(std::string* why = nullptr);
// The same, or loupe::Error with the reason.
const Api& require_api();

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"
std::string result_name(CUptiResult rc);
// loupe::Error "CUPTI: <what> failed: <name>" (with what to do about missing privileges) unless rc is success.
void check(CUptiResult rc, const std::string& what);

} // namespace loupe::cupti
