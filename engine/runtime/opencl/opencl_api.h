// The part of the OpenCL 1.2 API the OPENCL device uses, declared here and resolved from the ICD loader
// (libOpenCL.so.1) with dlopen at run time, so the engine builds without OpenCL headers or libraries.
// Values are those of the Khronos headers (CL/cl.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace loupe::cl {

using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_ulong = uint64_t;
using cl_bitfield = cl_ulong;
using cl_platform_id = struct _cl_platform_id*;
using cl_device_id = struct _cl_device_id*;
using cl_context = struct _cl_context*;
using cl_command_queue = struct _cl_command_queue*;
using cl_mem = struct _cl_mem*;
using cl_program = struct _cl_program*;
using cl_kernel = struct _cl_kernel*;
using cl_event = struct _cl_event*;

constexpr cl_int CL_SUCCESS = 0;
constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;
constexpr cl_uint CL_TRUE = 1;
constexpr cl_uint CL_PLATFORM_NAME = 0x0902;
constexpr cl_bitfield CL_DEVICE_TYPE_GPU = 1 << 2;
constexpr cl_bitfield CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;
constexpr cl_uint CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
constexpr cl_uint CL_DEVICE_MAX_WORK_ITEM_SIZES = 0x1005;
constexpr cl_uint CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;
constexpr cl_uint CL_DEVICE_SINGLE_FP_CONFIG = 0x101B;
constexpr cl_bitfield CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1 << 7;
constexpr cl_uint CL_DEVICE_NAME = 0x102B;
constexpr cl_uint CL_DRIVER_VERSION = 0x102D;
constexpr cl_uint CL_DEVICE_VERSION = 0x102F;
constexpr cl_uint CL_DEVICE_EXTENSIONS = 0x1030;
constexpr cl_bitfield CL_QUEUE_PROFILING_ENABLE = 1 << 1;
constexpr cl_bitfield CL_MEM_READ_WRITE = 1 << 0;
constexpr cl_uint CL_PROGRAM_BINARY_SIZES = 0x1165;
constexpr cl_uint CL_PROGRAM_BINARIES = 0x1166;
constexpr cl_uint CL_PROGRAM_BUILD_LOG = 0x1183;
constexpr cl_uint CL_PROFILING_COMMAND_START = 0x1282;
constexpr cl_uint CL_PROFILING_COMMAND_END = 0x1283;

// Entry points of the ICD loader (the subset used here).
struct Api {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id*, cl_uint*);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void*, size_t*);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void*, size_t*);
  cl_context (*CreateContext)(const intptr_t*, cl_uint, const cl_device_id*, void (*)(const char*, const void*, size_t, void*),
                              void*, cl_int*);
  cl_int (*ReleaseContext)(cl_context);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int*);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void*, cl_int*);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void*, cl_uint, const cl_event*, cl_event*);
  cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char**, const size_t*, cl_int*);
  cl_program (*CreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id*, const size_t*, const unsigned char**, cl_int*,
                                        cl_int*);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*), void*);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void*, size_t*);
  cl_int (*GetProgramInfo)(cl_program, cl_uint, size_t, void*, size_t*);
  cl_int (*ReleaseProgram)(cl_program);
  cl_kernel (*CreateKernel)(cl_program, const char*, cl_int*);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void*);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint,
                                 const cl_event*, cl_event*);
  cl_int (*WaitForEvents)(cl_uint, const cl_event*);
  cl_int (*GetEventProfilingInfo)(cl_event, cl_uint, size_t, void*, size_t*);
  cl_int (*ReleaseEvent)(cl_event);
  cl_int (*Finish)(cl_command_queue);
};

// The loaded API, or the reason it cannot be loaded ("OPENCL: libOpenCL.so.1 not found"). Loaded once.
const Api* api(std::string* why = nullptr);

// "CL_OUT_OF_RESOURCES (-5)" for the common codes, else the number.
std::string error_name(cl_int code);

} // namespace loupe::cl
