#include "panels/whynotpanel.h"

#include <QTextBrowser>
#include <QVBoxLayout>

#include "ir/print.h"
#include "session/session.h"
#include "rewrite/rule_origin.h"
#include "support/source_path.h"

namespace loupe::views {

namespace {
QString verdictColour(RuleVerdict::Kind k, bool dark) {
  switch (k) {
  case RuleVerdict::Kind::Fires: return dark ? QStringLiteral("#7ee2a8") : QStringLiteral("#1a7f37");
  case RuleVerdict::Kind::Declined:
  case RuleVerdict::Kind::NotRun: return dark ? QStringLiteral("#f0c674") : QStringLiteral("#9a6700");
  case RuleVerdict::Kind::NoMatch: return dark ? QStringLiteral("#d0d0d0") : QStringLiteral("#24292f");
  case RuleVerdict::Kind::Shadowed: return dark ? QStringLiteral("#8a8a8a") : QStringLiteral("#8c959f");
  }
  return {};
}
QString html(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }
} // namespace

WhyNotPanel::WhyNotPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  view_ = new QTextBrowser(this);
  view_->setOpenLinks(false);
  view_->setFrameShape(QFrame::NoFrame);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(view_);
  connect(session_, &Session::nodeChanged, this, &WhyNotPanel::refreshWhenShown);
  connect(session_, &Session::stepReady, this, &WhyNotPanel::refreshWhenShown);
  connect(session_, &Session::closed, this, &WhyNotPanel::refreshWhenShown);
}

QString WhyNotPanel::text() const { return view_->toPlainText(); }

QList<QPair<QString, QString>> WhyNotPanel::rows() const {
  QList<QPair<QString, QString>> out;
  for (const loupe::RuleVerdict& v : verdicts_) out.append({QString::fromLatin1(loupe::verdict_name(v.kind)), QString::fromStdString(v.rule->name)});
  return out;
}

void WhyNotPanel::showEvent(QShowEvent* event) {
  if (stale_) refresh();
  QWidget::showEvent(event);
}

void WhyNotPanel::refreshWhenShown() {
  stale_ = true;
  if (isVisible()) refresh();
}

void WhyNotPanel::refresh() {
  stale_ = false;
  verdicts_.clear();
  node_.reset();
  const StepInfo& st = session_->currentStep();
  const loupe::TracePass* pass = session_->hasTrace() ? session_->trace().pass(st.pass) : nullptr;
  if (!pass || !st.valid()) {
    view_->setHtml(tr("<p style='color:gray'>Select a step of a pass, then a node of its graph, to see which rules the pass "
                      "tries on it and why each one did or did not fire.</p>"));
    return;
  }
  // the node asked about: the graph's selection, else what the step's rule made, else the root
  node_ = session_->selectedNode();
  if (!node_ && st.match && !st.changes.highlighted.empty()) node_ = st.changes.highlighted.front();
  if (!node_) node_ = st.graph;
  std::string device = "CPU";
  if (const loupe::TraceKernel* k = session_->trace().kernel(session_->trace().kernelForContext(pass->context_id))) device = k->device;
  const QString nodeText = html(loupe::uop_label(*node_));
  loupe::WhyNotReport rep;
  try {
    rep = session_->reader() ? loupe::why_not(*session_->reader(), *pass, device, st.firedRules, node_)
                             : loupe::why_not(pass->name, device, st.firedRules, node_);
  } catch (const std::exception& e) {
    view_->setHtml(QStringLiteral("<p><b>%1</b></p><p style='color:gray'>%2</p>").arg(nodeText, QString::fromUtf8(e.what()).toHtmlEscaped()));
    return;
  }
  verdicts_ = rep.verdicts;
  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  QString doc = tr("<p><b>%1</b><br><span style='color:%2'>pass <i>%3</i> · rule set %4 · %5 of its %6 rules are tried on "
                   "%7 nodes</span>%8</p>")
                    .arg(nodeText, muted, html(pass->name), html(rep.rule_set))
                    .arg(rep.verdicts.size())
                    .arg(rep.rules_in_set)
                    .arg(QString::fromLatin1(op_name(node_->op)))
                    .arg(rep.callbacks_run ? QString()
                                           : tr("<br><span style='color:%1'>Their callbacks need the pass's own state: a matching "
                                                "pattern is reported, not re-run.</span>").arg(muted));
  if (rep.verdicts.empty()) doc += tr("<p>No rule of this set is indexed under this op and dtype.</p>");
  doc += QStringLiteral("<table cellspacing='0' cellpadding='3'>");
  for (const loupe::RuleVerdict& v : rep.verdicts) {
    const QString where = QStringLiteral("%1:%2").arg(html(loupe::repo_relative_path(loupe::rule_file(*v.rule)))).arg(loupe::rule_line(*v.rule));
    doc += QStringLiteral("<tr><td style='white-space:nowrap'><b style='color:%1'>%2</b></td><td><b>%3</b> "
                          "<span style='color:%4'>%5</span><br>%6</td></tr>")
               .arg(verdictColour(v.kind, dark), QString::fromLatin1(loupe::verdict_name(v.kind)), html(v.rule->name), muted, where,
                    html(v.reason));
  }
  view_->setHtml(doc + QStringLiteral("</table>"));
}

} // namespace loupe::views
