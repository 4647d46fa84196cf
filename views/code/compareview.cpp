#include "code/compareview.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "code/codeview.h"
#include "widgets/chartchrome.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {

QString escaped(const QString& s) { return s.toHtmlEscaped(); }

// Keeps two scroll bars at the same value; the rows are aligned, so equal values mean equal rows.
void syncScrollBars(QScrollBar* a, QScrollBar* b, bool* guard) {
  auto follow = [guard](QScrollBar* to) {
    return [guard, to](int value) {
      if (*guard) return;
      *guard = true;
      to->setValue(value);
      *guard = false;
    };
  };
  QObject::connect(a, &QScrollBar::valueChanged, b, follow(b));
  QObject::connect(b, &QScrollBar::valueChanged, a, follow(a));
}

} // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(8, 6, 8, 6);
  top->setSpacing(12);
  title_ = loupe::views::widthFromLayout(new QLabel(this));
  title_->setTextFormat(Qt::RichText);
  speedup_ = loupe::views::widthFromLayout(new QLabel(this));
  speedup_->setTextFormat(Qt::RichText);
  speedupNote_ = loupe::views::widthFromLayout(new QLabel(this));
  speedupNote_->setTextFormat(Qt::RichText);
  speedupNote_->setWordWrap(true);
  speedupNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  speedupNote_->setContentsMargins(8, 0, 8, 6);
  stats_ = loupe::views::widthFromLayout(new QLabel(this));
  ignoreWhitespace_ = new QCheckBox(tr("Ignore whitespace"), this);
  ignoreWhitespace_->setChecked(true);
  prev_ = new QToolButton(this);
  prev_->setText(QStringLiteral("▲"));
  prev_->setToolTip(tr("Previous change (Shift+F7)"));
  prev_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
  next_ = new QToolButton(this);
  next_->setText(QStringLiteral("▼"));
  next_->setToolTip(tr("Next change (F7)"));
  next_->setShortcut(QKeySequence(Qt::Key_F7));
  top->addWidget(title_);
  top->addWidget(speedup_);
  top->addStretch(1);
  top->addWidget(stats_);
  top->addWidget(prev_);
  top->addWidget(next_);
  top->addWidget(ignoreWhitespace_);

  left_ = new CodeView(this);
  right_ = new CodeView(this);
  // Same viewport height on both sides, so equal scroll values show equal rows down to the last one.
  left_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  right_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  auto side = [this](QLabel** title, QLabel** details, CodeView* view) {
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    v->addWidget(makeSideHeader(title, details));
    v->addWidget(view, 1);
    return w;
  };
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(side(&leftTitle_, &leftDetails_, left_));
  split->addWidget(side(&rightTitle_, &rightDetails_, right_));
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(top);
  layout->addWidget(speedupNote_);
  layout->addWidget(split, 1);

  syncScrollBars(left_->verticalScrollBar(), right_->verticalScrollBar(), &syncing_);
  syncScrollBars(left_->horizontalScrollBar(), right_->horizontalScrollBar(), &syncing_);
  // The row under the cursor on one side is marked on the other: rows are aligned.
  connect(left_, &CodeView::currentRowChanged, right_, &CodeView::setCurrentRow);
  connect(right_, &CodeView::currentRowChanged, left_, &CodeView::setCurrentRow);
  connect(ignoreWhitespace_, &QCheckBox::toggled, this, [this] { rebuildWhenShown(); });
  connect(next_, &QToolButton::clicked, this, &CompareView::nextChange);
  connect(prev_, &QToolButton::clicked, this, &CompareView::previousChange);
  clear();
}

QWidget* CompareView::makeSideHeader(QLabel** title, QLabel** details) {
  auto* box = new QWidget(this);
  box->setAutoFillBackground(true);
  box->setBackgroundRole(QPalette::AlternateBase);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(8, 6, 8, 6);
  v->setSpacing(2);
  *title = loupe::views::widthFromLayout(new QLabel(box));  // a long kernel name is clipped, never widens the window
  (*title)->setTextFormat(Qt::RichText);
  (*title)->setTextInteractionFlags(Qt::TextSelectableByMouse);
  *details = loupe::views::widthFromLayout(new QLabel(box));
  (*details)->setTextFormat(Qt::RichText);
  (*details)->setWordWrap(true);
  (*details)->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(*title);
  v->addWidget(*details);
  return box;
}

void CompareView::clear() { setInput(CompareInput{}); }

bool CompareView::ignoresWhitespace() const { return ignoreWhitespace_->isChecked(); }
void CompareView::setIgnoreWhitespace(bool ignore) { ignoreWhitespace_->setChecked(ignore); }

void CompareView::setInput(const CompareInput& input) {
  input_ = input;
  rebuildWhenShown();
}

// Shown means on screen: a dock behind another tab stays "visible" to Qt.
void CompareView::rebuildWhenShown() {
  stale_ = true;
  if (isVisible() && !visibleRegion().isEmpty()) rebuild();
}

const CompareView& CompareView::ensureBuilt() const {
  if (stale_) const_cast<CompareView*>(this)->rebuild();
  return *this;
}

void CompareView::showEvent(QShowEvent* event) {
  ensureBuilt();
  // In a tabbed dock, selecting the tab shows nothing new to this widget: the dock says so.
  if (!dockWatched_)
    for (QWidget* p = parentWidget(); p; p = p->parentWidget())
      if (auto* dock = qobject_cast<QDockWidget*>(p)) {
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
          if (visible) ensureBuilt();
        });
        dockWatched_ = true;
        break;
      }
  QWidget::showEvent(event);
}

void CompareView::rebuild() {
  stale_ = false;
  auto lines = [](const QString& s) { return s.isEmpty() ? QStringList() : s.split(u'\n'); };
  const QStringList left = lines(input_.noopt.source), right = lines(input_.optimized.source);
  alignment_ = alignLines(left, right, ignoresWhitespace() ? LineCompare::IgnoreWhitespace : LineCompare::Exact);
  rows_ = buildCompareRows(alignment_, left, right);
  // The diff reads from NOOPT to optimized (what the optimizations added is green); the sides show
  // optimized first, as `loupe-cli run --compare-noopt` prints them.
  optimizedView()->setRows(rows_.right, input_.optimized.language);
  nooptView()->setRows(rows_.left, input_.noopt.language);
  updateHeader();
}

void CompareView::updateHeader() {
  const bool dark = isDarkBase(palette());
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  const KernelVariant& o = input_.optimized;
  const QString name = o.name.isEmpty() ? input_.noopt.name : o.name;
  title_->setText(name.isEmpty()
                       ? tr("<b>Compare</b> <span style='color:%1'>— no kernel selected</span>").arg(muted)
                       : tr("<b>Compare</b> <tt>%1</tt> on <b>%2</b>")
                             .arg(escaped(name), escaped(input_.device.isEmpty() ? tr("?") : input_.device)));

  const double s = compareSpeedup(input_);
  QString colour = muted;
  if (std::isfinite(s) && s > 1.005)
    colour = dark ? QStringLiteral("#7ee2a8") : QStringLiteral("#1a7f37");
  else if (std::isfinite(s) && s < 0.995)
    colour = dark ? QStringLiteral("#ff8f8f") : QStringLiteral("#cf222e");
  speedup_->setText(QStringLiteral("<span style='font-size:large; font-weight:bold; color:%1'>%2</span>")
                         .arg(colour, escaped(formatSpeedup(s))));
  speedup_->setToolTip(tr("NOOPT time / optimized time"));
  // "speed-up unknown" alone reads like a failure: say why, and how to get the number.
  const QString reason = speedupUnknownReason(input_);
  QString note = escaped(reason);
  note.replace(QRegularExpression(QStringLiteral("`([^`]*)`")), QStringLiteral("<tt>\\1</tt>"));
  speedupNote_->setText(QStringLiteral("<span style='color:%1'>Speed-up unknown: %2.</span>").arg(muted, note));
  speedupNote_->setVisible(!reason.isEmpty());

  stats_->setText(tr("%1 unchanged · %2 changed · %3 only in optimized · %4 only in NOOPT")
                       .arg(alignment_.unchanged)
                       .arg(alignment_.changed)
                       .arg(alignment_.added)
                       .arg(alignment_.removed));
  prev_->setEnabled(!rows_.hunkStarts.isEmpty());
  next_->setEnabled(!rows_.hunkStarts.isEmpty());

  const QString chipBg = dark ? QStringLiteral("#2f3b52") : QStringLiteral("#e3ebfa");
  const QString chipFg = dark ? QStringLiteral("#cfe0ff") : QStringLiteral("#1b3a75");
  auto describe = [&](const KernelVariant& v, QLabel* title, QLabel* details, const QString& role) {
    title->setText(QStringLiteral("<span style='color:%1'>%2</span>&nbsp;&nbsp;<tt><b>%3</b></tt>")
                       .arg(muted, role, escaped(v.name.isEmpty() ? tr("(none)") : v.name)));
    QStringList chips;
    for (const QString& opt : v.opts)
      chips << QStringLiteral("<span style='background:%1; color:%2'>&nbsp;%3&nbsp;</span>")
                   .arg(chipBg, chipFg, escaped(opt));
    const QString opts = chips.isEmpty()
                             ? QStringLiteral("<span style='color:%1'>%2</span>").arg(muted, tr("no opts applied"))
                             : chips.join(QStringLiteral(" "));
    details->setText(
        QStringLiteral("%1<br>%2<br><b>%3</b>")
            .arg(opts, escaped(formatLaunchDims(v.globalSize, v.localSize)), escaped(formatVariantMetrics(v))));
  };
  describe(input_.optimized, leftTitle_, leftDetails_, tr("optimized"));
  describe(input_.noopt, rightTitle_, rightDetails_, tr("NOOPT"));
}

QString CompareView::optimizedTitle() const { return QTextDocumentFragment::fromHtml(ensureBuilt().leftTitle_->text()).toPlainText(); }
QString CompareView::speedupNote() const {
  return ensureBuilt().speedupNote_->isHidden() ? QString() : QTextDocumentFragment::fromHtml(speedupNote_->text()).toPlainText();
}

QString CompareView::nooptTitle() const { return QTextDocumentFragment::fromHtml(ensureBuilt().rightTitle_->text()).toPlainText(); }

void CompareView::scrollToRow(int row) {
  // Put the row a few lines below the top so the context above a change stays visible.
  const int target = std::max(0, row - 3);
  left_->verticalScrollBar()->setValue(target); // QPlainTextEdit scrolls by block
  QTextCursor c(left_->document()->findBlockByNumber(row));
  left_->setTextCursor(c);
  QTextCursor rc(right_->document()->findBlockByNumber(row));
  right_->setTextCursor(rc);
}

void CompareView::nextChange() {
  ensureBuilt();
  if (rows_.hunkStarts.isEmpty()) return;
  const int current = left_->verticalScrollBar()->value() + 3;
  for (int start : rows_.hunkStarts) {
    if (start > current) return scrollToRow(start);
  }
  scrollToRow(rows_.hunkStarts.front()); // wrap around
}

void CompareView::previousChange() {
  ensureBuilt();
  if (rows_.hunkStarts.isEmpty()) return;
  const int current = left_->verticalScrollBar()->value() + 3;
  for (auto it = rows_.hunkStarts.crbegin(); it != rows_.hunkStarts.crend(); ++it) {
    if (*it < current) return scrollToRow(*it);
  }
  scrollToRow(rows_.hunkStarts.back());
}

void CompareView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) updateHeader();
}

} // namespace loupe::views
