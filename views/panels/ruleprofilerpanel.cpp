#include "panels/ruleprofilerpanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "session/ruleprofilermodel.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {
QTableView* makeTable(QWidget* parent) {
  auto* t = new QTableView(parent);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setAlternatingRowColors(true);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  t->horizontalHeader()->setHighlightSections(false);
  t->setWordWrap(false);
  return t;
}
} // namespace

RuleProfilerPanel::RuleProfilerPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new RuleProfilerModel(this)),
      proxy_(new QSortFilterProxyModel(this)), firings_(new RuleFiringsModel(this)) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(RuleProfilerModel::SortRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setFilterKeyColumn(-1);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter rules or files…"));
  filter_->setClearButtonEnabled(true);
  summary_ = widthFromLayout(new QLabel(this));
  table_ = makeTable(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RuleProfilerModel::MatchTimeColumn, Qt::DescendingOrder);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);  // "defined at"

  firingsTitle_ = widthFromLayout(new QLabel(tr("Double-click a rule to list the steps where it fired."), this));
  firingsTable_ = makeTable(this);
  firingsTable_->setModel(firings_);
  firingsTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  firingsTable_->horizontalHeader()->setSectionResizeMode(RuleFiringsModel::StepColumn, QHeaderView::ResizeToContents);

  auto* top = new QWidget(this);
  auto* tl = new QVBoxLayout(top);
  tl->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(summary_);
  tl->addLayout(bar);
  tl->addWidget(table_, 1);
  auto* bottom = new QWidget(this);
  auto* bl = new QVBoxLayout(bottom);
  bl->setContentsMargins(0, 0, 0, 0);
  bl->addWidget(firingsTitle_);
  bl->addWidget(firingsTable_, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(top);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->addWidget(split);

  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    showFirings(i.siblingAtColumn(0).data(RuleProfilerModel::RuleIdRole).toLongLong());
    // and go to the first step where it fired
    if (firings_->rowCount() > 0) {
      firingsTable_->setCurrentIndex(firings_->index(0, 0));
      session_->selectPass(firings_->firings().front().pass, firings_->firings().front().step);
    }
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (i.isValid()) showFirings(i.siblingAtColumn(0).data(RuleProfilerModel::RuleIdRole).toLongLong());
  });
  auto jump = [this](const QModelIndex& i) {
    if (!i.isValid()) return;
    session_->selectPass(i.siblingAtColumn(0).data(RuleFiringsModel::PassIdRole).toLongLong(),
                         i.siblingAtColumn(0).data(RuleFiringsModel::StepRole).toLongLong());
  };
  connect(firingsTable_, &QTableView::clicked, this, jump);
  connect(firingsTable_, &QTableView::activated, this, jump);
  connect(session_, &Session::loaded, this, &RuleProfilerPanel::reload);
  connect(session_, &Session::updated, this, &RuleProfilerPanel::reload);
  connect(session_, &Session::closed, this, &RuleProfilerPanel::reload);
  reload();
}

void RuleProfilerPanel::reload() {
  model_->setRules(session_->hasTrace() ? session_->trace().rules : std::vector<loupe::TraceRule>{});
  int64_t matches = 0, ns = 0;
  int fired = 0;
  for (const loupe::TraceRule& r : model_->rules()) {
    matches += r.matches;
    ns += r.match_ns;
    fired += r.matches > 0;
  }
  summary_->setText(tr("%1 rules, %2 fired · %3 matches · %4%5")
                        .arg(model_->rowCount())
                        .arg(fired)
                        .arg(matches)
                        .arg(formatNanoseconds(ns))
                        .arg(model_->hasAttempts() || model_->rowCount() == 0 ? QString() : tr(" · attempts not recorded")));
  // Attempt columns mean nothing when the trace did not count attempts.
  for (int c : {int(RuleProfilerModel::AttemptsColumn), int(RuleProfilerModel::HitRateColumn),
                int(RuleProfilerModel::AttemptTimeColumn)})
    table_->setColumnHidden(c, !model_->hasAttempts());
  if (shownRule_ < 0 || model_->rowOfRule(shownRule_) < 0) {
    // Start with the rule at the top of the table (the most expensive one).
    shownRule_ = -1;
    firings_->setFirings(nullptr, {});
    if (proxy_->rowCount() > 0) table_->setCurrentIndex(proxy_->index(0, 0));
  } else {
    showFirings(shownRule_);
  }
}

void RuleProfilerPanel::showFirings(qint64 ruleId) {
  const int row = model_->rowOfRule(ruleId);
  if (row < 0) return;
  shownRule_ = ruleId;
  const loupe::TraceRule& r = model_->rules()[size_t(row)];
  std::vector<RuleFiring> f = session_->firingsOfRule(ruleId);
  firingsTitle_->setText(tr("<b>%1</b> fired %2 times%3 — click one to go there")
                             .arg(QString::fromStdString(r.name).toHtmlEscaped())
                             .arg(r.matches)
                             .arg(int64_t(f.size()) < r.matches ? tr(" (first %1 listed)").arg(f.size()) : QString()));
  firings_->setFirings(session_->snapshot(), std::move(f));
}

} // namespace loupe::views
