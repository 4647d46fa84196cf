// Plain data execution hands to its observer (observe/observer.h), the trace writer, and the trace reader
// gives back: kernels, profile events, device peaks, run settings. No codegen types: opts, sources and
// ShapeTrackers are text.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/metadata.h"
#include "ir/uop.h"
#include "support/hash.h"

namespace loupe {

struct KernelSource {
  std::string backend;          // renderer/device family: "C", "CUDA", "OpenCL", "Metal", "LLVM"
  std::string variant = "opt";  // "opt" (what ran) or "noopt" (the same kernel without optimizations)
  std::string text;
};

// A disassembly of a kernel made where it ran (a GPU kernel's SASS, by the machine's ptxas and nvdisasm)
// and kept with its samples: a reader without that GPU's tools lays the samples over it.
struct RecordedListing {
  std::string kind, title, how;   // as inspect/machine_code.h's MachineListing
  std::vector<std::string> lines;
  std::vector<int> source_lines;  // per line: the kernel source line (1-based), 0 none
};

// One buffer the kernel touches, with the ShapeTracker of its access.
struct BufferAccess {
  int index = 0;         // position in the kernel's argument list
  std::string name;      // e.g. "data0"
  std::string access;    // "load", "store" or "load+store"
  std::string dtype;     // element type, e.g. "float32"
  std::string st_text;   // the ShapeTracker, readable (its str())
  std::string st_kind;   // ArgObject kind of the exact form ("" when there is none)
  std::string st_code;   // ArgObject::encode() of the ShapeTracker
  // Fills st_text/st_kind/st_code from an engine object (e.g. the ShapeTracker carried as a VIEW arg).
  void set_shapetracker(const ArgObject& st) {
    st_text = st.str();
    st_kind = st.kind();
    st_code = st.encode();
  }
};

// One kernel BEAM timed while searching a kernel's opts: its opts, the round it came in (0: the kernel
// without opts and the hand-coded one), its best run, the wall time of rendering, compiling and timing
// it, and what happened ("timed", "same source as an earlier candidate", "failed: ..."); the one
// chosen is marked.
struct BeamCandidate {
  std::vector<std::string> opts;
  int round = 0;
  double seconds = 0;       // best run; +infinity when it failed
  double wall_seconds = 0;
  std::string status;
  bool chosen = false;
};

struct KernelRecord {
  std::string name;                       // e.g. "r_16_16_4" (plain, no colour codes)
  std::string device;                     // e.g. "CPU"
  int64_t context_id = -1;                // -1: the innermost open context of the writer
  UOpPtr ast;                             // the kernel's AST (a SINK) with its opts' views, may be null
  UOpPtr scheduled_ast;                   // the AST as scheduled, before any opt (to plan it again), may be null
  std::vector<std::string> opts;          // applied opts, e.g. "Opt(op=OptOps.UPCAST, axis=0, arg=4)"
  std::vector<int64_t> global_size, local_size;
  std::vector<KernelSource> sources;      // per backend, opt and noopt
  std::vector<BufferAccess> buffers;
  int64_t flops = 0;                      // Estimates: operations
  int64_t lds = 0;                        //            bytes loaded and stored (re-reads included)
  int64_t mem = 0;                        //            unique memory bytes
  std::vector<Metadata> provenance;       // the tensor ops it computes and the user's lines behind them
  // The optimizer's kind of each axis of the kernel's name, in order: "global", "local", "group",
  // "reduce", "upcast", "unroll" (codegen's axis_kind_name); empty when unknown.
  std::vector<std::string> axis_kinds;
  bool dont_use_locals = false;           // NOLOCALS: the global axes run without work-groups
  // The scheduled AST's key (before any opt): the same kernel has the same key in any run, whatever
  // its opts, backend or name ("" when unknown).
  std::string ast_key;
  std::vector<BeamCandidate> beam;        // BEAM's candidates, when a search ran for this kernel
};

// The memory planner's choice for one buffer used only inside a captured step: the allocation it
// shares, and the kernels of the step (by index) between which it is alive.
struct MemoryShare {
  int64_t buffer = 0;  // the buffer's own allocation (Buffer::id), released once it is planned
  int64_t shared = 0;  // the allocation it uses in every replay (Buffer::id)
  int64_t first_kernel = 0, last_kernel = 0;
};

// A Tensor op the user's program called (the outermost one, from Python): its provenance and when it
// ran, on the observer's clock. Lazy ops take microseconds; realizing ones (numpy, item, backward,
// an optimizer's step) enclose the compiling and the kernels they caused.
struct TensorCall {
  uint32_t metadata = 0;  // ir/metadata.h
  int64_t start_ns = 0, end_ns = 0;
};

// One timed execution of a compiled kernel.
struct KernelRun {
  std::string device;
  std::string name;             // kernel name as printed
  int64_t kernel_id = -1;       // from record_kernel, -1 if unknown
  int64_t start_ns = 0;         // on the writer's clock (TraceWriter::now_ns)
  int64_t duration_ns = 0;
  int64_t flops = 0, mem = 0, lds = 0;
  int args = 0;                 // buffers passed
  // "kernel": a run of the program; "compare_opt" / "compare_noopt": the optimized kernel and its NOOPT
  // version timed side by side on scratch buffers (COMPARE_NOOPT), not part of the program's timeline;
  // "jit_capture" / "jit_replay": a TinyJit call that captured or replayed a step (args: its kernels;
  // a capture's mem: the step's internal buffers' bytes without the planner, lds: with it)
  std::string kind = "kernel";
  std::vector<int64_t> writes = {}, reads = {};  // the runtime buffers it wrote and read (Buffer::id)
  std::vector<MemoryShare> plan = {};            // jit_capture: the memory planner's sharing
  // kernel runs of a kernel with symbolic shapes: each variable's value in this run, in parameter order
  std::vector<std::pair<std::string, int64_t>> var_vals = {};
};

// What a kernel's buffers held just before its first recorded run (parameter order, raw bytes), so a
// trace can re-run it later (single-stepping on the interpreter). Kept only up to a size limit.
// A node of the scheduler's graph that becomes a kernel (or a copy), and that kernel's AST key
// (KernelRecord::ast_key; "" for a copy): lets a viewer collapse the schedule graph by kernel.
struct ScheduleRoot {
  UOpPtr node;
  std::string ast_key;
};

struct KernelInputs {
  int64_t kernel_id = -1;
  std::vector<std::string> buffers;  // bytes of each buffer
};

// The digest of a kernel's input buffers (their bytes, in parameter order): a trace keeps it for kernels
// too large to keep, so a re-run that captures them can be checked against the recorded run.
// Four independent multiply-fold lanes over 32-byte blocks, so hashing runs near memory speed (a trace
// digests every kernel's inputs up to TRACE_INPUT_DIGESTS bytes).
class InputDigest {
public:
  // Whether parameter `position` of a kernel counts: not data0, the output, whose bytes before the
  // kernel writes it are whatever its memory held (a buffer it also reads is another parameter).
  static bool covers(size_t position) { return position != 0; }
  void add(const std::string& buffer);  // the next parameter's bytes ("" for one not covered)
  std::string hex() const;  // 32 hex digits

private:
  uint64_t lanes_[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
  uint64_t bytes_ = 0;
};

struct BufferAlloc {
  std::string device;
  int64_t buffer = 0;           // the runtime's buffer id
  int64_t bytes = 0;
  int64_t ts_ns = 0;
  std::string what;             // e.g. the dtype and element count, free text
};

struct BufferFree {
  std::string device;
  int64_t buffer = 0;
  int64_t bytes = 0;            // the size being released
  int64_t ts_ns = 0;
};

struct BufferCopy {
  std::string src_device, dst_device;
  int64_t bytes = 0;
  int64_t start_ns = 0, duration_ns = 0;
  std::string name;             // as printed, e.g. "copy 4096, CPU <- PYTHON"
};

struct DevicePeaks {
  std::string device;
  double peak_gflops = 0;       // measured compute peak (FP32 FMA)
  double bandwidth_gbs = 0;     // measured copy bandwidth
};

struct RunInfo {
  std::string script_path;
  std::string script;           // the script text as run
  std::vector<std::pair<std::string, std::string>> settings;  // e.g. {"DEVICE","CPU"}, {"NOOPT","0"}, {"BEAM","0"}
};

} // namespace loupe
