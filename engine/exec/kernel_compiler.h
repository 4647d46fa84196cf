// Schedule items to compiled kernels: each kernel planned (the hand-coded heuristics, BEAM's candidates
// timed on the device, or no opts with NOOPT), recorded in the trace with its NOOPT version, compiled,
// and cached per device, NOOPT/BEAM setting and AST for the rest of the process. Running them is
// exec/realize.h's.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codegen/beam_search.h"
#include "codegen/estimates.h"
#include "codegen/pipeline.h"
#include "runtime/program.h"
#include "schedule/schedule.h"

namespace loupe {

class Device;

struct CompiledKernel {
  KernelPlan plan;
  std::shared_ptr<const KernelPlan> noopt_plan;  // the same kernel without opts (traces, COMPARE_NOOPT)
  std::shared_ptr<Program> program;
  int64_t trace_kernel_id = -1;
  bool noopt_compared = false;  // COMPARE_NOOPT: its NOOPT version was timed
  std::vector<BeamCandidate> beam;  // BEAM's candidates (a search that ran, not a cached choice)
  std::shared_ptr<const EstimatesByVars> estimates_by_vars;  // a kernel with variables: its costs at each run's values
};

// The device a schedule item runs on (its output buffer's).
Device& item_device(const ScheduleItem& item);
// The item's kernel: the cached one, else planned (recorded in the trace when one is open) and compiled.
std::shared_ptr<CompiledKernel> compiled_kernel(const ScheduleItem& item, Device& dev);
// Compiling is most of a CPU kernel's first run: a schedule's new kernels are planned in order (as the
// trace records them) and then compiled side by side on the CPU thread pool (one compiler per thread),
// before the first runs. A compiler's error is raised for the first failing kernel in
// schedule order, as compiling one by one would.
void compile_ahead(const Schedule& schedule);
// The NOOPT version of an optimized kernel (once; none for a kernel without opts); its rewrites go to a
// context of their own (inside the kernel's when one is open).
void plan_noopt(CompiledKernel& ck, Device& dev);

// Forgets the kernels compiled in this process, so the next run plans them again (and a trace records
// their rewrites); compiled objects stay in the device's on-disk cache. For benchmarks and tests.
void clear_kernel_cache();

} // namespace loupe
