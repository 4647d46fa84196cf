#include "panels/sessionprofilepanel.h"

#include <QHelpEvent>
#include <QTableView>
#include <QToolTip>
#include <algorithm>

#include "memory/memorydata.h"
#include "panels/apppalette.h"
#include "panels/kernelfacts.h"
#include "panels/kernelnamedelegate.h"
#include "profile/kerneltablemodel.h"
#include "session/session.h"

namespace loupe::views {

namespace {
// The trace's top-level contexts (a schedule, a kernel's planning) as compile spans: what the compiler
// did when, next to the kernels it produced.
QList<CompileSpan> compileSpansOf(const TraceSnapshot& t) {
  QList<CompileSpan> out;
  for (const loupe::TraceContext& c : t.contexts) {
    if (c.parent_id >= 0 || c.end_ns < c.start_ns) continue;
    CompileSpan s;
    s.name = QString::fromStdString(c.name);
    s.kind = QString::fromStdString(c.kind);
    s.startNs = c.start_ns;
    s.durationNs = c.end_ns - c.start_ns;
    s.passes = c.pass_count;
    s.matches = c.match_count;
    for (const loupe::TracePass* p : t.passesOf(c.id))
      if (p->end_ns >= p->start_ns && p->end_ns - p->start_ns > s.slowestPassNs) {
        s.slowestPassNs = p->end_ns - p->start_ns;
        s.slowestPass = QString::fromStdString(p->name);
      }
    out << s;
  }
  std::stable_sort(out.begin(), out.end(), [](const CompileSpan& a, const CompileSpan& b) { return a.startNs < b.startNs; });
  return out;
}
} // namespace

SessionProfilePanel::SessionProfilePanel(Session* session, QWidget* parent) : ProfileView(parent), session_(session) {
  connect(session_, &Session::loaded, this, &SessionProfilePanel::sync);
  connect(session_, &Session::updated, this, &SessionProfilePanel::sync);
  connect(session_, &Session::closed, this, &ProfileView::clear);
  connect(session_, &Session::kernelChanged, this, [this](qint64 id) {
    if (syncingKernel_) return;
    syncingKernel_ = true;
    selectKernel(id);
    syncingKernel_ = false;
  });
  // a kernel picked in the table, roofline or timeline is picked everywhere
  connect(this, &ProfileView::kernelSelected, this,
          [this](qint64 id, const QString& name, const QString&) { selectKernelOfPanel(id, name); });
  table()->setItemDelegateForColumn(KernelTableModel::NameColumn,
                                    new KernelNameDelegate(
                                        [this](const QModelIndex& i) -> std::optional<KernelNameParts> {
                                          const qint64 id = i.data(KernelTableModel::KernelIdRole).toLongLong();
                                          if (!session_->trace().kernelNames.contains(id)) return std::nullopt;
                                          return session_->trace().kernelNames.value(id);
                                        },
                                        table()));
  table()->viewport()->installEventFilter(this);
}

void SessionProfilePanel::selectKernelOfPanel(qint64 id, const QString& name) {
  if (syncingKernel_) return;
  syncingKernel_ = true;
  if (session_->trace().kernel(id)) session_->selectKernel(id);
  else
    for (const loupe::TraceKernel& k : session_->trace().kernels)
      if (QString::fromStdString(k.name) == name) {
        session_->selectKernel(k.id);
        break;
      }
  // the table follows even when it was the one that asked (its own selection is already this kernel)
  selectKernel(session_->selection().kernel);
  syncingKernel_ = false;
}

void SessionProfilePanel::sync() {
  const TraceSnapshot& t = session_->trace();
  ProfileInput in;
  for (const loupe::TraceEvent& e : t.profile) {
    if (e.kind != "kernel") continue;
    ProfileRun r;
    r.kernelId = e.kernel_id;
    r.name = QString::fromStdString(e.name);
    r.device = QString::fromStdString(e.device);
    if (const loupe::TraceKernel* k = t.kernel(e.kernel_id)) {
      QStringList opts;
      for (const std::string& o : k->opts) opts << shortOptText(o);
      r.opts = opts.join(QStringLiteral(", "));
    }
    r.startNs = e.start_ns;
    r.durationNs = e.duration_ns;
    r.flops = double(e.flops);
    r.bytes = double(e.lds > 0 ? std::min(e.mem, e.lds) : e.mem);  // tinygrad's GB/s: min(mem, lds)
    for (const auto& [name, value] : e.var_vals) r.vars << qMakePair(QString::fromStdString(name), qint64(value));
    in.runs << r;
  }
  for (const loupe::DevicePeaks& p : t.peaks)
    in.peaks << DevicePeak{QString::fromStdString(p.device), p.peak_gflops, p.bandwidth_gbs};
  // The Memory panel reads the same events (allocations, frees, runs, TinyJit calls); the timeline
  // shows its TinyJit calls.
  std::shared_ptr<MemoryData> memory = MemoryData::build(t.profile);
  for (const JitCall& j : memory->spans()) in.jitCalls << j;
  in.compileSpans = compileSpansOf(t);
  for (const loupe::TraceTensorCall& c : t.tensorCalls)
    in.tensorCalls << TensorCallSpan{QString::fromStdString(c.call.op), QString::fromStdString(c.call.file),
                                     QString::fromStdString(c.call.function), c.call.line, c.start_ns, c.end_ns - c.start_ns};
  syncingKernel_ = true;
  setInput(std::move(in));
  selectKernel(session_->selection().kernel);
  syncingKernel_ = false;
  if (data()) memory->setOriginNs(data()->startNs());  // one zero for the Profile and Memory timelines
  Q_EMIT memoryDataChanged(std::move(memory));
}

bool SessionProfilePanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ToolTip && watched == table()->viewport()) {
    auto* he = static_cast<QHelpEvent*>(event);
    const QModelIndex i = table()->indexAt(he->pos());
    if (i.isValid() && i.column() == KernelTableModel::NameColumn) {
      const qint64 id = i.data(KernelTableModel::KernelIdRole).toLongLong();
      if (session_->trace().kernelNames.contains(id)) {
        QToolTip::showText(he->globalPos(), kernelNameTooltip(session_->trace().kernelNames.value(id), isDarkPalette(palette())),
                           table()->viewport());
        return true;
      }
    }
  }
  return ProfileView::eventFilter(watched, event);
}

} // namespace loupe::views
