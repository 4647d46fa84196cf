#include "panels/machinecodepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "code/codeview.h"
#include "support/error.h"
#include "panels/elidedlabel.h"

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
  code_ = new CodeView(this);
  code_->setToolTip(tr("The gutter gives each instruction the line of kernel source it was compiled from"));
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(title_, 1);
  bar->addWidget(listing_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(details_);
  lay->addWidget(code_, 1);
  pool_.setMaxThreadCount(1);
  connect(listing_, &QComboBox::currentIndexChanged, this, &MachineCodePanel::showListing);
  connect(code_, &CodeView::currentRowChanged, this, [this](int row) {
    if (row < 0 || row >= code_->rows().size()) return;
    const int line = code_->rows()[row].lineNumber;
    if (line <= 0) return;
    markLine(line, false);
    Q_EMIT sourceLineActivated(line);
  });
  setHeader(tr("<b>No kernel selected</b>"), tr("The machine code of the kernel the Code panel shows appears here."));
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
  if (source == source_) return;
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

void MachineCodePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  compileIfWanted();
}

void MachineCodePanel::compileIfWanted() {
  if (!isVisible() || source_.text.isEmpty() || source_ == compiled_) return;  // compiled, or compiling now
  const quint64 generation = ++generation_;
  compiling_ = true;
  compiled_ = source_;
  setHeader(tr("<b>%1</b> · compiling it again for its machine code…").arg(source_.function.toHtmlEscaped()), {});
  const std::string device = source_.device.toStdString(), function = source_.function.toStdString(),
                    text = source_.text.toStdString();
  QPointer<MachineCodePanel> self(this);
  pool_.start([self, generation, device, function, text] {
    auto result = std::make_shared<loupe::MachineCode>();
    QString error;
    try {
      *result = loupe::machine_code(device, function, text);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    if (!self) return;
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, result, error] {
          if (self) self->adopt(generation, result, error);
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
  const QString variant = compiled_.noopt ? tr("NOOPT ") : QString();
  const QString title = tr("<b>%1%2</b> · %3 · %4 instructions · %5")
                            .arg(variant, name, QString::fromStdString(l.title).toHtmlEscaped())
                            .arg(l.instruction_count())
                            .arg(l.linked() ? tr("the gutter gives each instruction's source line") : tr("no line info in this form"));
  QString details = tr("<span style='color:gray'>compiled again here: %1</span>").arg(QString::fromStdString(l.how).toHtmlEscaped());
  if (!missing.isEmpty()) details += QStringLiteral("<br>") + missing.join(QStringLiteral("<br>"));
  setHeader(title, details);
  if (markedLine_ > 0) markLine(markedLine_, true);
}

void MachineCodePanel::showSourceLine(int line) { markLine(line, true); }

void MachineCodePanel::markLine(int line, bool reveal) {
  markedLine_ = line;
  const int index = listing_->currentIndex();
  if (compiling_ || index < 0 || index >= int(result_->listings.size())) return;
  const std::vector<int> rows = result_->listings[size_t(index)].lines_of(line);
  code_->setLinkedRows(QList<int>(rows.begin(), rows.end()));
  if (reveal && !rows.empty()) code_->revealLine(line);
}

} // namespace loupe::views
