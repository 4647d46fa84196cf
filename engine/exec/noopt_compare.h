// Optimized against NOOPT, kernel by kernel: with COMPARE_NOOPT (or `loupe-cli run --compare-noopt`)
// the engine also compiles each optimized kernel without optimizations and times both versions the
// same way (best of a few runs, on scratch copies of the buffers they write), so the two timings come
// from the same inputs and the program's own results are untouched. The comparisons are kept for the
// CLI to print and go into the trace as profile events of kinds "compare_opt" and "compare_noopt".
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codegen/pipeline.h"
#include "ir/eval.h"

namespace loupe {

class Buffer;
class Device;
class Program;

struct NooptComparison {
  std::string device;
  std::string name;                       // the optimized kernel's name
  std::string noopt_name;                 // the NOOPT kernel's name (axes differ)
  std::vector<std::string> opts;          // opts of the optimized kernel
  double opt_seconds = 0, noopt_seconds = 0;
  std::string opt_source, noopt_source;
};

// Compiles `noopt` (the NOOPT plan of the same kernel), then times `opt_program` and it with `buffers`
// (one per DEFINE_GLOBAL, as the optimized run had them; writable ones are replaced by scratch
// copies) and the values of the kernel's variables by name (symbolic shapes). Records the two timings
// for `trace_kernel_id` when a trace is being written.
NooptComparison compare_with_noopt(const KernelPlan& opt, Program& opt_program, const KernelPlan& noopt, Device& dev,
                                   const std::vector<std::shared_ptr<Buffer>>& buffers, int64_t trace_kernel_id,
                                   const VarValues& vars = {});

// A header line (names, opts, both timings, the speed-up) and the two sources in columns of
// `column_width` characters (longer lines are cut with a '>' marker), optimized on the left.
std::string format_comparison(const NooptComparison& c, int column_width = 80);

// The comparisons made so far in this process, in run order; taking them clears the list.
std::vector<NooptComparison> take_noopt_comparisons();
// Kernels compiled while comparing that had no opts applied (nothing to compare: they are their own
// NOOPT version), so a report of zero comparisons can say why; taking the count clears it.
void note_kernel_without_opts();
size_t take_kernels_without_opts();

} // namespace loupe
