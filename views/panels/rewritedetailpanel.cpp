#include "panels/rewritedetailpanel.h"

#include <QFontDatabase>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QSyntaxHighlighter>
#include <QTabWidget>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <unordered_map>

#include "ir/print.h"
#include "panels/kernelnamedelegate.h"
#include "panels/whynotpanel.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "trace/uop_diff.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

QString uopTreeText(const loupe::UOpPtr& root, int maxDepth, int maxLines) {
  if (!root) return {};
  QStringList lines;
  std::unordered_map<const loupe::UOp*, int> seen;  // node -> its line number
  bool truncated = false;
  std::function<void(const loupe::UOp*, const QString&, const QString&, int)> walk =
      [&](const loupe::UOp* u, const QString& lead, const QString& childLead, int depth) {
        if (int(lines.size()) >= maxLines) {
          truncated = true;
          return;
        }
        QString label = QString::fromStdString(loupe::uop_label(*u, 60));
        if (auto it = seen.find(u); it != seen.end()) {
          lines << lead + label + QStringLiteral("   (same as line %1)").arg(it->second);
          return;
        }
        seen[u] = int(lines.size()) + 1;
        lines << lead + label;
        if (depth >= maxDepth) {
          if (!u->src.empty()) lines << childLead + QStringLiteral("└─ … %1 more below").arg(u->src.size());
          return;
        }
        for (size_t i = 0; i < u->src.size(); i++) {
          const bool last = i + 1 == u->src.size();
          walk(u->src[i].get(), childLead + (last ? QStringLiteral("└─") : QStringLiteral("├─")) + QStringLiteral("[%1] ").arg(i),
               childLead + (last ? QStringLiteral("   ") : QStringLiteral("│  ")), depth + 1);
        }
      };
  walk(root.get(), QString(), QString(), 0);
  if (truncated) lines << QStringLiteral("… (%1 lines shown)").arg(maxLines);
  return lines.join(QLatin1Char('\n'));
}

namespace {

// Colours unified-diff lines: removals red, additions green, hunk headers blue.
class DiffHighlighter : public QSyntaxHighlighter {
public:
  using QSyntaxHighlighter::QSyntaxHighlighter;
  void setDark(bool dark) {
    dark_ = dark;
    rehighlight();
  }

protected:
  void highlightBlock(const QString& text) override {
    if (text.isEmpty()) return;
    QTextCharFormat f;
    if (text.startsWith(QLatin1String("---")) || text.startsWith(QLatin1String("+++"))) {
      f.setFontWeight(QFont::Bold);
      setFormat(0, int(text.size()), f);
      return;
    }
    switch (text[0].unicode()) {
    case '-':
      f.setForeground(dark_ ? QColor(0xff, 0x8a, 0x80) : QColor(0xb7, 0x1c, 0x1c));
      f.setBackground(dark_ ? QColor(0x4a, 0x1e, 0x1e) : QColor(0xfd, 0xe8, 0xe8));
      break;
    case '+':
      f.setForeground(dark_ ? QColor(0x8c, 0xe9, 0x9a) : QColor(0x1b, 0x5e, 0x20));
      f.setBackground(dark_ ? QColor(0x1c, 0x3d, 0x24) : QColor(0xe6, 0xf6, 0xe8));
      break;
    case '@':
      f.setForeground(dark_ ? QColor(0x82, 0xb1, 0xff) : QColor(0x1f, 0x4f, 0xd8));
      break;
    default: return;
    }
    setFormat(0, int(text.size()), f);
  }

private:
  bool dark_ = false;
};

QPlainTextEdit* monoView(QWidget* parent) {
  auto* e = new QPlainTextEdit(parent);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  e->setFont(f);
  return e;
}

} // namespace

RewriteDetailPanel::RewriteDetailPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  diffPool_.setMaxThreadCount(1);
  title_ = widthFromLayout(new QLabel(this));
  title_->setObjectName(QStringLiteral("rewriteTitle"));
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  title_->setWordWrap(true);
  where_ = widthFromLayout(new QLabel(this));
  where_->setObjectName(QStringLiteral("rewriteWhere"));
  where_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  where_->setWordWrap(true);
  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  diff_ = monoView(this);
  auto* hl = new DiffHighlighter(diff_->document());
  hl->setDark(isDarkPalette(palette()));
  before_ = monoView(this);
  after_ = monoView(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto labelled = [&](const QString& title, QWidget* w) {
    auto* box = new QWidget(split);
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 2, 0, 0);
    l->setSpacing(2);
    auto* t = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    l->addWidget(t);
    l->addWidget(w, 1);
    return box;
  };
  split->addWidget(labelled(tr("Matched node (before)"), before_));
  split->addWidget(labelled(tr("Replacement (after)"), after_));
  rule_ = monoView(this);
  rule_->setLineWrapMode(QPlainTextEdit::WidgetWidth);  // a rule is read whole in a narrow dock
  tabs_->addTab(diff_, tr("Diff"));
  tabs_->addTab(split, tr("Before / After"));
  tabs_->addTab(rule_, tr("Rule"));
  whyNot_ = new WhyNotPanel(session_, this);
  tabs_->addTab(whyNot_, tr("Why not?"));
  tabs_->setTabToolTip(tabs_->indexOf(whyNot_), tr("The rules the pass tries on the selected node, and where each one stopped matching"));
  // "rule at file:line" opens the rule's text, as the trace recorded it.
  connect(where_, &QLabel::linkActivated, this, [this] { tabs_->setCurrentWidget(rule_); });
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(6, 6, 6, 4);
  lay->setSpacing(4);
  lay->addWidget(title_);
  lay->addWidget(where_);
  lay->addWidget(tabs_, 1);
  connect(session_, &Session::stepReady, this, &RewriteDetailPanel::refresh);
  connect(session_, &Session::closed, this, &RewriteDetailPanel::refresh);
  connect(session_, &Session::updated, this, &RewriteDetailPanel::refresh);
  refresh();
}

QString RewriteDetailPanel::headerText() const {
  return QTextDocumentFragment::fromHtml(title_->text() + QStringLiteral("<br>") + where_->text()).toPlainText();
}
QString RewriteDetailPanel::beforeText() const { return before_->toPlainText(); }
QString RewriteDetailPanel::afterText() const { return after_->toPlainText(); }
QString RewriteDetailPanel::diffText() const { return diff_->toPlainText(); }
QString RewriteDetailPanel::ruleText() const { return rule_->toPlainText(); }

QString RewriteDetailPanel::listingDiff(const loupe::UOpPtr& before, const loupe::UOpPtr& after, size_t beforeNodes,
                                        size_t afterNodes) {
  std::vector<std::string> diff;
  if (before && after) diff = loupe::unified_diff(loupe::uop_listing(before), loupe::uop_listing(after), 3);
  QStringList lines;
  lines << tr("--- matched node (%1 nodes)").arg(beforeNodes) << tr("+++ replacement (%1 nodes)").arg(afterNodes);
  const size_t shown = std::min(diff.size(), kMaxDiffLines);
  for (size_t i = 0; i < shown; i++) lines << QString::fromStdString(diff[i]);
  if (shown < diff.size())
    lines << tr("… %1 more lines of the diff (Before and After show both sides)").arg(diff.size() - shown);
  if (diff.empty()) lines << tr(" (the listings are equal)");
  return lines.join(QLatin1Char('\n'));
}

void RewriteDetailPanel::refresh() {
  const quint64 generation = ++diffGeneration_;  // a diff still being computed is for another step
  const StepInfo& st = session_->currentStep();
  const loupe::TracePass* pass = session_->trace().pass(st.pass);
  if (!pass) {
    title_->setText(tr("<b>No step selected</b>"));
    where_->setText(tr("Open a trace and pick a pass or a rewrite step in the Trace browser."));
    before_->clear();
    after_->clear();
    diff_->clear();
    rule_->clear();
    return;
  }
  const QString passLine = tr("pass <b>%1</b> · graph_rewrite at %2:%3")
                               .arg(QString::fromStdString(pass->name).toHtmlEscaped(), shortSourcePath(pass->file))
                               .arg(pass->line);
  if (!st.error.isEmpty()) {
    title_->setText(tr("<b>This step cannot be shown</b>"));
    where_->setText(st.error.toHtmlEscaped());
    before_->clear();
    after_->clear();
    diff_->clear();
    rule_->clear();
    return;
  }
  if (!st.match) {
    title_->setText(tr("<b>Input of the pass</b> · %1 matches follow").arg(st.steps));
    where_->setText(passLine + (st.steps > 0 ? tr("<br>Press → to step through its rewrites.") : QString()));
    before_->clear();
    rule_->clear();
    after_->setPlainText(uopTreeText(st.graph, 6, 300));
    diff_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    diff_->setPlainText(st.steps > 0 ? tr("Step 0 is the graph the pass started from: no rule has fired yet.")
                                      : tr("No rule matched in this pass: the graph went through unchanged."));
    if (tabs_->currentWidget() != whyNot_) tabs_->setCurrentIndex(st.steps > 0 ? 0 : 1);
    return;
  }
  const loupe::TraceMatch& m = *st.match;
  title_->setText(tr("<b>%1</b> &nbsp;<span style=\"color:gray\">step %2 of %3 · %4</span>")
                      .arg(QString::fromStdString(m.rule_name).toHtmlEscaped())
                      .arg(st.step)
                      .arg(st.steps)
                      .arg(formatNanoseconds(m.ns)));
  where_->setText(tr("rule at <a href=\"rule\"><tt>%1:%2</tt></a><br>%3").arg(shortSourcePath(m.rule_file)).arg(m.rule_line).arg(passLine));
  const loupe::TraceRule* rule = session_->trace().rule(m.rule_id);
  rule_->setPlainText(rule && !rule->source.empty()
                          ? QStringLiteral("// %1:%2\n%3").arg(shortSourcePath(m.rule_file)).arg(m.rule_line).arg(QString::fromStdString(rule->source))
                          : tr("This trace does not hold the rule's text (it was recorded before Loupe stored rules' "
                               "text).\nThe rule is at %1:%2.").arg(QString::fromStdString(m.rule_file)).arg(m.rule_line));
  diff_->setLineWrapMode(QPlainTextEdit::NoWrap);
  before_->setPlainText(uopTreeText(st.changes.before));
  after_->setPlainText(uopTreeText(st.changes.after));
  const loupe::UOpPtr before = st.changes.before, after = st.changes.after;
  const size_t beforeNodes = before ? before->toposort().size() : 0, afterNodes = after ? after->toposort().size() : 0;
  const size_t nodes = beforeNodes + afterNodes;
  if (nodes < kDiffOffThreadNodes) {
    diff_->setPlainText(listingDiff(before, after, beforeNodes, afterNodes));
  } else {
    // Listing and diffing tens of thousands of nodes takes a third of a second: off the GUI thread.
    diff_->setPlainText(tr("Comparing the listings of %1 nodes…").arg(nodes));
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, generation] {
      watcher->deleteLater();
      if (generation == diffGeneration_) diff_->setPlainText(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run(&diffPool_, [=] { return listingDiff(before, after, beforeNodes, afterNodes); }));
  }
}

} // namespace loupe::views
