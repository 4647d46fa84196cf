#include "panels/kernelpanels.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "code/codeview.h"
#include "code/compareview.h"
#include "ir/print.h"
#include "panels/kernelnamedelegate.h"
#include "session/inspectormodel.h"
#include "session/provenance.h"
#include "session/session.h"
#include "shape/shapetracker.h"
#include "shape/shapetrackeradapter.h"
#include "shape/shapetrackerview.h"

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

// ---- code ----

KernelCodePanel::KernelCodePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("codeTitle"));
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_ = new QLabel(this);
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // the lines of the user's program the kernel came from, each a link to that line
  from_ = new QLabel(this);
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
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(title_, 1);
  bar->addWidget(backend_);
  bar->addWidget(noopt_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(details_);
  lay->addWidget(from_);
  lay->addWidget(code_, 1);
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

QString nooptKernelName(const loupe::TraceKernel& kernel, const TraceSnapshot& trace) {
  const CompareInput in = compareInputFor(kernel, trace);
  if (!in.noopt.name.isEmpty() && in.noopt.name != QString::fromStdString(kernel.name)) return in.noopt.name;
  // Without a timed comparison the name is the rendered function's: "void r_16_16(", "define void @E_4(".
  static const QRegularExpression fn(
      QStringLiteral("(?:\\bvoid\\s+(?:__launch_bounds__\\s*\\([^)]*\\)\\s*)?@?|@)([A-Za-z_]\\w*)\\s*\\("));
  if (const loupe::KernelSource* s = kernel.source("noopt"))
    for (const QString& line : QString::fromStdString(s->text).split(u'\n'))
      if (line.contains(QLatin1String("void")) || line.startsWith(QLatin1String("define")))
        for (auto it = fn.globalMatch(line); it.hasNext();) {
          const QString name = it.next().captured(1);
          if (!name.startsWith(QLatin1String("loupe_"))) return name;  // not one of the renderer's helpers
        }
  return QString::fromStdString(kernel.name);
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
}

bool KernelCodePanel::isShowingNoopt() const { return kernel_ && noopt_->isChecked() && kernel_->source("noopt"); }

void KernelCodePanel::showSource() {
  if (!kernel_) return;
  const std::string backend = backend_->currentText().toStdString();
  const loupe::KernelSource* s = kernel_->source(noopt_->isChecked() ? "noopt" : "opt", backend);
  if (!s) s = kernel_->source("opt", backend);
  if (!s) {
    code_->clearSource();
    return;
  }
  code_->setSource(QString::fromStdString(s->text), languageForBackend(QString::fromStdString(s->backend)));
}

// ---- compare ----

KernelComparePanel::KernelComparePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  compare_ = new CompareView(this);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(compare_);
  connect(session_, &Session::kernelChanged, this, &KernelComparePanel::refresh);
  connect(session_, &Session::loaded, this, &KernelComparePanel::refresh);
  connect(session_, &Session::updated, this, &KernelComparePanel::refresh);
  connect(session_, &Session::closed, this, &KernelComparePanel::refresh);
  refresh();
}

void KernelComparePanel::refresh() {
  auto k = session_->kernelDetails(session_->selection().kernel);
  if (!k) {
    compare_->clear();
    shown_ = -1;
    return;
  }
  compare_->setInput(compareInputFor(*k, session_->trace()));
  shown_ = k->id;
}

// ---- ShapeTracker ----

ShapePanel::ShapePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  chooser_ = new QComboBox(this);
  chooser_->setToolTip(tr("Which buffer access's ShapeTracker is shown"));
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  note_ = new QLabel(this);
  view_ = new ShapeTrackerView(this);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(chooser_);
  bar->addWidget(note_, 1);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(view_, 1);
  connect(chooser_, &QComboBox::currentIndexChanged, this, &ShapePanel::showChoice);
  connect(session_, &Session::kernelChanged, this, [this] {
    node_.reset();
    refresh();
  });
  connect(session_, &Session::loaded, this, &ShapePanel::refresh);
  connect(session_, &Session::closed, this, &ShapePanel::refresh);
  refresh();
}

bool ShapePanel::showNode(const loupe::UOpPtr& node) {
  if (!node || !nodeShapeTracker(node)) return false;
  node_ = node;
  refresh();
  chooser_->setCurrentIndex(0);
  return true;
}

void ShapePanel::refresh() {
  kernel_ = session_->kernelDetails(session_->selection().kernel);
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  if (node_) chooser_->addItem(tr("selected node: %1").arg(QString::fromStdString(loupe::uop_label(*node_, 30))), -1);
  if (kernel_)
    for (size_t i = 0; i < kernel_->buffers.size(); i++) {
      const loupe::BufferAccess& b = kernel_->buffers[i];
      chooser_->addItem(QStringLiteral("%1 · %2 %3").arg(QString::fromStdString(b.name), QString::fromStdString(b.access),
                                                         QString::fromStdString(b.dtype)),
                        int(i));
    }
  if (chooser_->count() == 0) {
    note_->setText(tr("No kernel selected."));
    view_->clear();
    return;
  }
  // A store is the natural first view of a kernel; a node the user sent comes first anyway.
  int pick = 0;
  for (int i = 0; i < chooser_->count() && !node_; i++)
    if (chooser_->itemText(i).contains(QLatin1String("load"))) {
      pick = i;
      break;
    }
  chooser_->setCurrentIndex(pick);
  showChoice(pick);
}

void ShapePanel::showChoice(int index) {
  if (index < 0) return;
  const int which = chooser_->itemData(index).toInt();
  try {
    if (which < 0 && node_) {
      const loupe::ShapeTracker* st = nodeShapeTracker(node_);
      view_->setInput(shapeTrackerInput(*st, QString::fromStdString(loupe::uop_label(*node_, 40))));
      note_->setText(QString());
      return;
    }
    if (!kernel_ || which >= int(kernel_->buffers.size())) return;
    const loupe::BufferAccess& b = kernel_->buffers[size_t(which)];
    if (b.st_kind != "ShapeTracker" || b.st_code.empty()) {
      view_->clear();
      note_->setText(tr("this access has no ShapeTracker in the trace"));
      return;
    }
    const loupe::ShapeTracker st = loupe::ShapeTracker::decode(b.st_code);
    view_->setInput(shapeTrackerInput(
        st, QStringLiteral("%1 · %2 %3").arg(QString::fromStdString(kernel_->name), QString::fromStdString(b.access),
                                             QString::fromStdString(b.name))));
    note_->setText(QString());
  } catch (const std::exception& e) {
    view_->clear();
    note_->setText(tr("cannot show this ShapeTracker: %1").arg(QString::fromStdString(e.what())));
  }
}

} // namespace loupe::views
