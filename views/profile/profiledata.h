// Input of the Profile panel (kernel runs and device peaks, as plain values the main window fills
// from a trace) and the derived data every profile view shares: per-kernel totals, device lanes
// with their runs in time order, the trace's time span. Built once per input; read-only after.
#pragma once
#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace loupe::views {

// One timed execution of a compiled kernel.
struct ProfileRun {
  qint64 kernelId = -1; // the trace's kernel id; runs of one compiled kernel share it (-1: unknown)
  QString name;         // kernel name, e.g. "r_16_16_16_4_4_4"
  QString device;       // e.g. "CPU", "CUDA"
  QString opts;         // applied opts, as text ("" for none)
  qint64 startNs = 0;   // on the trace's clock
  qint64 durationNs = 0;
  double flops = 0; // estimated FLOPs of this run
  double bytes = 0; // estimated memory bytes of this run (GB/s and arithmetic intensity use it)
  // A kernel with symbolic shapes: the values this run bound to its variables, in parameter order.
  QList<QPair<QString, qint64>> vars;
};

// "start_pos=42, j=3": a run's variable values.
QString formatRunVars(const QList<QPair<QString, qint64>>& vars);

// The values a symbolic kernel's runs bound, per variable in parameter order: "start_pos 8..70, j=3".
class VariableRanges {
public:
  void add(const QString& name, qint64 value);
  QString text() const;

private:
  QList<QPair<QString, QPair<qint64, qint64>>> ranges_;
};

// A device's measured limits, the roofs of the roofline chart.
struct DevicePeak {
  QString device;
  double peakGflops = 0;   // compute peak
  double bandwidthGbs = 0; // memory bandwidth
};

// A TinyJit call: the capture of a step's kernels, or a replay of them.
struct JitCall {
  bool capture = false;
  QString name, device;
  qint64 startNs = 0, durationNs = 0;
  qint64 kernels = 0;
  qint64 unplannedBytes = 0, plannedBytes = 0;  // a capture's internal buffers without and with the planner
};

// The compiler at work: scheduling a realize, or planning, optimizing and rendering one kernel (a
// trace's top-level context), with its rewrite passes and matches.
struct CompileSpan {
  QString name, kind;  // kind: "schedule", "kernel", ...
  qint64 startNs = 0, durationNs = 0;
  qint64 passes = 0, matches = 0;
  QString slowestPass;  // the pass that took longest, and how long
  qint64 slowestPassNs = 0;
};

// A Tensor op the user's program called (the outermost, from Python), with the line that called it.
struct TensorCallSpan {
  QString op, file, function;
  int line = 0;
  qint64 startNs = 0, durationNs = 0;
};

struct ProfileInput {
  QList<ProfileRun> runs;
  QList<DevicePeak> peaks;
  QList<JitCall> jitCalls;          // by start time; the timeline shows them in a row of their own
  QList<CompileSpan> compileSpans;  // by start time; a row of their own above the TinyJit calls
  QList<TensorCallSpan> tensorCalls;  // by start time; the top row ("Python")
};

// Totals of one kernel over all its runs. Kernels with kernelId -1 are told apart by name and device.
struct KernelStats {
  qint64 kernelId = -1;
  QString name, device, opts;
  int runs = 0;
  qint64 totalNs = 0;
  double flops = 0, bytes = 0; // summed over runs
  double share = 0;            // of all kernel time, 0..1
  QString variables;           // a symbolic kernel's values over its runs: "start_pos 8..70" ("" for none)

  double seconds() const { return double(totalNs) * 1e-9; }
  double gflops() const { return totalNs > 0 ? flops / double(totalNs) : 0; } // flop/ns = GFLOP/s
  double gbs() const { return totalNs > 0 ? bytes / double(totalNs) : 0; }
  double intensity() const { return bytes > 0 ? flops / bytes : 0; } // FLOP per byte
};

class ProfileData {
public:
  static std::shared_ptr<const ProfileData> build(ProfileInput input);

  const ProfileInput& input() const { return input_; }
  const std::vector<KernelStats>& kernels() const { return kernels_; } // in order of first run
  const QStringList& devices() const { return devices_; }              // one timeline lane each
  // Run indices of a lane, sorted by start time.
  const std::vector<int>& laneRuns(int lane) const { return laneRuns_[size_t(lane)]; }
  int laneOfRun(int run) const { return runLane_[size_t(run)]; }
  int kernelOfRun(int run) const { return runKernel_[size_t(run)]; }
  // Index into kernels() of a kernel id, or -1.
  int kernelIndexForId(qint64 kernelId) const;
  // Index into kernels() by name (and device when given), or -1. The first match wins.
  int kernelIndexForName(const QString& name, const QString& device = {}) const;
  const DevicePeak* peakFor(const QString& device) const;
  // Longest single run of a lane, for searching runs that overlap a time.
  qint64 laneMaxDuration(int lane) const { return laneMaxDuration_[size_t(lane)]; }

  qint64 startNs() const { return start_; }
  qint64 endNs() const { return end_; }
  qint64 totalKernelNs() const { return total_; }

private:
  ProfileInput input_;
  std::vector<KernelStats> kernels_;
  QStringList devices_;
  std::vector<std::vector<int>> laneRuns_;
  std::vector<qint64> laneMaxDuration_;
  std::vector<int> runLane_, runKernel_;
  qint64 start_ = 0, end_ = 0, total_ = 0;
};

// A stable, readable colour per kernel name (hue from the name) and per device lane.
QColor kernelColour(const QString& name, bool dark);
QColor deviceColour(int index, bool dark);
QColor jitCallColour(bool capture, bool dark);

} // namespace loupe::views
