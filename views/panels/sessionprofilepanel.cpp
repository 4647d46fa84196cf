#include "panels/sessionprofilepanel.h"

#include <QHelpEvent>
#include <QPointer>
#include <QTableView>
#include <QToolTip>
#include <algorithm>

#include "inspect/hotspot_report.h"
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
  connect(session_, &Session::loaded, this, [this] { matched_.clear(); });  // another trace (before sync)
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
  pool_.setMaxThreadCount(1);
  connect(session_, &Session::closed, this, [this] {
    ++*generation_;
    matched_.clear();
    matching_ = 0;
  });
}

SessionProfilePanel::~SessionProfilePanel() {
  ++*generation_;
  pool_.waitForDone();
}

void SessionProfilePanel::syncHotspots() {
  loupe::TraceReader* reader = session_->reader();
  std::vector<std::pair<int64_t, loupe::KernelSamples>> sampled;
  try {
    if (reader)
      for (int64_t id : reader->sampled_kernels()) sampled.emplace_back(id, *reader->kernel_samples(id));
  } catch (const loupe::Error&) {
    sampled.clear();  // the Code panel says why, for the kernel it shows
  }
  table()->setColumnHidden(KernelTableModel::HotLineColumn, sampled.empty());
  table()->setColumnHidden(KernelTableModel::IpcColumn, sampled.empty());
  int64_t all = 0;
  for (const auto& [id, s] : sampled) all += s.total();
  QHash<qint64, KernelTableModel::Hotspot> cells;
  struct Job {
    qint64 id;
    std::string name, device, source;
    loupe::KernelSamples samples;
    std::vector<loupe::RecordedListing> listings;  // a GPU kernel's SASS as made where it ran
  };
  std::vector<Job> jobs;
  for (const auto& [id, s] : sampled) {
    KernelTableModel::Hotspot h;
    h.samples = s.total();
    h.traceShare = all > 0 ? double(h.samples) / double(all) : 0;
    if (s.counters.cycles && s.counters.instructions && *s.counters.cycles > 0)
      h.ipc = double(*s.counters.instructions) / double(*s.counters.cycles);
    if (auto m = matched_.constFind(id); m != matched_.constEnd() && m->samples == h.samples) {
      h.line = m->line, h.lineShare = m->share, h.note = m->note;
      cells.insert(id, h);
      continue;  // matched at this sample count: its source is not read again (a growing trace syncs often)
    }
    const std::optional<loupe::TraceKernel> k = session_->kernelDetails(id);  // (the snapshot's have no sources)
    const loupe::KernelSource* src = k ? k->source("opt") : nullptr;
    h.note = src ? tr("matching…") : tr("no source in the trace");
    if (src) {
      std::vector<loupe::RecordedListing> listings;
      try {
        listings = reader->kernel_listings(id);
      } catch (const loupe::Error&) {  // compiled again here instead
      }
      jobs.push_back({id, k->name, src->backend, src->text, s, std::move(listings)});
    }
    cells.insert(id, h);
  }
  model()->setHotspots(cells);
  if (jobs.empty()) {
    if (!sampled.empty()) Q_EMIT hotspotsMatched();
    return;
  }
  const quint64 generation = ++*generation_;
  matching_ = int(jobs.size());
  QPointer<SessionProfilePanel> self(this);
  pool_.start([self, generation, current = generation_, jobs = std::move(jobs), cells] {
    for (const Job& j : jobs) {
      if (*current != generation) return;  // a newer sync (the trace grew) or another trace
      const loupe::KernelHotspotReport r = loupe::hotspot_report(j.name, j.device, j.source, j.samples, j.listings);
      MatchedLine m;
      m.samples = j.samples.total();
      m.line = r.annotation.hottest_line();
      if (m.line > 0) {
        m.share = r.annotation.share(r.annotation.line_samples.at(m.line));
        m.note = QString::fromStdString(size_t(m.line) <= r.source.size() ? r.source[size_t(m.line) - 1] : std::string()).trimmed();
      } else {
        m.note = r.annotation.matches ? tr("no samples on its lines") : tr("no line attribution: %1").arg(QString::fromStdString(r.annotation.mismatch));
      }
      KernelTableModel::Hotspot h = cells.value(j.id);
      QMetaObject::invokeMethod(
          self.data(), [self, generation, id = j.id, m, h]() mutable {
            if (!self || generation != *self->generation_) return;
            self->matched_.insert(id, m);
            h.line = m.line, h.lineShare = m.share, h.note = m.note;
            self->model()->setHotspot(id, h);
            if (--self->matching_ == 0) Q_EMIT self->hotspotsMatched();
          },
          Qt::QueuedConnection);
    }
  });
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
  syncHotspots();
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
