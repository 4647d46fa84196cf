// Input of the Compare panel and the pure logic behind it: the speed-up, the header texts and the
// rows each side shows (aligned, with filler rows) built from a line alignment.
#pragma once
#include <QList>
#include <QString>
#include <QStringList>

#include <limits>

#include "code/codeview.h"
#include "code/linediff.h"

namespace loupe::views {

// One compiled version of a kernel, as the trace records it. Unknown numbers are NaN.
struct KernelVariant {
  QString name;   // function name, e.g. "r_16_16_16_4_4_4"
  QString source; // rendered source
  SourceLanguage language = SourceLanguage::C;
  QStringList opts;         // applied opts in order, e.g. "UPCAST(axis=1, arg=4)"; empty for NOOPT
  QList<qint64> globalSize; // launch dimensions; empty = not launched on a grid
  QList<qint64> localSize;  // empty = no local size (CPU-style backends)
  double seconds = std::numeric_limits<double>::quiet_NaN(); // measured run time
  double flops = std::numeric_limits<double>::quiet_NaN();   // estimated FLOPs of one run
  double bytes = std::numeric_limits<double>::quiet_NaN();   // estimated memory bytes of one run

  double gflops() const { return flops / seconds * 1e-9; }
  double gbs() const { return bytes / seconds * 1e-9; }
};

struct CompareInput {
  QString device; // e.g. "CPU", "CUDA"
  KernelVariant noopt, optimized;
};

// NOOPT time / optimized time (> 1: the optimized kernel is faster); NaN when a time is missing.
double compareSpeedup(const CompareInput& input);
// "5.52× faster", "1.00× (same)", "0.80× (slower)", or "speed-up unknown".
QString formatSpeedup(double speedup);
// Why the speed-up is unknown, and how to get it (a run without --compare-noopt times only the
// optimized kernel); empty when it is known or no kernel is shown.
QString speedupUnknownReason(const CompareInput& input);
// "global [16, 16] · local [8, 16]" / "global [4096] · no local size" / "not launched".
QString formatLaunchDims(const QList<qint64>& global, const QList<qint64>& local);
// "21.0 µs · 25.3 GFLOPS · 25.7 GB/s".
QString formatVariantMetrics(const KernelVariant& v);

struct CompareRows {
  QList<CodeRow> left, right; // equally long: row i of both sides is one aligned row
  QList<int> hunkStarts;      // row indices where a run of changes begins (for next/previous change)
};
// Left shows `left` lines, right shows `right` lines, both numbered from 1; a side with no line in
// a row gets an empty Filler row.
CompareRows buildCompareRows(const LineAlignment& alignment, const QStringList& left, const QStringList& right);

} // namespace loupe::views
