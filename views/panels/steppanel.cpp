#include "panels/steppanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "code/codeview.h"
#include "code/sourcelexer.h"
#include "graph/uopgraphadapter.h"
#include "inspect/kernel_rerun.h"
#include "runtime/interp/interp_device.h"
#include "panels/rerunconsentdialog.h"
#include "session/inputrerun.h"
#include "session/scriptrunner.h"
#include "session/session.h"
#include "support/error.h"
#include "support/terminal_text.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

StepPanel::StepPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  pool_.setMaxThreadCount(1);
  header_ = widthFromLayout(new QLabel(this));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header_->setContentsMargins(6, 4, 6, 4);
  element_ = new QSpinBox(this);
  element_->setRange(0, 1 << 30);
  element_->setPrefix(tr("element "));
  element_->setToolTip(tr("The output element to compute, as a flat index into the kernel's first output buffer"));
  mode_ = new QComboBox(this);
  mode_->addItems({tr("Optimized kernel"), tr("NOOPT kernel"), tr("First divergence (optimized vs NOOPT)"),
                   tr("First divergence (as it ran vs the target)")});
  target_ = new QComboBox(this);
  target_->addItem(tr("Target: as it ran"), QString());
  target_->addItem(tr("Target: CPU (C)"), QStringLiteral("CPU"));
  target_->addItem(tr("Target: LLVM"), QStringLiteral("LLVM"));
  target_->addItem(tr("Target: CUDA (sm_80)"), QStringLiteral("CUDA"));
  target_->addItem(tr("Target: OpenCL"), QStringLiteral("OPENCL"));
  target_->addItem(tr("Target: AMD RDNA3 (gfx1100)"), QStringLiteral("AMD:gfx1100"));
  target_->addItem(tr("Target: AMD CDNA3 (gfx942, as gfx940)"), QStringLiteral("AMD:gfx942"));
  target_->setToolTip(tr("Plan the kernel for another target (the heuristics' opts for it) and run that program on the "
                         "interpreter: GPU-style kernels with local memory, barriers and tensor cores run here too"));
  relevantOnly_ = new QCheckBox(tr("Only what it depends on"), this);
  relevantOnly_->setChecked(true);
  relevantOnly_->setToolTip(tr("Hide the steps that compute the other elements of the same tile"));
  followGraph_ = new QCheckBox(tr("Show in graph"), this);
  followGraph_->setChecked(true);
  followGraph_->setToolTip(tr("Select the current UOp's node in the kernel's final graph"));
  cancel_ = new QPushButton(tr("Cancel re-run"), this);
  cancel_->setToolTip(tr("Stop the program that runs again to capture this kernel's inputs"));
  cancel_->hide();
  rerunner_ = new InputRerunner(this);
  otherRun_ = new QPushButton(this);
  otherRun_->setToolTip(tr("Divergence: switch the steps, listing and source to the other run"));
  otherRun_->hide();
  auto* run = new QPushButton(tr("Step"), this);
  run->setToolTip(tr("Re-run the kernel on the interpreter with the inputs the trace kept (Enter)"));
  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(6, 0, 6, 0);
  for (QWidget* w : {static_cast<QWidget*>(element_), static_cast<QWidget*>(mode_), static_cast<QWidget*>(target_), static_cast<QWidget*>(relevantOnly_), static_cast<QWidget*>(followGraph_),
                     static_cast<QWidget*>(run), static_cast<QWidget*>(otherRun_),
                     static_cast<QWidget*>(cancel_)})
    controls->addWidget(w);
  controls->addStretch(1);
  list_ = new QListWidget(this);
  list_->setFont(QFont(QStringLiteral("monospace")));
  list_->setUniformItemSizes(true);
  listing_ = new QPlainTextEdit(this);
  listing_->setReadOnly(true);
  listing_->setLineWrapMode(QPlainTextEdit::NoWrap);
  listing_->setFont(QFont(QStringLiteral("monospace")));
  listing_->setToolTip(tr("The linearized UOps the interpreter runs"));
  source_ = new CodeView(this);
  source_->setToolTip(tr("The kernel's generated source: the code the compiled kernel ran"));
  auto* code = new QSplitter(Qt::Vertical, this);
  code->addWidget(listing_);
  code->addWidget(source_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(list_);
  split->addWidget(code);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(header_);
  lay->addLayout(controls);
  lay->addWidget(split, 1);

  connect(run, &QPushButton::clicked, this, &StepPanel::step);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    rerunner_->cancel();
    cancel_->hide();
    header_->setText(tr("The re-run was cancelled; press Step to start it again."));
  });
  connect(rerunner_, &InputRerunner::finished, this, &StepPanel::rerunFinished);
  connect(otherRun_, &QPushButton::clicked, this, [this] {
    showOtherRun();
    present();
  });
  connect(element_, &QSpinBox::editingFinished, this, [this] {
    if (element_->hasFocus()) step();
  });
  connect(relevantOnly_, &QCheckBox::toggled, this, &StepPanel::showSteps);
  connect(followGraph_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) showInGraph();
  });
  connect(list_, &QListWidget::currentRowChanged, this, &StepPanel::selectStep);
  auto* next = new QShortcut(QKeySequence(Qt::Key_F10), this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
  connect(next, &QShortcut::activated, this, [this] { list_->setCurrentRow(std::min(list_->currentRow() + 1, list_->count() - 1)); });
  auto* back = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F10), this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
  connect(back, &QShortcut::activated, this, [this] { list_->setCurrentRow(std::max(list_->currentRow() - 1, 0)); });
  connect(session_, &Session::kernelChanged, this, &StepPanel::kernelChanged);
  connect(session_, &Session::loaded, this, &StepPanel::kernelChanged);
  connect(session_, &Session::closed, this, &StepPanel::kernelChanged);
  kernelChanged();
}

// The spin box reports editingFinished when it loses focus, which it does while QWidget's destructor
// deletes it, after this object stopped being a StepPanel.
StepPanel::~StepPanel() {
  disconnect(element_, nullptr, this, nullptr);
  generation_++;
  pool_.waitForDone();  // the job holds a guarded pointer to this panel, not the panel itself
}

QString StepPanel::headerText() const { return QTextDocumentFragment::fromHtml(header_->text()).toPlainText(); }
void StepPanel::setElement(qint64 element) { element_->setValue(static_cast<int>(element)); }
void StepPanel::setMode(Mode m) { mode_->setCurrentIndex(static_cast<int>(m)); }
void StepPanel::setFollowGraph(bool follow) { followGraph_->setChecked(follow); }
void StepPanel::setTarget(const QString& target) { target_->setCurrentIndex(std::max(0, target_->findData(target))); }
void StepPanel::focusElement() {
  element_->setFocus();
  element_->selectAll();
}

bool StepPanel::isCapturingInputs() const { return rerunner_->isRunning(); }

void StepPanel::rerunFinished(bool ok, const QString& message) {
  cancel_->hide();
  if (ok) {
    step();
    return;
  }
  showError(message);
}

void StepPanel::kernelChanged() {
  generation_++;  // a stepping still running is for the old kernel
  stepping_ = false;
  rerunner_->cancel();
  cancel_->hide();
  otherRun_->hide();
  shown_ = other_ = {};
  divergenceHead_.clear();
  rowStep_.clear();
  list_->clear();
  listing_->clear();
  source_->clearSource();
  currentUop_ = -1;
  currentSourceLine_ = 0;
  std::optional<loupe::TraceKernel> k = session_->hasTrace() ? session_->kernelDetails(session_->selection().kernel) : std::nullopt;
  header_->setText(k ? tr("<b>%1</b>: pick an output element and press Step to watch it computed UOp by UOp on the interpreter.")
                           .arg(QString::fromStdString(k->name).toHtmlEscaped())
                     : tr("Select a kernel to step through it."));
}

std::shared_ptr<const loupe::RerunInputs> StepPanel::inputsFor(int64_t kernel, bool* proceed) {
  *proceed = true;
  loupe::TraceReader* reader = session_->reader();  // the session's queries run on this thread too
  if (reader->has_kernel_inputs(kernel)) return nullptr;
  if (const loupe::RerunInputs* rerun = rerunner_->captured(session_->path(), kernel))
    return std::make_shared<const loupe::RerunInputs>(*rerun);
  // The trace kept none: the program runs again for them, and this step follows.
  *proceed = false;
  QString why;
  const QString name = QString::fromStdString(reader->kernel(kernel).name).toHtmlEscaped();
  std::optional<loupe::InputRerun> plan = InputRerunner::plan(*reader, kernel, &why);
  if (!plan)
    throw loupe::Error(tr("the trace kept no inputs of %1 (larger than TRACE_INPUTS), and the program cannot be re-run for them: %2")
                           .arg(name, why)
                           .toStdString());
  // A trace not known to be this user's runs nothing without asking, every time.
  const QString cli = ScriptRunner::findCli();
  if (!plan->trust.trusted && !(consent_ ? consent_(*plan, cli) : RerunConsentDialog::ask(*plan, cli, this))) {
    header_->setText(tr("<b>%1</b>: the trace kept no inputs of it, and its program was not run again (you declined). "
                        "To step it, press Step and agree, or run the program yourself:<br><tt>%2</tt>")
                         .arg(name, QString::fromStdString(loupe::escape_for_terminal(plan->shell_command(cli.toStdString(), "rerun.loupe")))
                                        .toHtmlEscaped()));
    return nullptr;
  }
  if (!rerunner_->start(*plan, kernel, session_->path(), &why))
    throw loupe::Error(tr("the trace kept no inputs of %1 (larger than TRACE_INPUTS), and the program cannot be re-run for them: %2")
                           .arg(name, why)
                           .toStdString());
  cancel_->show();
  header_->setText(tr("The trace kept no inputs of <b>%1</b> (larger than TRACE_INPUTS): re-running <tt>%2</tt> to capture them…")
                       .arg(name, rerunner_->description().toHtmlEscaped()));
  return nullptr;
}

// What a stepping job hands back to the GUI thread.
struct StepPanel::Stepped {
  loupe::KernelStepping shown, other;  // other: divergence only
  loupe::Divergence divergence;
  bool compared = false;
  bool verifiedInputs = false;
  QString error;
};

namespace {

// Plans and interprets the kernel on the step thread, through a reader of its own (SQLite statements
// are not shared between threads, and the GUI keeps querying the session's reader meanwhile).
void runStepping(StepPanel::Mode mode, const QString& tracePath, int64_t kernel, const loupe::StepRequest& req, const std::string& target,
                 const std::shared_ptr<const loupe::RerunInputs>& rerun, loupe::KernelStepping& shown, loupe::KernelStepping& other,
                 loupe::Divergence& divergence, bool& compared) {
  loupe::TraceReaderOptions opts;
  opts.quick_check = false;  // the Session checked the file when it opened it
  loupe::TraceReader reader(tracePath.toStdString(), opts);
  if (mode == StepPanel::Mode::Divergence || mode == StepPanel::Mode::TargetDivergence) {
    const bool vsTarget = mode == StepPanel::Mode::TargetDivergence;
    if (vsTarget && target.empty()) throw loupe::Error("pick the target to compare with (CPU, LLVM, CUDA, OpenCL or AMD)");
    shown = loupe::step_trace_kernel(reader, kernel, req, {false, vsTarget ? std::string() : target}, rerun.get());
    other = loupe::step_trace_kernel(reader, kernel, req, {!vsTarget, target}, rerun.get());
    divergence = loupe::first_divergence(shown, other);
    compared = true;
  } else {
    shown = loupe::step_trace_kernel(reader, kernel, req, {mode == StepPanel::Mode::Noopt, target}, rerun.get());
  }
}

} // namespace

void StepPanel::step() {
  const int64_t kernel = session_->selection().kernel;
  if (!session_->hasTrace() || kernel < 0 || !session_->reader() || rerunner_->isRunning()) return;
  loupe::StepRequest req;
  req.element = element_->value();
  req.max_steps = 50000;
  const Mode mode = static_cast<Mode>(mode_->currentIndex());
  std::shared_ptr<const loupe::RerunInputs> rerun;
  try {
    bool proceed = false;
    rerun = inputsFor(kernel, &proceed);
    if (!proceed) return;
  } catch (const loupe::Error& e) {
    showError(QString::fromStdString(e.what()));
    return;
  }
  const quint64 generation = ++generation_;
  stepping_ = true;
  header_->setText(tr("stepping…"));
  const QString path = session_->path();
  const std::string target = target_->currentData().toString().toStdString();
  QPointer<StepPanel> self(this);
  pool_.start([self, generation, mode, path, kernel, req, target, rerun] {
    auto result = std::make_shared<Stepped>();
    try {
      runStepping(mode, path, kernel, req, target, rerun, result->shown, result->other, result->divergence, result->compared);
      result->verifiedInputs = rerun && rerun->verified;
    } catch (const std::exception& e) {
      result->error = QString::fromStdString(e.what());
    }
    if (!self) return;
    QMetaObject::invokeMethod(
        self.data(), [self, generation, result] {
          if (self) self->adopt(generation, result);
        },
        Qt::QueuedConnection);
  });
}

void StepPanel::adopt(quint64 generation, std::shared_ptr<Stepped> result) {
  if (generation != generation_) return;  // a newer step or another kernel was asked for meanwhile
  stepping_ = false;
  if (!result->error.isEmpty()) {
    showError(result->error);
    Q_EMIT steppingFinished();
    return;
  }
  divergentStep_ = otherDivergent_ = SIZE_MAX;
  divergenceHead_.clear();
  shown_ = std::move(result->shown);
  other_ = std::move(result->other);
  if (result->compared) {
    const loupe::Divergence& d = result->divergence;
    divergentStep_ = d.step_a;
    otherDivergent_ = d.step_b;
    divergenceHead_ = tr("<b>First divergence</b> (%1 steps %2, %3 %4): %5")
                          .arg(shown_.steps.size())
                          .arg(QString::fromStdString(shown_.variant))
                          .arg(other_.steps.size())
                          .arg(QString::fromStdString(other_.variant))
                          .arg(QString::fromStdString(d.explanation).toHtmlEscaped());
    if (d.step_a == SIZE_MAX && d.step_b != SIZE_MAX) showOtherRun();  // only the other run has the place
  }
  verifiedInputs_ = result->verifiedInputs;
  present();
  Q_EMIT steppingFinished();
}

void StepPanel::showError(const QString& message) {
  shown_ = other_ = {};
  list_->clear();
  listing_->clear();
  source_->clearSource();
  rowStep_.clear();
  otherRun_->hide();
  header_->setText(tr("<span style=\"color:#b00020\">Cannot step this kernel: %1</span>").arg(message.toHtmlEscaped()));
}

// In divergence mode: the other stepping takes the lists' place (and the one shown waits in other_).
void StepPanel::showOtherRun() {
  if (other_.steps.empty()) return;
  std::swap(shown_, other_);
  std::swap(divergentStep_, otherDivergent_);
}

void StepPanel::present() {
  otherRun_->setVisible(!other_.steps.empty());
  otherRun_->setText(tr("Show %1").arg(QString::fromStdString(other_.variant)));
  const QString value = QString::fromStdString(loupe::interp::format_lane(shown_.value, shown_.dtype));
  QString summary = tr("<b>%1</b> (%2, interpreted for %3): data%4[%5] = <b>%6</b>, stored by work-item %7 · %8 steps%9")
                        .arg(QString::fromStdString(shown_.kernel).toHtmlEscaped(), QString::fromStdString(shown_.variant),
                             QString::fromStdString(shown_.target))
                        .arg(shown_.output)
                        .arg(shown_.element)
                        .arg(value)
                        .arg(shown_.item)
                        .arg(shown_.steps.size())
                        .arg(shown_.truncated ? tr(" (the first ones: more were cut)") : QString());
  if (!shown_.note.empty()) {
    summary += QStringLiteral("<br><span style=\"color:%1\">%2</span>")
                   .arg(verifiedInputs_ ? QStringLiteral("#2e7d32") : QStringLiteral("#b35c00"), QString::fromStdString(shown_.note).toHtmlEscaped());
  }
  header_->setText(divergenceHead_.isEmpty() ? summary : divergenceHead_ + QStringLiteral("<br>") + summary);
  listing_->setPlainText(QString::fromStdString(loupe::program_listing(shown_.program)));
  source_->setSource(QString::fromStdString(shown_.source), languageForBackend(QString::fromStdString(shown_.target)));
  showSteps();
}

void StepPanel::showSteps() {
  list_->clear();
  rowStep_.clear();
  int select = 0;
  for (size_t i = 0; i < shown_.steps.size(); i++) {
    const loupe::SteppedUOp& st = shown_.steps[i];
    if (relevantOnly_->isChecked() && !st.relevant() && i != divergentStep_) continue;
    auto* item = new QListWidgetItem(QStringLiteral("#%1 %2").arg(i).arg(QString::fromStdString(loupe::describe_step(shown_, st))), list_);
    if (!st.relevant()) item->setForeground(QColor(140, 140, 140));
    if (i == divergentStep_) {
      item->setBackground(QColor(255, 214, 214));
      select = list_->count() - 1;
    }
    rowStep_.push_back(i);
  }
  if (list_->count()) list_->setCurrentRow(select);
}

namespace {

// Marks one line (0-based) of the listing and scrolls it to the middle.
void markLine(QPlainTextEdit* view, int line) {
  QTextBlock block = view->document()->findBlockByNumber(line);
  if (!block.isValid()) {
    view->setExtraSelections({});
    return;
  }
  QTextEdit::ExtraSelection sel;
  sel.cursor = QTextCursor(block);
  sel.cursor.select(QTextCursor::LineUnderCursor);
  sel.format.setBackground(QColor(255, 236, 160));
  sel.format.setProperty(QTextFormat::FullWidthSelection, true);
  view->setExtraSelections({sel});
  view->setTextCursor(QTextCursor(block));
  view->centerCursor();
}

} // namespace

void StepPanel::selectStep(int row) {
  if (row < 0 || static_cast<size_t>(row) >= rowStep_.size()) return;
  currentUop_ = shown_.steps[rowStep_[static_cast<size_t>(row)]].uop;
  markLine(listing_, currentUop_);
  const size_t u = static_cast<size_t>(currentUop_);
  currentSourceLine_ = u < shown_.source_lines.size() ? shown_.source_lines[u] : 0;
  if (!source_->revealLine(currentSourceLine_)) source_->setCurrentRow(-1);  // revealing marks the row
  if (followGraph_->isChecked()) showInGraph();
}

bool StepPanel::selectStepOnLine(int line) {
  for (size_t row = 0; row < rowStep_.size(); row++) {
    const size_t u = static_cast<size_t>(shown_.steps[rowStep_[row]].uop);
    if (u < shown_.source_lines.size() && shown_.source_lines[u] == line) {
      list_->setCurrentRow(static_cast<int>(row));
      return true;
    }
  }
  return false;
}

// The node is looked up in the final graph of the context that planned the variant shown: the kernel's
// own for the optimized kernel, its NOOPT child for the NOOPT one. The linearizer's own nodes (loop
// ends) are not in any graph: their loop's RANGE stands for them.
void StepPanel::showInGraph() {
  if (currentUop_ < 0 || static_cast<size_t>(currentUop_) >= shown_.program.size() || !session_->hasTrace()) return;
  if (shown_.other_target) return;
  session_->revealKernelUOp(session_->selection().kernel, shown_.noopt, shown_.program[static_cast<size_t>(currentUop_)].get());
}

} // namespace loupe::views
