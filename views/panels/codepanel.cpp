#include "panels/codepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QShortcut>
#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "code/codeview.h"
#include "code/compareview.h"
#include "ir/metadata.h"
#include "ir/print.h"
#include "trace/node_origin.h"
#include "panels/kernelnamedelegate.h"
#include "session/backgroundpriority.h"
#include "session/inspectormodel.h"
#include "session/provenance.h"
#include "session/session.h"
#include "shape/shapetracker.h"
#include "shapeview/shapetrackeradapter.h"
#include "shapeview/shapetrackerview.h"
#include "panels/kernelfacts.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

KernelCodePanel::KernelCodePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  title_ = widthFromLayout(new QLabel(this));
  title_->setObjectName(QStringLiteral("codeTitle"));
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_ = widthFromLayout(new QLabel(this));
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // the lines of the user's program the kernel came from, each a link to that line
  from_ = widthFromLayout(new QLabel(this));
  from_->setObjectName(QStringLiteral("codeProvenance"));
  from_->setWordWrap(true);
  from_->setTextFormat(Qt::RichText);
  from_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  from_->setToolTip(tr("The lines of your program whose tensor ops this kernel computes; click one to show it"));
  connect(from_, &QLabel::linkActivated, this, [this](const QString& link) {
    QString file;
    int line = 0;
    if (parseSourceLink(link, &file, &line)) Q_EMIT sourceLineActivated(file, line);
  });
  backend_ = new QComboBox(this);
  backend_->setToolTip(tr("Backend whose source is shown"));
  noopt_ = new QToolButton(this);
  noopt_->setText(tr("NOOPT"));
  noopt_->setCheckable(true);
  noopt_->setToolTip(tr("Show the same kernel rendered without optimizations"));
  code_ = new CodeView(this);
  lineToGraph_ = new QToolButton(this);
  lineToGraph_->setText(tr("Line → graph"));
  lineToGraph_->setCheckable(true);
  lineToGraph_->setToolTip(tr("Select, in the kernel's final graph, the UOp the source line under the cursor computes "
                              "(the kernel is planned again for this, once)"));
  lineInfo_ = new ElidedLabel(this);
  lineInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  lineInfo_->hide();
  hottest_ = new QToolButton(this);
  hottest_->setText(tr("Hottest line"));
  hottest_->setToolTip(tr("Go to the line with the most samples and select its UOps in the graph (H)"));
  hottest_->hide();
  hot_ = new ElidedLabel(this);
  hot_->setObjectName(QStringLiteral("codeHotspots"));
  hot_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hot_->hide();
  gpuMetrics_ = new ElidedLabel(this);
  gpuMetrics_->setObjectName(QStringLiteral("codeGpuMetrics"));
  gpuMetrics_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  gpuMetrics_->hide();
  hotPool_.setMaxThreadCount(1);
  auto* jump = new QShortcut(QKeySequence(Qt::Key_H), this, this, &KernelCodePanel::jumpToHottestLine);
  jump->setContext(Qt::WidgetWithChildrenShortcut);
  connect(hottest_, &QToolButton::clicked, this, &KernelCodePanel::jumpToHottestLine);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(title_, 1);
  bar->addWidget(backend_);
  bar->addWidget(noopt_);
  bar->addWidget(hottest_);
  bar->addWidget(lineToGraph_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(details_);
  lay->addWidget(from_);
  lay->addWidget(hot_);
  lay->addWidget(gpuMetrics_);
  lay->addWidget(lineInfo_);
  lay->addWidget(code_, 1);
  connect(code_, &CodeView::currentRowChanged, this, &KernelCodePanel::mapLine);
  connect(lineToGraph_, &QToolButton::toggled, this, [this](bool on) {
    lineInfo_->setVisible(on);
    if (on) mapLine(code_->currentRow());
  });
  connect(backend_, &QComboBox::currentIndexChanged, this, &KernelCodePanel::showSource);
  connect(noopt_, &QToolButton::toggled, this, [this] {
    showHeader();
    showSource();
  });
  connect(session_, &Session::kernelChanged, this, &KernelCodePanel::refresh);
  connect(session_, &Session::loaded, this, &KernelCodePanel::refresh);
  connect(session_, &Session::closed, this, &KernelCodePanel::refresh);
  refresh();
}

KernelCodePanel::~KernelCodePanel() {
  hotGeneration_++;
  hotPool_.waitForDone();
}

QString KernelCodePanel::headerText() const {
  QString text = QTextDocumentFragment::fromHtml(title_->text()).toPlainText() + QLatin1Char('\n') + details_->text();
  if (!from_->isHidden()) text += QLatin1Char('\n') + provenanceText();
  return text;
}

QString KernelCodePanel::provenanceText() const {
  return from_->isHidden() ? QString() : QTextDocumentFragment::fromHtml(from_->text()).toPlainText();
}
void KernelCodePanel::showNoopt(bool noopt) { noopt_->setChecked(noopt); }

void KernelCodePanel::refresh() {
  shown_ = nullptr;  // points into the kernel about to be replaced
  planned_.reset();
  kernel_ = session_->kernelDetails(session_->selection().kernel);
  const QSignalBlocker block(backend_);
  backend_->clear();
  const QList<SourceLine> lines = kernel_ ? sourceLines(kernel_->provenance) : QList<SourceLine>();
  from_->setText(tr("from %1").arg(sourceLinesHtml(lines)));
  from_->setHidden(lines.isEmpty());
  if (!kernel_) {
    title_->setText(tr("<b>No kernel selected</b>"));
    details_->setText(tr("Pick a kernel in the Trace browser or the Profile (PageUp/PageDown steps through them)."));
    code_->clearSource();
    Q_EMIT sourceShown();
    return;
  }
  showHeader();
  QStringList backends;
  for (const loupe::KernelSource& s : kernel_->sources)
    if (!backends.contains(QString::fromStdString(s.backend))) backends << QString::fromStdString(s.backend);
  backend_->addItems(backends);
  backend_->setVisible(backends.size() > 1);
  showSource();
}

void KernelCodePanel::showHeader() {
  if (!kernel_) return;
  const TraceSnapshot& t = session_->trace();
  const bool dark = isDarkPalette(palette());
  const QString device = QString::fromStdString(kernel_->device);
  if (isShowingNoopt()) {
    // What is shown is the NOOPT kernel: its own name, no opts, its own time when the run timed it
    // (--compare-noopt); the launch dims the trace records are the optimized kernel's, so none here.
    const KernelVariant v = compareInputFor(*kernel_, t).noopt;
    title_->setText(QStringLiteral("<span style=\"color:gray\">%1</span> <b><tt>%2</tt></b> &nbsp;<span style=\"color:gray\">%3</span>")
                        .arg(tr("NOOPT"), nooptKernelName(*kernel_, t).toHtmlEscaped(), device));
    title_->setToolTip(tr("The same kernel rendered without optimizations; the optimized one is %1")
                           .arg(QString::fromStdString(kernel_->name)));
    details_->setText(tr("opts: none (NOOPT) · %1 FLOPs · %2 bytes · %3")
                          .arg(std::isnan(v.flops) ? kernel_->flops : qint64(v.flops))
                          .arg(std::isnan(v.bytes) ? kernel_->mem : qint64(v.bytes))
                          .arg(std::isnan(v.seconds) ? tr("not timed (run with --compare-noopt to time it)")
                                                     : tr("ran in %1 µs").arg(v.seconds * 1e6, 0, 'f', 1)));
    return;
  }
  title_->setText(QStringLiteral("<b><tt>%1</tt></b> &nbsp;<span style=\"color:gray\">%2</span>")
                      .arg(kernelNameHtml(t.kernelNames.value(kernel_->id), dark), device));
  title_->setToolTip(kernelNameTooltip(t.kernelNames.value(kernel_->id), dark));
  QStringList opts;
  for (const std::string& o : kernel_->opts) opts << shortOptText(o);
  const double secs = meanRunSeconds(t, kernel_->id);
  details_->setText(tr("opts: %1 · %2 · %3 FLOPs · %4 bytes%5")
                        .arg(opts.isEmpty() ? tr("none") : opts.join(QStringLiteral(", ")),
                             formatLaunchDims(QList<qint64>(kernel_->global_size.begin(), kernel_->global_size.end()),
                                              QList<qint64>(kernel_->local_size.begin(), kernel_->local_size.end())))
                        .arg(kernel_->flops)
                        .arg(kernel_->mem)
                        .arg(std::isnan(secs) ? QString() : tr(" · ran in %1 µs").arg(secs * 1e6, 0, 'f', 1)));
  // a kernel with symbolic shapes: one compiled kernel for every value; its sizes are at the largest
  if (const QString vars = runVariables(t, kernel_->id); !vars.isEmpty())
    details_->setText(details_->text() + tr(" · variables %1 (FLOPs and bytes at their largest)").arg(vars));
}

bool KernelCodePanel::isShowingNoopt() const { return kernel_ && noopt_->isChecked() && kernel_->source("noopt"); }

QString KernelCodePanel::lineOriginsText() const { return lineInfo_->toolTip(); }

QString KernelCodePanel::lineInfoText() const { return lineInfo_->isHidden() ? QString() : lineInfo_->text(); }

void KernelCodePanel::mapLine(int row) {
  if (!lineToGraph_->isChecked() || !kernel_ || row < 0) return;
  const bool noopt = noopt_->isChecked();
  loupe::TraceReader* reader = session_->reader();
  if (!reader) return;
  if (!shown_) return;
  if (!planned_) {
    try {
      planned_ = loupe::plan_trace_kernel(*reader, kernel_->id, {noopt, {}});
    } catch (const loupe::Error& e) {
      lineInfo_->setText(tr("Cannot map lines to UOps: %1").arg(QString::fromStdString(e.what())));
      return;
    }
    plannedIsShown_ = planned_->source == shown_->text;
  }
  if (!plannedIsShown_) {
    lineInfo_->setText(tr("This source is not the one the kernel plans to now (another backend shown, or an older trace)"));
    return;
  }
  // the UOps written on the line; its statement is the last of them (what the others are inlined into)
  const loupe::UOpList& program = planned_->plan.linear;
  std::vector<const loupe::UOp*> onLine;
  for (size_t i = 0; i < program.size() && i < planned_->source_lines.size(); i++)
    if (planned_->source_lines[i] == row + 1) onLine.push_back(program[i].get());
  if (onLine.empty()) {
    lineInfo_->setText(tr("Line %1 computes no UOp").arg(row + 1));
    return;
  }
  const loupe::UOp* statement = onLine.back();
  QStringList ops, tensorOps;
  for (const loupe::UOp* u : onLine) {
    ops << QString::fromUtf8(loupe::op_name(u->op));
    if (uint32_t meta = u->metadata()) {
      const QString t = QString::fromStdString(loupe::metadata_str(loupe::metadata_of(meta)));
      if (!tensorOps.contains(t)) tensorOps << t;
    }
  }
  QString info = tr("Line %1 computes %2 (UOps: %3)").arg(row + 1).arg(QString::fromUtf8(loupe::op_name(statement->op)), ops.join(QStringLiteral(", ")));
  if (!tensorOps.isEmpty()) info += tr(" · for %1").arg(tensorOps.join(QStringLiteral(", ")));
  // the rewrites that built the line's nodes, in this kernel's passes: the statement's in the text,
  // every UOp's in the tooltip
  QStringList built;
  try {
    std::vector<std::string> keys;
    for (const loupe::UOp* u : onLine) keys.push_back(u->key().hex());
    const auto ids = loupe::node_ids_by_keys(*reader, keys);
    for (size_t i = 0; i < onLine.size(); i++) {
      auto id = ids.find(keys[i]);
      std::optional<loupe::NodeOrigin> o = id == ids.end() ? std::nullopt : loupe::node_origin(*reader, id->second, kernel_->context_id);
      const QString origin = !o             ? tr("not in this kernel's recorded graphs")
                             : o->by_rewrite ? tr("built by rule %1 in pass %2, step %3").arg(QString::fromStdString(o->rule_name), QString::fromStdString(o->pass_name)).arg(o->step)
                                             : tr("came in with the input of pass %1").arg(QString::fromStdString(o->pass_name));
      built << QStringLiteral("%1: %2").arg(QString::fromUtf8(loupe::op_name(onLine[i]->op)), origin);
      if (onLine[i] == statement) info += QStringLiteral(" · ") + origin;
    }
  } catch (const loupe::Error& e) {
    info += tr(" · its rewrites cannot be read: %1").arg(QString::fromStdString(e.what()));
  }
  lineInfo_->setToolTip(built.join(u'\n'));
  lineInfo_->setText(info);
  session_->revealKernelUOp(kernel_->id, noopt, statement);
}

void KernelCodePanel::showSource() {
  planned_.reset();
  shown_ = nullptr;
  if (!kernel_) {
    Q_EMIT sourceShown();
    return;
  }
  const std::string backend = backend_->currentText().toStdString();
  const loupe::KernelSource* s = kernel_->source(noopt_->isChecked() ? "noopt" : "opt", backend);
  if (!s) s = kernel_->source("opt", backend);
  shown_ = s;
  if (!s) code_->clearSource();
  else code_->setSource(QString::fromStdString(s->text), languageForBackend(QString::fromStdString(s->backend)));
  showHotspots();
  Q_EMIT sourceShown();
}

QString KernelCodePanel::hotspotText() const {
  if (hot_->isHidden()) return gpuMetrics_->isHidden() ? QString() : gpuMetrics_->text();
  return gpuMetrics_->isHidden() ? hot_->text() : hot_->text() + QStringLiteral(" · ") + gpuMetrics_->text();
}

void KernelCodePanel::showHotspots() {
  const quint64 generation = ++hotGeneration_;
  hottestLine_ = 0;
  matching_ = false;
  hot_->hide();
  gpuMetrics_->hide();
  hottest_->hide();
  shownSamples_.reset();
  loupe::TraceReader* reader = session_->reader();
  // the samples are of the code that ran: the optimized source of the backend it ran on
  if (!kernel_ || !shown_ || !reader || shown_->variant != "opt") return;
  std::optional<loupe::KernelSamples> samples;
  std::optional<loupe::KernelMetrics> metrics;
  std::vector<loupe::RecordedListing> listings;
  try {
    samples = reader->kernel_samples(kernel_->id);
    metrics = reader->kernel_metrics(kernel_->id);
    if (samples) listings = reader->kernel_listings(kernel_->id);
  } catch (const loupe::Error& e) {
    hot_->setText(tr("Hot spots cannot be read: %1").arg(QString::fromStdString(e.what())));
    hot_->show();
    return;
  }
  if (!samples) {
    if (metrics) {  // measured in a run of its own (--gpu-metrics without --hotspots)
      showGpuMetrics(metrics);
      Q_EMIT hotspotsReady();
    }
    return;
  }
  shownSamples_ = std::make_shared<const loupe::KernelSamples>(*samples);
  matching_ = true;
  hot_->setText(tr("Hot spots: %1 samples over %2 runs · matching them to the code…").arg(samples->total()).arg(samples->runs));
  hot_->show();
  QPointer<KernelCodePanel> self(this);
  hotPool_.start([self, generation, name = kernel_->name, device = shown_->backend, text = shown_->text, samples = *samples, metrics, listings] {
    lowerThreadPriority();
    auto report = std::make_shared<loupe::KernelHotspotReport>(loupe::hotspot_report(name, device, text, samples, listings));
    report->metrics = metrics;
    if (!self) return;
    QMetaObject::invokeMethod(
        self.data(), [self, generation, report] {
          if (self) self->adoptHotspots(generation, report);
        },
        Qt::QueuedConnection);
  });
}

void KernelCodePanel::adoptHotspots(quint64 generation, std::shared_ptr<loupe::KernelHotspotReport> report) {
  if (generation != hotGeneration_) return;  // another source is shown now
  matching_ = false;
  const loupe::HotspotAnnotation& a = report->annotation;
  QString text = tr("Hot spots: %1 samples over %2 runs (%3) · %4 in %5")
                     .arg(a.total)
                     .arg(report->samples.runs)
                     .arg(QString::fromStdString(report->samples.clock))
                     .arg(QString::fromStdString(loupe::percent_text(a.share(a.in_function))), QString::fromStdString(report->function));
  if (!a.matches) {
    text += tr(" · no line attribution: %1").arg(QString::fromStdString(a.mismatch));
  } else {
    QList<double> shares(code_->rows().size(), 0.0);
    for (const auto& [line, n] : a.line_samples)
      if (line >= 1 && line <= shares.size()) shares[line - 1] = a.share(n);
    code_->setRowHeat(shares);
    hottestLine_ = a.hottest_line();
    if (report->listing && !report->listing->linked())
      text += tr(" · its machine code carries no source lines (LLVM IR): the Machine code panel shades the instructions");
    else if (hottestLine_ > 0)
      text += tr(" · hottest line %1 (%2) — H goes there")
                  .arg(hottestLine_)
                  .arg(QString::fromStdString(loupe::percent_text(a.share(a.line_samples.at(hottestLine_)))));
    hottest_->setVisible(hottestLine_ > 0);
  }
  // a GPU's samples say why its warps waited, and its metrics replace a CPU's PMU counters
  const bool gpu = report->samples.clock == "pc-sampling";
  const std::string counters = gpu ? (report->metrics ? loupe::describe_metrics(*report->metrics) : "GPU metrics not measured (--gpu-metrics)")
                                   : loupe::describe_counters(report->samples.counters);
  if (gpu) {
    auto line = a.line_stalls.find(hottestLine_);
    const std::string stalls = loupe::stall_summary(line != a.line_stalls.end() ? line->second : a.stalls, 2);
    if (!stalls.empty()) text += tr(" · warps there stalled on %1").arg(QString::fromStdString(stalls));
  }
  if (gpu) {
    showGpuMetrics(report->metrics);
  } else if (!report->samples.counters.any()) {
    text += tr(" · counters: not available here");
  } else {
    text += QStringLiteral(" · ") + QString::fromStdString(counters);
  }
  hot_->setText(text);
  QString tip = QString::fromStdString(loupe::describe_sampling(report->samples)) + u'\n' + QString::fromStdString(counters);
  if (gpu && !a.stalls.empty()) tip += tr("\nWarps of the whole kernel stalled on: %1").arg(QString::fromStdString(loupe::stall_summary(a.stalls, 8)));
  hot_->setToolTip(tip);
  Q_EMIT hotspotsReady();
}

void KernelCodePanel::showGpuMetrics(const std::optional<loupe::KernelMetrics>& metrics) {
  const std::string text = metrics ? loupe::describe_metrics(*metrics) : "GPU metrics not measured (--gpu-metrics)";
  gpuMetrics_->setText(tr("GPU: %1").arg(QString::fromStdString(text)));
  gpuMetrics_->setToolTip(QString::fromStdString(metrics ? metrics->source : std::string()));
  gpuMetrics_->show();
}

void KernelCodePanel::jumpToHottestLine() {
  if (hottestLine_ <= 0) return;
  code_->revealLine(hottestLine_);
  if (!lineToGraph_->isChecked()) lineToGraph_->setChecked(true);  // maps the line to its UOps
  else mapLine(code_->currentRow());
  Q_EMIT hottestLineShown(hottestLine_);
}

} // namespace loupe::views
