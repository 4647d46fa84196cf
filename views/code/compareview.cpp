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
#include "panels/elidedlabel.h"

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
  m_title = loupe::views::widthFromLayout(new QLabel(this));
  m_title->setTextFormat(Qt::RichText);
  m_speedup = loupe::views::widthFromLayout(new QLabel(this));
  m_speedup->setTextFormat(Qt::RichText);
  m_speedupNote = loupe::views::widthFromLayout(new QLabel(this));
  m_speedupNote->setTextFormat(Qt::RichText);
  m_speedupNote->setWordWrap(true);
  m_speedupNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_speedupNote->setContentsMargins(8, 0, 8, 6);
  m_stats = loupe::views::widthFromLayout(new QLabel(this));
  m_ignoreWhitespace = new QCheckBox(tr("Ignore whitespace"), this);
  m_ignoreWhitespace->setChecked(true);
  m_prev = new QToolButton(this);
  m_prev->setText(QStringLiteral("▲"));
  m_prev->setToolTip(tr("Previous change (Shift+F7)"));
  m_prev->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
  m_next = new QToolButton(this);
  m_next->setText(QStringLiteral("▼"));
  m_next->setToolTip(tr("Next change (F7)"));
  m_next->setShortcut(QKeySequence(Qt::Key_F7));
  top->addWidget(m_title);
  top->addWidget(m_speedup);
  top->addStretch(1);
  top->addWidget(m_stats);
  top->addWidget(m_prev);
  top->addWidget(m_next);
  top->addWidget(m_ignoreWhitespace);

  m_left = new CodeView(this);
  m_right = new CodeView(this);
  // Same viewport height on both sides, so equal scroll values show equal rows down to the last one.
  m_left->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  m_right->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
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
  split->addWidget(side(&m_leftTitle, &m_leftDetails, m_left));
  split->addWidget(side(&m_rightTitle, &m_rightDetails, m_right));
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(top);
  layout->addWidget(m_speedupNote);
  layout->addWidget(split, 1);

  syncScrollBars(m_left->verticalScrollBar(), m_right->verticalScrollBar(), &m_syncing);
  syncScrollBars(m_left->horizontalScrollBar(), m_right->horizontalScrollBar(), &m_syncing);
  // The row under the cursor on one side is marked on the other: rows are aligned.
  connect(m_left, &CodeView::currentRowChanged, m_right, &CodeView::setCurrentRow);
  connect(m_right, &CodeView::currentRowChanged, m_left, &CodeView::setCurrentRow);
  connect(m_ignoreWhitespace, &QCheckBox::toggled, this, [this] { rebuildWhenShown(); });
  connect(m_next, &QToolButton::clicked, this, &CompareView::nextChange);
  connect(m_prev, &QToolButton::clicked, this, &CompareView::previousChange);
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

bool CompareView::ignoresWhitespace() const { return m_ignoreWhitespace->isChecked(); }
void CompareView::setIgnoreWhitespace(bool ignore) { m_ignoreWhitespace->setChecked(ignore); }

void CompareView::setInput(const CompareInput& input) {
  m_input = input;
  rebuildWhenShown();
}

// Shown means on screen: a dock behind another tab stays "visible" to Qt.
void CompareView::rebuildWhenShown() {
  m_stale = true;
  if (isVisible() && !visibleRegion().isEmpty()) rebuild();
}

const CompareView& CompareView::ensureBuilt() const {
  if (m_stale) const_cast<CompareView*>(this)->rebuild();
  return *this;
}

void CompareView::showEvent(QShowEvent* event) {
  ensureBuilt();
  // In a tabbed dock, selecting the tab shows nothing new to this widget: the dock says so.
  if (!m_dockWatched)
    for (QWidget* p = parentWidget(); p; p = p->parentWidget())
      if (auto* dock = qobject_cast<QDockWidget*>(p)) {
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
          if (visible) ensureBuilt();
        });
        m_dockWatched = true;
        break;
      }
  QWidget::showEvent(event);
}

void CompareView::rebuild() {
  m_stale = false;
  auto lines = [](const QString& s) { return s.isEmpty() ? QStringList() : s.split(u'\n'); };
  const QStringList left = lines(m_input.noopt.source), right = lines(m_input.optimized.source);
  m_alignment = alignLines(left, right, ignoresWhitespace() ? LineCompare::IgnoreWhitespace : LineCompare::Exact);
  m_rows = buildCompareRows(m_alignment, left, right);
  // The diff reads from NOOPT to optimized (what the optimizations added is green); the sides show
  // optimized first, as `loupe-cli run --compare-noopt` prints them.
  optimizedView()->setRows(m_rows.right, m_input.optimized.language);
  nooptView()->setRows(m_rows.left, m_input.noopt.language);
  updateHeader();
}

void CompareView::updateHeader() {
  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  const KernelVariant& o = m_input.optimized;
  const QString name = o.name.isEmpty() ? m_input.noopt.name : o.name;
  m_title->setText(name.isEmpty()
                       ? tr("<b>Compare</b> <span style='color:%1'>— no kernel selected</span>").arg(muted)
                       : tr("<b>Compare</b> <tt>%1</tt> on <b>%2</b>")
                             .arg(escaped(name), escaped(m_input.device.isEmpty() ? tr("?") : m_input.device)));

  const double s = compareSpeedup(m_input);
  QString colour = muted;
  if (std::isfinite(s) && s > 1.005)
    colour = dark ? QStringLiteral("#7ee2a8") : QStringLiteral("#1a7f37");
  else if (std::isfinite(s) && s < 0.995)
    colour = dark ? QStringLiteral("#ff8f8f") : QStringLiteral("#cf222e");
  m_speedup->setText(QStringLiteral("<span style='font-size:large; font-weight:bold; color:%1'>%2</span>")
                         .arg(colour, escaped(formatSpeedup(s))));
  m_speedup->setToolTip(tr("NOOPT time / optimized time"));
  // "speed-up unknown" alone reads like a failure: say why, and how to get the number.
  const QString reason = speedupUnknownReason(m_input);
  QString note = escaped(reason);
  note.replace(QRegularExpression(QStringLiteral("`([^`]*)`")), QStringLiteral("<tt>\\1</tt>"));
  m_speedupNote->setText(QStringLiteral("<span style='color:%1'>Speed-up unknown: %2.</span>").arg(muted, note));
  m_speedupNote->setVisible(!reason.isEmpty());

  m_stats->setText(tr("%1 unchanged · %2 changed · %3 only in optimized · %4 only in NOOPT")
                       .arg(m_alignment.unchanged)
                       .arg(m_alignment.changed)
                       .arg(m_alignment.added)
                       .arg(m_alignment.removed));
  m_prev->setEnabled(!m_rows.hunkStarts.isEmpty());
  m_next->setEnabled(!m_rows.hunkStarts.isEmpty());

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
  describe(m_input.optimized, m_leftTitle, m_leftDetails, tr("optimized"));
  describe(m_input.noopt, m_rightTitle, m_rightDetails, tr("NOOPT"));
}

QString CompareView::optimizedTitle() const { return QTextDocumentFragment::fromHtml(ensureBuilt().m_leftTitle->text()).toPlainText(); }
QString CompareView::speedupNote() const {
  return ensureBuilt().m_speedupNote->isHidden() ? QString() : QTextDocumentFragment::fromHtml(m_speedupNote->text()).toPlainText();
}

QString CompareView::nooptTitle() const { return QTextDocumentFragment::fromHtml(ensureBuilt().m_rightTitle->text()).toPlainText(); }

void CompareView::scrollToRow(int row) {
  // Put the row a few lines below the top so the context above a change stays visible.
  const int target = std::max(0, row - 3);
  m_left->verticalScrollBar()->setValue(target); // QPlainTextEdit scrolls by block
  QTextCursor c(m_left->document()->findBlockByNumber(row));
  m_left->setTextCursor(c);
  QTextCursor rc(m_right->document()->findBlockByNumber(row));
  m_right->setTextCursor(rc);
}

void CompareView::nextChange() {
  ensureBuilt();
  if (m_rows.hunkStarts.isEmpty()) return;
  const int current = m_left->verticalScrollBar()->value() + 3;
  for (int start : m_rows.hunkStarts) {
    if (start > current) return scrollToRow(start);
  }
  scrollToRow(m_rows.hunkStarts.front()); // wrap around
}

void CompareView::previousChange() {
  ensureBuilt();
  if (m_rows.hunkStarts.isEmpty()) return;
  const int current = m_left->verticalScrollBar()->value() + 3;
  for (auto it = m_rows.hunkStarts.crbegin(); it != m_rows.hunkStarts.crend(); ++it) {
    if (*it < current) return scrollToRow(*it);
  }
  scrollToRow(m_rows.hunkStarts.back());
}

void CompareView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) updateHeader();
}
