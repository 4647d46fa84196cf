#include "memory/memorypanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <map>

#include "memory/memorychart.h"
#include "profile/profileformat.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {
constexpr int kMaxKernelsListed = 24;

QString at(const MemoryData& d, qint64 ns) { return formatDuration(double(ns - d.originNs()) * 1e-9); }
} // namespace

MemoryPanel::MemoryPanel(QWidget* parent) : QWidget(parent) {
  summary_ = loupe::views::widthFromLayout(new QLabel(this));
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  auto* fit = new QToolButton(this);
  fit->setText(tr("Show all"));
  fit->setToolTip(tr("Show the whole trace (or double-click the chart)"));
  chart_ = new MemoryChart(this);
  details_ = new QTextBrowser(this);
  details_->setOpenLinks(false);
  details_->setMinimumWidth(240);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(summary_, 1);
  bar->addWidget(fit, 0, Qt::AlignTop);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(chart_);
  split->addWidget(details_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->addLayout(bar);
  lay->addWidget(split, 1);

  connect(fit, &QToolButton::clicked, chart_, &MemoryChart::showAll);
  connect(chart_, &MemoryChart::bufferClicked, this, &MemoryPanel::selectBuffer);
  connect(details_, &QTextBrowser::anchorClicked, this, &MemoryPanel::openLink);
  clear();
}

void MemoryPanel::setData(std::shared_ptr<const MemoryData> data) {
  // A trace that grows (a script still running) keeps its selected buffer.
  const qint64 keep = data_ && selected_ >= 0 ? data_->buffers()[size_t(selected_)].id : -1;
  data_ = std::move(data);
  chart_->setData(data_);
  selected_ = keep >= 0 && data_ ? data_->bufferIndex(keep) : -1;
  if (selected_ >= 0) chart_->setSelectedBuffer(selected_);
  updateSummary();
  showDetails();
}

void MemoryPanel::clear() { setData(nullptr); }

void MemoryPanel::selectBuffer(int index) {
  if (!data_ || index >= int(data_->buffers().size())) index = -1;
  selected_ = index;
  if (chart_->selectedBuffer() != index) chart_->setSelectedBuffer(index);
  showDetails();
}

void MemoryPanel::openLink(const QUrl& url) {
  if (!data_) return;
  const QString s = url.toString();
  if (s.startsWith(QLatin1String("run:"))) {
    const int run = s.mid(4).toInt();
    if (run >= 0 && run < int(data_->runs().size()))
      Q_EMIT kernelActivated(data_->runs()[size_t(run)].kernelId, data_->runs()[size_t(run)].name);
  } else if (s.startsWith(QLatin1String("buffer:"))) {
    selectBuffer(data_->bufferIndex(s.mid(7).toLongLong()));
  }
}

void MemoryPanel::updateSummary() {
  if (!data_ || data_->empty()) {
    summary_->setText(tr("<span style='color:gray'>No buffer allocations recorded</span>"));
    return;
  }
  QStringList parts;
  for (const MemoryLane& l : data_->lanes())
    parts << (l.isFile() ? tr("<b>%1</b>: %2 mapped at %3 · %4 mappings of the file") : tr("<b>%1</b>: peak %2 at %3 · %4 buffers"))
                 .arg(l.device.toHtmlEscaped(), formatBytes(double(l.peakBytes)), at(*data_, l.peakNs))
                 .arg(l.buffers.size());
  int captures = 0, replays = 0;
  for (const JitCall& s : data_->spans()) {
    if (!s.capture) {
      ++replays;
      continue;
    }
    ++captures;
    if (s.unplannedBytes > 0)
      parts << tr("TinyJit capture of %1 kernels: internal buffers %2 → %3 with the planner")
                   .arg(s.kernels)
                   .arg(formatBytes(double(s.unplannedBytes)), formatBytes(double(s.plannedBytes)));
  }
  if (captures + replays > 0) parts << tr("%1 capture(s), %2 replay(s)").arg(captures).arg(replays);
  summary_->setText(parts.join(QStringLiteral(" · ")));
}

void MemoryPanel::showDetails() {
  if (!data_ || selected_ < 0) {
    details_->setHtml(tr("<p style='color:gray'>Click a buffer in the chart to see its size, its life, the kernels "
                          "that wrote and read it and, in a TinyJit step, the allocation the memory planner gave it.</p>"
                          "<p style='color:gray'>A band's height is the buffer's size; the stack's top line is the "
                          "memory in use. Hatched bands are the planner's shared allocations. Under the selected "
                          "buffer's device, ticks mark its writes (upper) and reads (lower).</p>"));
    return;
  }
  const MemoryData& d = *data_;
  const MemoryBuffer& b = d.buffers()[size_t(selected_)];
  QString html = tr("<h3>Buffer %1</h3><table cellspacing=2>"
                    "<tr><td>holds</td><td><b>%2</b> (%3)</td></tr><tr><td>device</td><td>%4</td></tr>"
                    "<tr><td>allocated</td><td>at %5</td></tr><tr><td>freed</td><td>%6</td></tr></table>")
                     .arg(b.id)
                     .arg(b.what.toHtmlEscaped(), formatBytes(double(b.bytes)), b.device.toHtmlEscaped(), at(d, b.startNs),
                          b.freed ? tr("at %1, after %2").arg(at(d, b.endNs), formatDuration(double(b.endNs - b.startNs) * 1e-9))
                                  : tr("still allocated when the trace ends"));

  // Runs grouped by kernel: a buffer a replayed step touches is written by the same kernel every step.
  auto kernels = [&](const std::vector<int>& runs, const QString& title) {
    if (runs.empty()) return tr("<p><b>%1</b>: none</p>").arg(title);
    std::map<QString, std::pair<int, int>> byKernel;  // key -> (first run, runs)
    std::vector<QString> order;
    for (int r : runs) {
      const MemoryRun& m = d.runs()[size_t(r)];
      const QString key = m.kernelId >= 0 ? QString::number(m.kernelId) : m.name;
      auto [it, fresh] = byKernel.try_emplace(key, r, 0);
      if (fresh) order.push_back(key);
      ++it->second.second;
    }
    QString out = tr("<p><b>%1</b> %2 time(s), by %3 kernel(s):</p><ul>").arg(title).arg(runs.size()).arg(order.size());
    for (size_t i = 0; i < order.size() && i < size_t(kMaxKernelsListed); ++i) {
      const auto [first, count] = byKernel[order[i]];
      const MemoryRun& m = d.runs()[size_t(first)];
      out += QStringLiteral("<li><a href=\"run:%1\"><tt>%2</tt></a>%3 <span style='color:gray'>first at %4</span></li>")
                 .arg(first)
                 .arg(m.name.toHtmlEscaped(), count > 1 ? QStringLiteral(" ×%1").arg(count) : QString(), at(d, m.startNs));
    }
    if (order.size() > size_t(kMaxKernelsListed)) out += tr("<li>… and %1 more</li>").arg(order.size() - size_t(kMaxKernelsListed));
    return out + QStringLiteral("</ul>");
  };
  html += kernels(b.writers, tr("Written"));
  html += kernels(b.readers, tr("Read"));

  auto bufferLink = [&](qint64 id) {
    const int i = d.bufferIndex(id);
    const QString what = i >= 0 ? QStringLiteral(" (%1, %2)").arg(d.buffers()[size_t(i)].what.toHtmlEscaped(),
                                                                   formatBytes(double(d.buffers()[size_t(i)].bytes)))
                                : QString();
    return QStringLiteral("<a href=\"buffer:%1\">buffer %1</a>%2").arg(id).arg(what);
  };
  // The planner's sharing, of a schedule (its buffers never had allocations of their own) or of a TinyJit
  // step (theirs were released at the capture: links).
  for (bool inSchedule : {true, false}) {
    QString rows;
    int count = 0;
    for (const MemoryBuffer::Served& s : b.serves) {
      if (s.inSchedule != inSchedule) continue;
      ++count;
      rows += inSchedule ? tr("<li>buffer %1: the schedule's kernels %2–%3</li>").arg(s.buffer).arg(s.firstKernel).arg(s.lastKernel)
                         : tr("<li>%1 kernels %2–%3</li>").arg(bufferLink(s.buffer)).arg(s.firstKernel).arg(s.lastKernel);
    }
    if (count == 0) continue;
    html += (inSchedule ? tr("<p><b>Memory planner</b>: a shared allocation of one schedule. Its kernels keep these %1 "
                             "buffers in it, one after the other (their lifetimes do not overlap):</p><ul>")
                        : tr("<p><b>Memory planner</b>: a shared allocation of a TinyJit step. Every replay keeps these %1 "
                             "buffers in it, one after the other (their lifetimes in the step do not overlap):</p><ul>"))
                .arg(count) +
            rows + QStringLiteral("</ul>");
  }
  if (b.sharedAllocation >= 0) {
    const int s = d.bufferIndex(b.sharedAllocation);
    const size_t sharing = s >= 0 ? d.buffers()[size_t(s)].serves.size() : 0;
    html += tr("<p><b>Memory planner</b>: used only inside a TinyJit step (kernels %1–%2). Replays keep it in %3, "
               "shared by %4 buffer(s)%5.</p>")
                .arg(b.firstKernel)
                .arg(b.lastKernel)
                .arg(b.sharedAllocation == b.id ? tr("its own allocation") : bufferLink(b.sharedAllocation))
                .arg(sharing)
                .arg(b.sharedAllocation == b.id ? QString() : tr("; its own allocation was released at the capture"));
  }
  details_->setHtml(html);
}

} // namespace loupe::views
