#include "graph/kernelgroups.h"


namespace loupe::views {

namespace {

// Runs shorter than this from alternating lines are merged (an output layer and its loss interleave).
constexpr int kSmallRun = 4;

// Appends what `to` does not hold yet, in order.
void addNew(QStringList& to, const QStringList& from) {
  for (const QString& s : from)
    if (!s.isEmpty() && !to.contains(s)) to << s;
}

void add(KernelGroup& g, const ScheduleKernel& k) {
  g.kernels << k.root;
  if (!g.lines.contains(k.line)) g.lines << k.line;  // an unknown line ("") is one of the lines too
  addNew(g.ops, {k.op});
}

// Consecutive kernels of one line, split where the run's first Tensor call comes round again after
// another one (the next iteration of a loop over layers).
QVector<KernelGroup> runsOfLines(const QVector<ScheduleKernel>& kernels) {
  QVector<KernelGroup> runs;
  QString firstOp;
  bool otherSeen = false;
  for (const ScheduleKernel& k : kernels) {
    const bool sameLine = !runs.isEmpty() && runs.last().lines.first() == k.line;
    const bool nextRound = sameLine && !firstOp.isEmpty() && k.op == firstOp && otherSeen;
    if (!sameLine || nextRound) {
      runs.append(KernelGroup{});
      firstOp = k.op;
      otherSeen = false;
    }
    otherSeen |= k.op != firstOp;
    add(runs.last(), k);
  }
  return runs;
}

} // namespace

QString KernelGroup::title() const {
  if (lines.isEmpty()) return {};
  QStringList shown;
  QString file;
  for (const QString& l : lines) {
    if (l.isEmpty()) continue;
    const qsizetype colon = l.lastIndexOf(u':');
    const QString f = colon > 0 ? l.left(colon) : l;
    shown << (shown.isEmpty() || f != file ? l : l.mid(colon + 1));  // "a.py:24, 41"
    file = f;
  }
  return shown.isEmpty() ? QStringLiteral("(no line)") : shown.join(QStringLiteral(", "));
}

QVector<KernelGroup> groupKernels(const QVector<ScheduleKernel>& kernels) {
  if (kernels.size() < kMinKernelsToGroup) return {};
  qsizetype withLine = 0;
  for (const ScheduleKernel& k : kernels) withLine += !k.line.isEmpty();
  if (withLine * 2 < kernels.size()) return {};

  const QVector<KernelGroup> runs = runsOfLines(kernels);
  QVector<KernelGroup> groups;
  for (qsizetype i = 0; i < runs.size(); i++) {
    const KernelGroup& run = runs[i];
    // Short runs merge where lines alternate: the run repeats a line of the group, or the next run
    // comes back to one. (Two runs of one line next to each other are a loop split in rounds: never
    // merged again.)
    const bool small = !groups.isEmpty() && groups.last().kernels.size() < kSmallRun && run.kernels.size() < kSmallRun;
    const bool alternates = small && runs[i - 1].lines.first() != run.lines.first() &&
                            (groups.last().lines.contains(run.lines.first()) ||
                             (i + 1 < runs.size() && groups.last().lines.contains(runs[i + 1].lines.first())));
    if (!alternates) {
      groups << run;
      continue;
    }
    KernelGroup& g = groups.last();
    g.kernels << run.kernels;
    for (const QString& l : run.lines)
      if (!g.lines.contains(l)) g.lines << l;
    addNew(g.ops, run.ops);
  }
  // About as many groups as kernels: the kernels themselves read as well.
  if (groups.size() * 5 > kernels.size() * 3) return {};
  return groups;
}

} // namespace loupe::views
