#include "panels/scriptpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "panels/kernelnamedelegate.h"
#include "panels/scripthighlighter.h"
#include "runtime/device.h"
#include "session/provenance.h"
#include "session/scriptrunner.h"
#include "session/session.h"
#include "trace/trace_reader.h"
#include "widgets/elidedlabel.h"
#include "panels/scripteditor.h"

namespace loupe::views {

namespace {
QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}
} // namespace

QMap<QString, QString> ScriptPanel::examples() {
  QMap<QString, QString> out;
  QDirIterator bundled(QStringLiteral(":/examples"), {QStringLiteral("*.py")}, QDir::Files);
  while (bundled.hasNext()) {
    const QString p = bundled.next();
    out.insert(QFileInfo(p).fileName(), readText(p));
  }
  // A folder on disk adds examples written after this build (and wins for the same name).
  QStringList dirs;
  if (const QString src = qEnvironmentVariable("LOUPE_SOURCE_DIR"); !src.isEmpty())
    dirs << QDir(src).filePath(QStringLiteral("resources/examples"));
  const QDir app(QCoreApplication::applicationDirPath());
  dirs << app.filePath(QStringLiteral("../resources/examples")) << app.filePath(QStringLiteral("../../resources/examples"))
       << app.filePath(QStringLiteral("../share/loupe/examples"));
  for (const QString& d : dirs) {
    QDir dir(d);
    if (!dir.exists()) continue;
    for (const QFileInfo& fi : dir.entryInfoList({QStringLiteral("*.py")}, QDir::Files, QDir::Name))
      out.insert(fi.fileName(), readText(fi.filePath()));
    break;
  }
  return out;
}

ScriptPanel::ScriptPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), runner_(new ScriptRunner(this)) {
  editor_ = new ScriptEditor(this);
  editor_->setObjectName(QStringLiteral("scriptEditor"));
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  editor_->setFont(mono);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')) * 4);
  highlighter_ = new ScriptHighlighter(editor_->document());
  highlighter_->setDark(isDarkPalette(palette()));
  output_ = new QPlainTextEdit(this);
  output_->setObjectName(QStringLiteral("scriptOutput"));
  output_->setReadOnly(true);
  output_->setFont(mono);
  output_->setLineWrapMode(QPlainTextEdit::NoWrap);
  output_->setMaximumBlockCount(20000);
  output_->setPlaceholderText(tr("The output of loupe-cli appears here (one DEBUG=2 line per kernel run)."));
  output_->viewport()->installEventFilter(this);

  examplesButton_ = new QToolButton(this);
  examplesButton_->setText(tr("Examples"));
  examplesButton_->setPopupMode(QToolButton::InstantPopup);
  const QMap<QString, QString> ex = examples();
  examplesButton_->setMenu(examplesMenu(ex));

  device_ = new QComboBox(this);
  device_->setToolTip(tr("Device the script runs on (DEVICE)"));
  device_->addItem(tr("default device"), QString());
  noopt_ = new QCheckBox(tr("NOOPT"), this);
  noopt_->setToolTip(tr("Run without kernel optimizations"));
  compare_ = new QCheckBox(tr("Time NOOPT"), this);
  compare_->setChecked(true);
  compare_->setToolTip(tr("Also time each optimized kernel's NOOPT version, for the speed-up in Compare"));
  connect(noopt_, &QCheckBox::toggled, compare_, [this](bool on) { compare_->setEnabled(!on); });
  hotspots_ = new QCheckBox(tr("Hot spots"), this);
  hotspots_->setToolTip(tr("Sample where each CPU and LLVM kernel spends its time (--hotspots): the Code and Machine code "
                           "panels shade each line and instruction by its share, the Profile gets each kernel's hottest line"));
  beam_ = new QSpinBox(this);
  beam_->setRange(0, 64);
  beam_->setPrefix(tr("BEAM "));
  beam_->setSpecialValueText(tr("BEAM off"));
  beam_->setToolTip(tr("BEAM search width for kernel optimizations (0: hand-coded heuristics)"));
  runButton_ = new QToolButton(this);
  runButton_->setText(tr("▶ Run"));
  runButton_->setToolTip(tr("Run the script in loupe-cli and open its trace (F5)"));
  runButton_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  stopButton_ = new QToolButton(this);
  stopButton_->setText(tr("■ Stop"));
  stopButton_->setEnabled(false);
  status_ = new ElidedLabel(this);
  status_->setObjectName(QStringLiteral("scriptStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(examplesButton_);
  bar->addSpacing(8);
  bar->addWidget(device_);
  bar->addWidget(noopt_);
  bar->addWidget(compare_);
  bar->addWidget(hotspots_);
  bar->addWidget(beam_);
  bar->addSpacing(8);
  bar->addWidget(runButton_);
  bar->addWidget(stopButton_);
  bar->addSpacing(8);
  bar->addWidget(status_, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(editor_);
  split->addWidget(output_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(4);
  lay->addLayout(bar);
  lay->addWidget(split, 1);

  connect(runButton_, &QToolButton::clicked, this, &ScriptPanel::run);
  connect(stopButton_, &QToolButton::clicked, this, &ScriptPanel::stop);
  connectRunner();
  // Another trace opened: its own program replaces the previous one's (a run's trace keeps the run's).
  connect(session_, &Session::loaded, this, [this] {
    if (!isRunTrace(session_->path())) showTraceProgram();
  });
  fillDevices();
  if (!ex.isEmpty()) {
    const QString first = ex.contains(QStringLiteral("matmul_relu_sum.py")) ? QStringLiteral("matmul_relu_sum.py") : ex.firstKey();
    setScript(ex.value(first), first);
  }
  if (runner_->cliPath().isEmpty()) setStatus(tr("loupe-cli not found: Run is unavailable"), true);
  runButton_->setEnabled(!runner_->cliPath().isEmpty());
}

// One action a bundled example: its first comment line says what it is.
QMenu* ScriptPanel::examplesMenu(const QMap<QString, QString>& ex) {
  auto* menu = new QMenu(examplesButton_);
  for (auto it = ex.begin(); it != ex.end(); ++it) {
    const QString name = it.key(), text = it.value();
    QAction* a = menu->addAction(name);
    a->setToolTip(text.section(QLatin1Char('\n'), 0, 0).remove(QRegularExpression(QStringLiteral("^#\\s*"))));
    connect(a, &QAction::triggered, this, [this, name, text] { setScript(text, name); });
  }
  menu->setToolTipsVisible(true);
  if (ex.isEmpty()) menu->addAction(tr("(no examples found)"))->setEnabled(false);
  return menu;
}

// A run's output into the output pane, its trace opened as it starts and re-read as it grows, and
// its end reported.
void ScriptPanel::connectRunner() {
  connect(runner_, &ScriptRunner::output, this, &ScriptPanel::appendOutput);
  connect(runner_, &ScriptRunner::traceStarted, this, [this](const QString& path) {
    traceOpened_ = true;
    session_->open(path);
  });
  connect(runner_, &ScriptRunner::traceGrew, this, [this](const QString& path) {
    if (session_->isLoading()) return;  // the previous read is still going; the next tick catches up
    if (session_->path() == path) session_->reload();
    else session_->open(path);  // the first open failed (header not complete yet): try again
  });
  connect(runner_, &ScriptRunner::finished, this, [this](int code, bool crashed, const QString& message) {
    runButton_->setEnabled(true);
    stopButton_->setEnabled(false);
    const bool ok = !crashed && code == 0;
    // a run that recorded nothing (it failed first) leaves the open trace alone
    if (QFileInfo::exists(runTrace_) && (traceOpened_ || loupe::TraceReader::committed_contexts(runTrace_.toStdString()) > 0)) {
      if (session_->path() == runTrace_) session_->reload();
      else session_->open(runTrace_);
    }
    if (ok) setStatus(tr("Finished: the trace is open."));
    else setStatus(crashed ? tr("loupe-cli crashed — the app is fine; see the output.") : message, true);
    if (!ok) appendOutput(QStringLiteral("\n%1\n").arg(crashed ? tr("[loupe-cli crashed]") : tr("[loupe-cli failed: %1]").arg(message)), true);
    Q_EMIT runFinished(ok, message);
  });
}

void ScriptPanel::fillDevices() {
  // Probing devices may load drivers: do it off the GUI thread.
  auto* watcher = new QFutureWatcher<std::vector<loupe::DeviceStatus>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    auto* model = qobject_cast<QStandardItemModel*>(device_->model());
    for (const loupe::DeviceStatus& d : watcher->result()) {
      device_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.name));
      const int row = device_->count() - 1;
      if (!d.available && model) {
        model->item(row)->setEnabled(false);
        model->item(row)->setToolTip(QString::fromStdString(d.reason));
        device_->setItemText(row, QStringLiteral("%1 (unavailable)").arg(QString::fromStdString(d.name)));
      }
    }
  });
  loupe::prepare_process_environment();  // on this (the main) thread, before the probe's thread
  watcher->setFuture(QtConcurrent::run([] {
    try {
      return loupe::list_devices();
    } catch (const std::exception&) {
      return std::vector<loupe::DeviceStatus>{};
    }
  }));
}

void ScriptPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) highlighter_->setDark(isDarkPalette(palette()));
  QWidget::changeEvent(event);
}

void ScriptPanel::setScript(const QString& text, const QString& name) {
  editor_->setPlainText(text);
  editor_->markLine(0);
  recordedPath_.clear();
  editor_->document()->setModified(false);
  name_ = name;
  file_.clear();
  setStatus(tr("%1 — press Run (F5)").arg(name));
}

void ScriptPanel::showTraceProgram() {
  const auto& info = session_->trace().runInfo;
  const auto text = info.find("script");
  const auto path = info.find("script_path");
  const QString traceName = QFileInfo(session_->path()).fileName();
  const QString name = path != info.end() && !path->second.empty() ? QFileInfo(QString::fromStdString(path->second)).fileName()
                                                                  : QStringLiteral("script.py");
  if (editor_->document()->isModified()) {
    setStatus(tr("Your unsaved edits stay in the editor (%1 was recorded from %2)").arg(traceName, name));
    return;
  }
  if (text == info.end() || text->second.empty()) {
    setScript(QString(), QStringLiteral("script.py"));
    setStatus(tr("%1 recorded no program").arg(traceName));
    return;
  }
  // The text the trace holds, shown, never run: Run is the user's choice, after reading it.
  setScript(QString::fromStdString(text->second), name);
  // (a trace may hold the program's text without its path: damaged, or written by another tool)
  recordedPath_ = path != info.end() && !path->second.empty() ? QFileInfo(QString::fromStdString(path->second)).absoluteFilePath()
                                                             : QString();
  setStatus(tr("%1 as %2 recorded it (not run)").arg(name, traceName));
}

QString ScriptPanel::script() const { return editor_->toPlainText(); }

bool ScriptPanel::loadScriptFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot read %1: %2").arg(path, f.errorString());
    return false;
  }
  setScript(QString::fromUtf8(f.readAll()), QFileInfo(path).fileName());
  file_ = QFileInfo(path).absoluteFilePath();
  return true;
}

int ScriptPanel::currentLine() const { return editor_->textCursor().blockNumber() + 1; }

bool ScriptPanel::showSourceLine(const QString& file, int line) {
  const QString path = QFileInfo(file).absoluteFilePath();
  const bool shown = path == QFileInfo(runner_->scriptPath()).absoluteFilePath() || (!file_.isEmpty() && path == file_) ||
                     (!recordedPath_.isEmpty() && path == recordedPath_ && !editor_->document()->isModified());
  if (!shown) {
    // the path comes from a trace or a traceback: only a plain file of a program's size is read
    if (!QFileInfo(path).isFile()) {
      setStatus(tr("%1 is not a file here").arg(file), true);
      return false;
    }
    if (QFileInfo(path).size() > (qint64(16) << 20)) {
      setStatus(tr("%1 is too large to be the program (over 16 MiB): not opened").arg(file), true);
      return false;
    }
    if (editor_->document()->isModified()) {
      setStatus(tr("The editor has unsaved edits: %1:%2 was not opened").arg(QFileInfo(file).fileName()).arg(line), true);
      return false;
    }
    QString error;
    if (!loadScriptFile(path, &error)) {
      setStatus(error, true);
      return false;
    }
  }
  const QTextBlock block = editor_->document()->findBlockByNumber(std::max(0, line - 1));
  if (!block.isValid()) return false;
  QTextCursor c(block);
  editor_->setTextCursor(c);
  editor_->centerCursor();
  editor_->markLine(block.blockNumber() + 1);
  editor_->setFocus();
  setStatus(tr("%1:%2").arg(QFileInfo(file).fileName()).arg(line));
  return true;
}

bool ScriptPanel::eventFilter(QObject* watched, QEvent* event) {
  // a click on a traceback's `File "...", line N` shows that line
  if (watched == output_->viewport() && event->type() == QEvent::MouseButtonRelease) {
    const QString href = output_->anchorAt(static_cast<QMouseEvent*>(event)->position().toPoint());
    QString file;
    int line = 0;
    if (parseSourceLink(href, &file, &line)) {
      showSourceLine(file, line);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

bool ScriptPanel::isRunTrace(const QString& path) const { return !runTrace_.isEmpty() && path == runTrace_; }
QString ScriptPanel::statusText() const { return status_->text(); }

bool ScriptPanel::run() {
  ScriptRunOptions opts;
  opts.device = device_->currentData().toString();
  opts.noopt = noopt_->isChecked();
  opts.compareNoopt = !opts.noopt && compare_->isChecked();
  opts.hotspots = hotspots_->isChecked();
  opts.beam = beam_->value();
  opts.programFile = file_;
  opts.textIsFile = !file_.isEmpty() && !editor_->document()->isModified();
  output_->clear();
  traceOpened_ = false;
  if (!runner_->start(script(), name_, opts)) {
    setStatus(runner_->errorText(), true);
    appendOutput(runner_->errorText() + QLatin1Char('\n'), true);
    return false;
  }
  runTrace_ = runner_->tracePath();
  appendOutput(QStringLiteral("$ loupe-cli %1\n").arg(runner_->arguments().join(QLatin1Char(' '))), false);
  runButton_->setEnabled(false);
  stopButton_->setEnabled(true);
  setStatus(tr("Running %1…").arg(name_));
  Q_EMIT runStarted();
  return true;
}

void ScriptPanel::stop() { runner_->stop(); }

void ScriptPanel::appendOutput(const QString& text, bool error) {
  QTextCursor c(output_->document());
  c.movePosition(QTextCursor::End);
  QTextCharFormat f;
  if (error) f.setForeground(isDarkPalette(palette()) ? QColor(0xff, 0x8a, 0x80) : QColor(0xb7, 0x1c, 0x1c));
  // a Python traceback's `File "PATH", line N` becomes a link to that line
  static const QRegularExpression frame(QStringLiteral("File \"([^\"]+)\", line (\\d+)"));
  qsizetype at = 0;
  for (QRegularExpressionMatchIterator it = frame.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    c.insertText(text.mid(at, m.capturedStart() - at), f);
    QTextCharFormat link = f;
    link.setAnchor(true);
    link.setAnchorHref(sourceLink(m.captured(1), m.captured(2).toInt()));
    link.setFontUnderline(true);
    link.setToolTip(tr("Show this line in the editor"));
    c.insertText(m.captured(0), link);
    at = m.capturedEnd();
  }
  c.insertText(text.mid(at), f);
  output_->verticalScrollBar()->setValue(output_->verticalScrollBar()->maximum());
}

void ScriptPanel::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

} // namespace loupe::views
