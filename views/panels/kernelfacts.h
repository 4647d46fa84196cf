// Facts about a recorded kernel the kernel panels show: short opt text, its mean run time, the
// Compare panel's input and its NOOPT version's name.
#pragma once
#include <QString>

#include "code/comparesummary.h"
#include "trace/trace_reader.h"

namespace loupe::views {

struct TraceSnapshot;

// "Opt(op=OptOps.UPCAST, axis=0, arg=4)" -> "UPCAST(axis=0, arg=4)".
QString shortOptText(const std::string& opt);
// The kernel's runs in the trace's profile: mean seconds, or NaN without runs.
double meanRunSeconds(const TraceSnapshot& trace, int64_t kernelId);
// A symbolic kernel's variables as its runs bound them ("start_pos 8..70, j=3"); "" for other kernels.
QString runVariables(const TraceSnapshot& trace, int64_t kernelId);
// The Compare panel's input for a kernel (its opt and noopt sources, opts, dims, time and estimates).
CompareInput compareInputFor(const loupe::TraceKernel& kernel, const TraceSnapshot& trace);
// The NOOPT version's name: from the timed comparison, else from its rendered source's function.
QString nooptKernelName(const loupe::TraceKernel& kernel, const TraceSnapshot& trace);

} // namespace loupe::views
