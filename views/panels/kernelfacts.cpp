#include "panels/kernelfacts.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>

#include "inspect/machine_code.h"
#include "profile/profiledata.h"
#include "session/session.h"

namespace loupe::views {

QString shortOptText(const std::string& opt) {
  static const QRegularExpression re(QStringLiteral("^Opt\\(op=OptOps\\.([A-Z_]+),\\s*(.*)\\)$"));
  const QString s = QString::fromStdString(opt);
  const auto m = re.match(s);
  return m.hasMatch() ? QStringLiteral("%1(%2)").arg(m.captured(1), m.captured(2)) : s;
}

double meanRunSeconds(const TraceSnapshot& trace, int64_t kernelId) {
  int64_t n = 0, ns = 0;
  for (const loupe::TraceEvent& e : trace.profile)
    if (e.kind == "kernel" && e.kernel_id == kernelId) {
      n++;
      ns += e.duration_ns;
    }
  return n > 0 ? double(ns) * 1e-9 / double(n) : std::numeric_limits<double>::quiet_NaN();
}

QString runVariables(const TraceSnapshot& trace, int64_t kernelId) {
  VariableRanges ranges;
  for (const loupe::TraceEvent& e : trace.profile)
    if (e.kind == "kernel" && e.kernel_id == kernelId)
      for (const auto& [name, value] : e.var_vals) ranges.add(QString::fromStdString(name), value);
  return ranges.text();
}

CompareInput compareInputFor(const loupe::TraceKernel& k, const TraceSnapshot& trace) {
  CompareInput in;
  in.device = QString::fromStdString(k.device);
  auto fill = [&](KernelVariant& v, const char* variant) {
    const loupe::KernelSource* src = k.source(variant);
    v.name = QString::fromStdString(k.name);
    if (src) {
      v.source = QString::fromStdString(src->text);
      v.language = languageForBackend(QString::fromStdString(src->backend));
    }
    v.flops = double(k.flops);
    v.bytes = double(std::min(k.mem, k.lds > 0 ? k.lds : k.mem));
  };
  fill(in.optimized, "opt");
  fill(in.noopt, "noopt");
  for (const std::string& o : k.opts) in.optimized.opts << shortOptText(o);
  for (int64_t g : k.global_size) in.optimized.globalSize << g;
  for (int64_t l : k.local_size) in.optimized.localSize << l;
  in.optimized.seconds = meanRunSeconds(trace, k.id);
  // A run with COMPARE_NOOPT timed both versions the same way (best of a few runs on scratch
  // buffers): that pair gives the speed-up. Without it the NOOPT time stays unknown (NaN).
  for (const loupe::TraceEvent& e : trace.profile) {
    if (e.kernel_id != k.id || (e.kind != "compare_opt" && e.kind != "compare_noopt")) continue;
    KernelVariant& v = e.kind == "compare_opt" ? in.optimized : in.noopt;
    v.seconds = double(e.duration_ns) * 1e-9;
    v.name = QString::fromStdString(e.name);
    v.flops = double(e.flops);
    v.bytes = double(e.lds > 0 ? std::min(e.mem, e.lds) : e.mem);
  }
  return in;
}

QString nooptKernelName(const loupe::TraceKernel& kernel, const TraceSnapshot& trace) {
  const CompareInput in = compareInputFor(kernel, trace);
  if (!in.noopt.name.isEmpty() && in.noopt.name != QString::fromStdString(kernel.name)) return in.noopt.name;
  // Without a timed comparison the name is the rendered function's.
  if (const loupe::KernelSource* s = kernel.source("noopt")) return QString::fromStdString(loupe::kernel_function_name(s->text, kernel.name));
  return QString::fromStdString(kernel.name);
}

} // namespace loupe::views
