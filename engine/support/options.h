// The engine's switches (tinygrad's environment variables), read once from the environment and
// settable per run by the CLI and the app: DEBUG, NOOPT, BEAM, DEVICE, VIZ, LOUPE_TRACE, THREADS,
// COMPARE_NOOPT, HOTSPOTS, GPU_METRICS, TRAINING, NO_MEMORY_PLANNER, JIT, SCACHE, TRACE_INPUTS, TRACE_INPUT_DIGESTS,
// TRACE_INPUTS_OF.
#pragma once
#include <cstdint>
#include <string>

namespace loupe {

struct Options {
  int debug = 0;            // 1..7 as in tinygrad
  bool noopt = false;       // only required optimizations
  int beam = 0;             // BEAM=N search width (0: hand-coded heuristics)
  std::string device;       // default device ("" = first available, CPU)
  bool viz = false;         // record a trace and open it in Loupe at exit
  std::string trace_path;   // LOUPE_TRACE: write a trace here
  int threads = 0;          // CPU threads per kernel (0 = all cores)
  bool compare_noopt = false;  // COMPARE_NOOPT: also time each optimized kernel's NOOPT version once
  bool hotspots = false;       // HOTSPOTS: sample where each kernel spends its time (exec/kernel_sampling.h; CUDA: CUPTI's PC sampling)
  bool gpu_metrics = false;    // GPU_METRICS: a CUDA kernel's hardware metrics at its first launch (runtime/cuda/kernel_counters.h)
  bool training = false;    // TRAINING: dropout applies, BatchNorm normalizes with batch statistics
  bool no_memory_planner = false;  // NO_MEMORY_PLANNER: a schedule's or TinyJit step's buffers share no memory
  int jit = 1;                     // JIT: 0 a TinyJit runs its function every call, 1 replays (as one launch graph
                                   // where the device has them: CUDA graphs), 2 replays kernel by kernel
  bool schedule_cache = true;      // SCACHE=0: every realize schedules its graph anew (schedule/schedule_cache.h)
  bool layout_memo = true;         // LAYOUT_MEMO=0: layout copies of unchanged buffers run every time (exec/layout_memo.h)
  // TRACE_INPUTS: a trace keeps the buffers of each kernel's first run (for single-stepping it later) when
  // they hold at most this many bytes in all; 0 keeps none
  int trace_inputs = 1 << 20;
  // TRACE_INPUT_DIGESTS: of a kernel whose buffers are larger, a trace keeps their digest when they hold at
  // most this many bytes (a re-run of the program that captures them is checked against it)
  int64_t trace_input_digests = int64_t(256) << 20;
  // TRACE_INPUTS_OF: keep the buffers of the kernel with this AST key (KernelRecord::ast_key) whatever
  // their size, and stop the program there (InputsCaptured): a re-run that captures one kernel's inputs
  std::string trace_inputs_of;

  static Options from_env();
};

// The options in force for this process (initialized from the environment on first use).
Options& options();

} // namespace loupe
