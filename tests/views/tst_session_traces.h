// Real traces for the session, model and app tests, recorded in-process: the engine schedules,
// optimizes, renders and runs a few tensor programs on the CPU while a TraceSession records every
// rewrite, kernel and kernel run (the same path `loupe-cli run --trace` takes), plus a device peak
// record. Also a corrupt file for the bad-input tests.
#pragma once
#include <QByteArray>
#include <QFile>
#include <QString>

#include "tensor/tensor.h"
#include "trace/trace_session.h"

namespace session_traces {

// (a @ b).relu(), its row sums, and an elementwise kernel: a schedule context, several kernel
// contexts with dozens of matches, kernel runs, sources (opt and noopt) and buffer ShapeTrackers.
inline void recordMatmulTrace(const QString& path) {
  using namespace loupe;
  TraceWriterOptions opts;
  opts.count_attempts = true;  // the rule profiler's attempts column
  TraceSession& s = TraceSession::start(path.toStdString(), false, opts);
  s.writer().record_run_info({"example.py", "a = Tensor.arange(256).reshape(16, 16)\n...", {{"DEVICE", "CPU"}}});
  s.writer().record_peaks({"CPU", 120.0, 18.0});
  Tensor a = Tensor::arange(256).reshape({16, 16}).cast(dtypes::float32);
  Tensor b = Tensor::arange(256).reshape({16, 16}).cast(dtypes::float32) * 0.5;
  Tensor m = a.matmul(b).relu();
  m.realize();
  Tensor c = m.sum({1});
  c.realize();
  Tensor d = (c.reshape({4, 4}) * 2.0 + 1.0).max({0});
  d.realize();
  TraceSession::finish();
}

// A 64x64 half matmul (its factors realized first): the kernel a GPU target plans with its matrix unit.
inline void recordHalfMatmulTrace(const QString& path) {
  using namespace loupe;
  TraceSession::start(path.toStdString());
  Tensor a = (Tensor::arange(64 * 64).reshape({64, 64}).cast(dtypes::float32) * 0.001).cast(dtypes::float16).contiguous();
  Tensor b = (Tensor::arange(64 * 64).reshape({64, 64}).cast(dtypes::float32) * 0.002).cast(dtypes::float16).contiguous();
  a.matmul(b).realize();
  TraceSession::finish();
}

// sum(exp(x - max(x))): one kernel whose reduce nests another, so its context starts with small
// "nested reduce index" passes before the lowerer sees the whole kernel.
inline void recordNestedReduceTrace(const QString& path) {
  using namespace loupe;
  TraceSession::start(path.toStdString(), false, {});
  Tensor x = Tensor::arange(32).cast(dtypes::float32);
  (x - x.max()).exp().sum().realize();
  TraceSession::finish();
}

// A file with Loupe's trace header bytes cut short and garbage after them.
inline void writeCorruptTrace(const QString& path, const QString& validTrace) {
  QFile in(validTrace);
  in.open(QIODevice::ReadOnly);
  QByteArray bytes = in.read(4096);  // the first page only: the header is right, every table is gone
  bytes += QByteArray(3000, '\x5a');
  QFile out(path);
  out.open(QIODevice::WriteOnly | QIODevice::Truncate);
  out.write(bytes);
}

} // namespace session_traces
