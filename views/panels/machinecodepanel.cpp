#include "panels/machinecodepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QTextBlock>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include <QShortcut>

#include "code/codeview.h"
#include "inspect/hotspot_annotation.h"
#include "inspect/hotspot_report.h"
#include "inspect/kernel_stepper.h"
#include "session/backgroundpriority.h"
#include "trace/trace_reader.h"
#include "support/error.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

MachineCodePanel::MachineCodePanel(QWidget* parent) : QWidget(parent) {
  title_ = widthFromLayout(new QLabel(this));
  title_->setObjectName(QStringLiteral("machineCodeTitle"));
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_ = widthFromLayout(new QLabel(this));
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  listing_ = new QComboBox(this);
  listing_->setToolTip(tr("Which form of the kernel to show: machine code, or the compiler's IR on the way to it"));
  target_ = new QComboBox(this);
  target_->setObjectName(QStringLiteral("machineCodeTarget"));
  target_->addItem(tr("As it ran"), QString());
  target_->addItem(tr("AMD RDNA3 (gfx1100)"), QStringLiteral("AMD:gfx1100"));
  target_->addItem(tr("AMD CDNA3 (gfx942, as gfx940)"), QStringLiteral("AMD:gfx942"));
  target_->setToolTip(tr("List the kernel as it ran, or planned again for an AMD GPU (as the Step panel's Target box plans it) and "
                         "compiled by clang-15 into a code object: no AMD GPU is needed"));
  code_ = new CodeView(this);
  code_->setToolTip(tr("The gutter gives each instruction the line of kernel source it was compiled from"));
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(title_, 1);
  bar->addWidget(target_);
  bar->addWidget(listing_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(details_);
  lay->addWidget(code_, 1);
  pool_.setMaxThreadCount(1);
  connect(listing_, &QComboBox::currentIndexChanged, this, &MachineCodePanel::showListing);
  connect(target_, &QComboBox::currentIndexChanged, this, [this] { compileIfWanted(); });
  connect(code_, &CodeView::currentRowChanged, this, [this](int row) {
    if (row < 0 || row >= code_->rows().size()) return;
    const int line = code_->rows()[row].lineNumber;
    if (line <= 0) return;
    markLine(line, false);
    if (compiledTarget_.isEmpty()) Q_EMIT sourceLineActivated(line);  // else a line of another source
  });
  auto* jump = new QShortcut(QKeySequence(Qt::Key_H), this, this, &MachineCodePanel::jumpToHottestInstruction);
  jump->setContext(Qt::WidgetWithChildrenShortcut);
  setHeader(tr("<b>No kernel selected</b>"), tr("The machine code of the kernel the Code panel shows appears here."));
}

void MachineCodePanel::setSamples(std::shared_ptr<const loupe::KernelSamples> samples) { samples_ = std::move(samples); }

QString MachineCodePanel::shadeHotspots(const loupe::MachineListing& l) {
  hotspots_.clear();
  if (!samples_ || compiled_.noopt || !compiledTarget_.isEmpty() || (l.kind != "asm" && l.kind != "sass")) return {};
  const loupe::HotspotAnnotation a = loupe::annotate_hotspots(l, compiled_.function.toStdString(), *samples_);
  if (!a.matches) {
    hotspots_ = tr("%1 samples, not shown: %2").arg(a.total).arg(QString::fromStdString(a.mismatch));
    return hotspots_;
  }
  QList<double> shares;
  shares.reserve(qsizetype(a.row_samples.size()));
  for (int64_t n : a.row_samples) shares << a.share(n);
  code_->setRowHeat(shares);
  const std::vector<size_t> top = a.hottest_rows(1);
  hotspots_ = tr("hot spots: %1 samples, %2 on its instructions").arg(a.total).arg(QString::fromStdString(loupe::percent_text(a.share(a.attributed))));
  if (!top.empty()) {
    hotspots_ += tr(", the hottest %1 (H)").arg(QString::fromStdString(loupe::percent_text(a.share(a.row_samples[top.front()]))));
    if (auto st = a.row_stalls.find(top.front()); st != a.row_stalls.end())  // a GPU's: why its warps waited there
      hotspots_ += tr(", its warps stalled on %1").arg(QString::fromStdString(loupe::stall_summary(st->second, 2)));
  }
  return hotspots_;
}

void MachineCodePanel::jumpToHottestInstruction() {
  const int row = code_->hottestRow();
  if (row < 0) return;
  QTextCursor c(code_->document()->findBlockByNumber(row));
  code_->setTextCursor(c);
  code_->centerCursor();
}

MachineCodePanel::~MachineCodePanel() {
  generation_++;
  pool_.waitForDone();
}

void MachineCodePanel::setHeader(const QString& title, const QString& details) {
  title_->setText(title);
  details_->setText(details);
  details_->setHidden(details.isEmpty());
}

QString MachineCodePanel::headerText() const {
  return QTextDocumentFragment::fromHtml(title_->text() + QStringLiteral("<br>") + details_->text()).toPlainText();
}

void MachineCodePanel::showSource(const KernelSourceRef& source) {
  if (source == source_) {  // (from another trace, perhaps: its own samples)
    if (!compiling_ && !compiled_.text.isEmpty() && compiled_ == source_) showListing(listing_->currentIndex());
    return;
  }
  source_ = source;
  if (source_.text.isEmpty()) {
    generation_++;
    compiling_ = false;
    compiled_ = {};
    *result_ = {};
    listing_->clear();
    code_->clearSource();
    setHeader(tr("<b>No kernel selected</b>"), tr("The machine code of the kernel the Code panel shows appears here."));
    return;
  }
  compileIfWanted();
}

void MachineCodePanel::setTarget(const QString& target) { target_->setCurrentIndex(std::max(0, target_->findData(target))); }

void MachineCodePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  compileIfWanted();
}

void MachineCodePanel::compileIfWanted() {
  const QString target = target_->currentData().toString();
  if (!isVisible() || source_.text.isEmpty() || (source_ == compiled_ && target == compiledTarget_)) return;  // compiled, or compiling now
  const quint64 generation = ++generation_;
  compiling_ = true;
  compiled_ = source_;
  compiledTarget_ = target;
  compiledText_ = source_.text;
  setHeader(target.isEmpty() ? tr("<b>%1</b> · compiling it again for its machine code…").arg(source_.function.toHtmlEscaped())
                             : tr("<b>%1</b> · planning it for %2 and compiling it…").arg(source_.function.toHtmlEscaped(), target),
            {});
  const std::string device = source_.device.toStdString(), function = source_.function.toStdString(),
                    text = source_.text.toStdString(), trace = source_.trace.toStdString(), other = target.toStdString();
  const int64_t kernel = source_.kernelId;
  const bool noopt = source_.noopt;
  QPointer<MachineCodePanel> self(this);
  pool_.start([self, generation, device, function, text, trace, other, kernel, noopt] {
    lowerThreadPriority();  // clang and objdump, started from here, inherit it
    auto result = std::make_shared<loupe::MachineCode>();
    QString error, planned;
    try {
      if (other.empty()) {
        // a GPU kernel's SASS made where it ran, when the trace kept it (a machine without that GPU's tools
        // cannot make it again)
        std::vector<loupe::RecordedListing> recorded;
        if (!trace.empty() && kernel >= 0 && !noopt) {
          try {
            loupe::TraceReaderOptions opts;
            opts.quick_check = false;
            recorded = loupe::TraceReader(trace, opts).kernel_listings(kernel);
          } catch (const std::exception&) {  // compiled again below, or the error says why not
          }
        }
        try {
          *result = loupe::machine_code(device, function, text);
        } catch (const std::exception& e) {
          if (recorded.empty()) throw;
          result->missing.push_back(e.what());
        }
        for (const loupe::RecordedListing& r : recorded) {
          bool have = false;
          for (const loupe::MachineListing& l : result->listings) have = have || l.kind == r.kind;
          if (!have) result->listings.push_back(loupe::from_recorded(r));
        }
      } else {  // planned again for the target, through a reader of this thread's own
        if (trace.empty() || kernel < 0) throw loupe::Error("this kernel comes from no trace file: it cannot be planned for another target");
        loupe::TraceReaderOptions opts;
        opts.quick_check = false;
        loupe::TraceReader reader(trace, opts);
        loupe::TraceKernelProgram p = loupe::plan_trace_kernel(reader, kernel, {noopt, other});
        planned = QString::fromStdString(p.source);
        *result = loupe::machine_code(other, loupe::kernel_function_name(p.source, p.plan.name), p.source);
      }
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    if (!self) return;
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, result, error, planned] {
          if (!self || generation != self->generation_) return;
          if (!planned.isEmpty()) self->compiledText_ = planned;
          self->adopt(generation, result, error);
        },
        Qt::QueuedConnection);
  });
}

void MachineCodePanel::adopt(quint64 generation, std::shared_ptr<loupe::MachineCode> result, QString error) {
  if (generation != generation_) return;  // a newer source was asked for meanwhile
  compiling_ = false;
  result_ = std::move(result);
  error_ = error;
  const QString previousKind = listing_->currentData().toString();
  {
    const QSignalBlocker block(listing_);
    listing_->clear();
    for (const loupe::MachineListing& l : result_->listings)
      listing_->addItem(QString::fromStdString(l.title), QString::fromStdString(l.kind));
  }
  listing_->setVisible(listing_->count() > 1);
  int index = std::max(0, listing_->findData(previousKind));
  if (listing_->count() == 0) index = -1;
  listing_->setCurrentIndex(index);
  showListing(index);
  Q_EMIT listingsReady();
}

void MachineCodePanel::showListing(int index) {
  const QString name = compiled_.function.toHtmlEscaped();
  QStringList missing;
  for (const std::string& m : result_->missing) missing << QString::fromStdString(m).toHtmlEscaped();
  if (!error_.isEmpty()) {
    code_->clearSource();
    setHeader(tr("<b>%1</b> · <span style='color:#c0392b'>could not be compiled again here</span>").arg(name),
              error_.left(600).toHtmlEscaped().replace(u'\n', QStringLiteral("<br>")));
    return;
  }
  if (index < 0 || index >= int(result_->listings.size())) {
    code_->clearSource();
    setHeader(tr("<b>%1</b> · no machine code to show").arg(name), missing.join(QStringLiteral("<br>")));
    return;
  }
  const loupe::MachineListing& l = result_->listings[size_t(index)];
  QList<CodeRow> rows;
  rows.reserve(qsizetype(l.lines.size()));
  for (size_t i = 0; i < l.lines.size(); i++) rows.append({QString::fromStdString(l.lines[i]), l.source_lines[i], RowMark::None, {}});
  code_->setRows(rows, l.kind == "llvm-ir" ? SourceLanguage::LlvmIr : SourceLanguage::Assembly);
  QString variant = compiled_.noopt ? tr("NOOPT ") : QString();
  if (!compiledTarget_.isEmpty()) variant = tr("planned for %1: ").arg(compiledTarget_) + variant;
  const QString title = tr("<b>%1%2</b> · %3 · %4 instructions · %5")
                            .arg(variant, name, QString::fromStdString(l.title).toHtmlEscaped())
                            .arg(l.instruction_count())
                            .arg(l.linked() ? tr("the gutter gives each instruction's source line") : tr("no line info in this form"));
  QString details = tr(l.recorded                  ? "<span style='color:gray'>made where the kernel ran, kept in the trace: %1</span>"
                       : compiledTarget_.isEmpty() ? "<span style='color:gray'>compiled again here: %1</span>"
                                                 : "<span style='color:gray'>the gutter's lines are those of the source planned for the "
                                                   "target; compiled here: %1</span>").arg(QString::fromStdString(l.how).toHtmlEscaped());
  if (const QString hot = shadeHotspots(l); !hot.isEmpty()) details = hot.toHtmlEscaped() + QStringLiteral("<br>") + details;
  if (!missing.isEmpty()) details += QStringLiteral("<br>") + missing.join(QStringLiteral("<br>"));
  setHeader(title, details);
  if (markedLine_ > 0 && compiledTarget_.isEmpty()) markLine(markedLine_, true);
}

void MachineCodePanel::showSourceLine(int line) {
  if (compiledTarget_.isEmpty()) markLine(line, true);  // else the listing's lines are another source's
}

void MachineCodePanel::markLine(int line, bool reveal) {
  markedLine_ = line;
  const int index = listing_->currentIndex();
  if (compiling_ || index < 0 || index >= int(result_->listings.size())) return;
  const std::vector<int> rows = result_->listings[size_t(index)].lines_of(line);
  code_->setLinkedRows(QList<int>(rows.begin(), rows.end()));
  if (reveal && !rows.empty()) code_->revealLine(line);
}

} // namespace loupe::views
