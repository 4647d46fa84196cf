// Single-stepping one kernel on the interpreter: re-run its linearized program on its real inputs and
// record, UOp by UOp, how one output element was computed (loops with their iteration, the
// accumulator per iteration, each load's address and whether its gate blocked it, the final store).
// And "first divergence": the same element computed by two programs (optimized and NOOPT, or two
// targets), matched value by value, to find where a wrong number starts.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/pipeline.h"
#include "runtime/interp/linear_program.h"
#include "trace/trace_reader.h"

namespace loupe {

struct SteppedUOp {
  int uop = 0;                            // position in the program's list
  int64_t item = 0;                       // the work-item that ran it
  std::vector<interp::Lane> lanes;        // its value after it ran (a STORE: the value stored)
  std::vector<std::pair<int, int64_t>> loops;  // (RANGE position, iteration) of the loops around it
  std::optional<interp::MemoryAccess> access;  // loads and stores
  std::vector<char> depends;  // per lane: the stored element depends on it (dependency_slice)
  // Some lane of it matters for the element (a vector kernel computes a whole tile per iteration).
  bool relevant() const {
    return std::any_of(depends.begin(), depends.end(), [](char c) { return c != 0; });
  }
};

struct KernelStepping {
  std::string kernel;       // name
  std::string variant;      // "optimized" / "noopt" (or the caller's label), " for CUDA" on another target
  bool noopt = false;       // a recorded kernel's NOOPT version (step_trace_kernel)
  bool other_target = false;  // planned for a target it did not run on: in none of the trace's graphs
  std::string target;       // the interpreter's target: "CPU", "CUDA", "OPENCL"
  UOpList program;          // the linearized UOps that ran
  int output = 0;           // DEFINE_GLOBAL index of the buffer stepped
  int64_t element = 0;      // the element of it
  int64_t item = 0;         // the work-item that stored it
  // The steps of that work-item; for a kernel whose groups run in step (local memory, barriers, tensor
  // cores) those of every item of its group, in the order they ran, since its value is made by all.
  std::vector<SteppedUOp> steps;
  int64_t group_items = 1;  // work-items per group recorded (1: the storing item's steps only)
  bool truncated = false;   // more steps than the limit: the first ones are kept
  DType dtype;              // the element's dtype and its value after the kernel
  interp::Lane value{};
  // The program as the target's own renderer writes it (C, LLVM IR, CUDA, OpenCL: the code the
  // compiled kernel ran), and per UOp of `program` its 1-based line there (0: none).
  std::string source;
  std::vector<int> source_lines;
  std::string note;  // where the inputs came from when not from the trace (a re-run), for the user
};

struct StepRequest {
  int output = -1;          // DEFINE_GLOBAL index to step (-1: the first buffer the kernel writes)
  int64_t element = 0;
  size_t max_steps = 200000;
  // A kernel with symbolic shapes: its variables' values by name; one not given takes the value of the
  // kernel's first recorded run (whose inputs the trace kept).
  VarValues vars;
};

// Runs `program` on a copy of `buffers` (bytes per parameter, in parameter order) and records the work
// of the work-item and loop iteration that store the element. loupe::Error when the element is out of
// range or no store writes it.
KernelStepping step_program(const interp::LinearProgram& program, std::vector<std::string> buffers, const StepRequest& request,
                            const std::vector<int64_t>& vars = {});

// Which program of a recorded kernel to step: as it ran (the recorded opts, for its device's target),
// its NOOPT version, or as the heuristics plan it for another target (e.g. a CPU kernel planned for
// CUDA: locals, GROUP reduces, tensor cores), optimized or not.
struct StepVariant {
  bool noopt = false;
  std::string target;  // "": the target of the device it ran on; else "CPU", "LLVM", "CUDA", "OPENCL"
};

struct RerunInputs;

// A trace's kernel planned again as step_trace_kernel plans it (no inputs needed): its linearized
// program, and that program as the target's renderer writes it with each UOp's line (what the Code
// panel maps a source line back to UOps with).
struct TraceKernelProgram {
  KernelPlan plan;
  std::string target, variant;  // as KernelStepping names them
  bool other_target = false;
  RendererCaps spelled_as;      // the caps the interpreter rounds like
  std::string source;
  std::vector<int> source_lines;  // per UOp of plan.linear
};
TraceKernelProgram plan_trace_kernel(TraceReader& reader, int64_t kernel_id, const StepVariant& variant = {});

// A trace's kernel (by id), re-planned for the interpreter (its AST with its recorded opts, or with none
// for noopt, for its device's target) and stepped on the buffers the trace kept of its first run, or
// on `rerun`'s (kernel_rerun.h) where given. loupe::Error saying why when there are none (TRACE_INPUTS)
// or the kernel cannot be rebuilt.
KernelStepping step_trace_kernel(TraceReader& reader, int64_t kernel_id, const StepRequest& request, const StepVariant& variant = {},
                                 const RerunInputs* rerun = nullptr);
// The kernel id of a name or a number given on the command line; Error listing a few names if unknown.
int64_t find_trace_kernel(TraceReader& reader, const std::string& name_or_id);

struct Divergence {
  enum class Kind { none, address, value, computation, result };
  Kind kind = Kind::none;
  size_t step_a = SIZE_MAX, step_b = SIZE_MAX;  // in a.steps / b.steps (SIZE_MAX: none)
  int lane = 0;
  std::string explanation;
};

// The first place where two steppings of the same element part ways: a load of an element the other run
// never reads for it (address), the same computation with different bits (value), or, when the results
// differ, the first data value the other run never computes (computation). Values are matched by what
// they compute (the loaded elements and constants they combine, sums as multisets), so optimized and
// NOOPT programs compare although their UOps differ.
// Both steppings come from step_program (their steps carry the dependency slice).
Divergence first_divergence(const KernelStepping& a, const KernelStepping& b);
// "none", "address", "value", "computation", "result"
const char* divergence_kind_name(Divergence::Kind kind);

// Per step and lane: whether the stepped element's final store depends on it (a backward slice through
// values, accumulators, addresses and memory written earlier in the same run).
std::vector<std::vector<char>> dependency_slice(const KernelStepping& s);

// relevant_only: the steps the element depends on (a vector kernel computes a whole tile per iteration).
std::string format_stepping(const KernelStepping& s, size_t max_lines = 400, bool relevant_only = false);
std::string format_divergence(const Divergence& d, const KernelStepping& a, const KernelStepping& b);
// One line for a step: "  17 LOAD float  data1[42] = 0.5   (ridx0=3, ridx1=7)".
std::string describe_step(const KernelStepping& s, const SteppedUOp& step);

} // namespace loupe
