#include "panels/tracebrowserpanel.h"

#include <QEvent>
#include <QFontMetrics>
#include <algorithm>
#include <functional>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "panels/kernelnamedelegate.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

TraceBrowserPanel::TraceBrowserPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new TraceBrowserModel(this)), proxy_(new TraceFilterProxy(this)) {
  proxy_->setSourceModel(model_);
  proxy_->setHideEmptyPasses(true);

  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter kernels, passes, rules… (Enter: go to the first)"));
  filter_->setClearButtonEnabled(true);
  hideEmpty_ = new QToolButton(this);
  hideEmpty_->setText(tr("Hide empty"));
  hideEmpty_->setToolTip(tr("Hide passes in which no rule matched; Up/Down then skip them too"));
  hideEmpty_->setCheckable(true);
  hideEmpty_->setChecked(true);
  summary_ = widthFromLayout(new QLabel(this));
  summary_->setObjectName(QStringLiteral("traceSummary"));
  summary_->setWordWrap(true);
  noMatch_ = widthFromLayout(new QLabel(this));
  noMatch_->setObjectName(QStringLiteral("traceNoMatch"));
  noMatch_->setWordWrap(true);
  noMatch_->setAlignment(Qt::AlignCenter);
  noMatch_->setStyleSheet(QStringLiteral("color: gray; padding: 12px"));
  noMatch_->hide();
  filterTimer_ = new QTimer(this);
  filterTimer_->setSingleShot(true);
  filterTimer_->setInterval(kFilterDelayMs);

  tree_ = new QTreeView(this);
  tree_->setModel(proxy_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setItemDelegateForColumn(TraceBrowserModel::NameColumn,
                                  new KernelNameDelegate(TraceBrowserModel::KernelNameRole, tree_));
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(TraceBrowserModel::NameColumn, QHeaderView::Stretch);
  // Widths from the widest figures they can hold, not ResizeToContents: that measures every visible
  // row again whenever the current row moves (~5 ms per step on a big trace).
  const QFontMetrics fm(tree_->font());
  const int pad = 3 * fm.horizontalAdvance(QLatin1Char('0'));
  auto widest = [&](std::initializer_list<QString> texts) {
    int w = 0;
    for (const QString& t : texts) w = std::max(w, fm.horizontalAdvance(t));
    return w + pad;
  };
  for (int c : {int(TraceBrowserModel::MatchesColumn), int(TraceBrowserModel::TimeColumn)})
    tree_->header()->setSectionResizeMode(c, QHeaderView::Interactive);
  tree_->header()->resizeSection(TraceBrowserModel::MatchesColumn, widest({tr("Matches"), QStringLiteral("9999999")}));
  tree_->header()->resizeSection(TraceBrowserModel::TimeColumn,
                                 widest({tr("Time"), tr("unfinished"), QStringLiteral("9999.99 ms")}));
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(filter_, 1);
  bar->addWidget(hideEmpty_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(4);
  lay->addLayout(bar);
  lay->addWidget(noMatch_);
  lay->addWidget(tree_, 1);
  lay->addWidget(summary_);

  // Typing only restarts the timer: a trace with thousands of passes is filtered once, when the
  // user pauses.
  connect(filter_, &QLineEdit::textChanged, filterTimer_, qOverload<>(&QTimer::start));
  connect(filterTimer_, &QTimer::timeout, this, &TraceBrowserPanel::applyFilter);
  connect(filter_, &QLineEdit::returnPressed, this, &TraceBrowserPanel::pickFirstResult);
  connect(hideEmpty_, &QToolButton::toggled, this, [this](bool on) {
    syncing_ = true;  // rows that disappear move the tree's cursor: that is no choice of the user's
    proxy_->setHideEmptyPasses(on);
    syncing_ = false;
    followSelection();
    Q_EMIT hideEmptyPassesChanged(on);
  });
  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { onCurrentChanged(current); });
  connect(session_, &Session::loaded, this, [this] { rebuild(false); });
  connect(session_, &Session::updated, this, [this] { rebuild(true); });
  connect(session_, &Session::closed, this, [this] { rebuild(false); });
  connect(session_, &Session::stepChanged, this, [this] { followSelection(); });
  model_->setDarkPalette(isDarkPalette(palette()));
  if (session_->hasTrace()) rebuild(false);
  updateSummary();
}

void TraceBrowserPanel::setHideEmptyPasses(bool hide) { hideEmpty_->setChecked(hide); }
bool TraceBrowserPanel::hidesEmptyPasses() const { return hideEmpty_->isChecked(); }

void TraceBrowserPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) model_->setDarkPalette(isDarkPalette(palette()));
  QWidget::changeEvent(event);
}

void TraceBrowserPanel::rebuild(bool keepExpansion) {
  // Expansion is remembered by context and pass id, so a reload of a growing trace keeps it.
  QSet<qint64> contexts, passes;
  if (keepExpansion) {
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
      for (int r = 0; r < proxy_->rowCount(parent); r++) {
        QModelIndex i = proxy_->index(r, 0, parent);
        if (!tree_->isExpanded(i)) continue;
        if (i.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::ContextItem)
          contexts.insert(i.data(TraceBrowserModel::ContextIdRole).toLongLong());
        else
          passes.insert(i.data(TraceBrowserModel::PassIdRole).toLongLong());
        walk(i);
      }
    };
    walk({});
  }
  syncing_ = true;
  if (session_->hasTrace())
    model_->setTrace(session_->snapshot(), [s = session_](int64_t pass) { return s->matches(pass); });
  else
    model_->clear();
  for (qint64 c : contexts) tree_->expand(proxy_->mapFromSource(model_->indexForContext(c)));
  for (qint64 p : passes) tree_->expand(proxy_->mapFromSource(model_->indexForPass(p)));
  syncing_ = false;
  updateSummary();
  followSelection();
  applyFilter();  // a filter typed before the trace arrived, and its "no match" line
}

void TraceBrowserPanel::applyFilter() {
  filterTimer_->stop();
  const QString text = filter_->text().trimmed();
  if (text != proxy_->filterText()) {
    // Rows the filter hides move the tree's cursor; the Session keeps its selection until the user
    // picks a result.
    syncing_ = true;
    proxy_->setFilterText(text);
    if (!text.isEmpty()) tree_->expandToDepth(0);
    syncing_ = false;
    followSelection();
  }
  const QString none = noMatchText();
  noMatch_->setText(none);
  noMatch_->setVisible(!none.isEmpty());
}

QString TraceBrowserPanel::noMatchText() const {
  const QString text = proxy_->filterText();
  if (text.isEmpty() || !session_->hasTrace() || proxy_->rowCount() > 0) return {};
  return tr("No match for “%1” in kernel, pass or rule names").arg(text);
}

QModelIndex TraceBrowserPanel::firstResult() const {
  const QString text = proxy_->filterText();
  if (text.isEmpty()) return {};
  auto named = [&](const QModelIndex& i) { return i.data().toString().contains(text, Qt::CaseInsensitive); };
  std::function<QModelIndex(const QModelIndex&)> walk = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < proxy_->rowCount(parent); r++) {
      const QModelIndex i = proxy_->index(r, 0, parent);
      const int kind = i.data(TraceBrowserModel::KindRole).toInt();
      if (named(i)) return i;
      if (kind == TraceBrowserModel::PassItem &&
          session_->trace().passFiredRuleMatching(i.data(TraceBrowserModel::PassIdRole).toLongLong(), text)) {
        // the first step of that rule (the pass's steps are fetched on demand)
        const QModelIndex src = proxy_->mapToSource(i);
        if (model_->canFetchMore(src)) model_->fetchMore(src);
        for (int k = 0; k < proxy_->rowCount(i); k++)
          if (const QModelIndex step = proxy_->index(k, 0, i);
              step.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::StepItem && named(step))
            return step;
        return i;
      }
      if (const QModelIndex below = walk(i); below.isValid()) return below;
    }
    return {};
  };
  return walk({});
}

void TraceBrowserPanel::pickFirstResult() {
  applyFilter();
  const QModelIndex i = firstResult();
  if (!i.isValid()) return;
  tree_->scrollTo(i);
  tree_->setCurrentIndex(i);  // selects it in the Session (onCurrentChanged)
  tree_->setFocus();          // so the stepping keys go on from there
}

void TraceBrowserPanel::updateSummary() {
  if (!session_->hasTrace()) {
    summary_->setText(tr("No trace open."));
    return;
  }
  const TraceSnapshot& t = session_->trace();
  summary_->setText(tr("%1 kernels · %2 passes · %3 matches · %4 nodes%5")
                        .arg(t.kernels.size())
                        .arg(t.passes.size())
                        .arg(t.totalMatches())
                        .arg(t.nodeCount)
                        .arg(t.finished ? QString() : tr(" · still being written")));
}

void TraceBrowserPanel::followSelection() {
  if (!session_->hasTrace()) return;
  const Selection& sel = session_->selection();
  QModelIndex src = sel.step > 0 ? model_->indexForStep(sel.pass, sel.step) : model_->indexForPass(sel.pass);
  QModelIndex i = proxy_->mapFromSource(src);
  if (!i.isValid()) i = proxy_->mapFromSource(model_->indexForContext(sel.context));  // e.g. a hidden empty pass
  if (!i.isValid() || i == tree_->currentIndex()) return;
  syncing_ = true;
  tree_->setCurrentIndex(i);
  tree_->scrollTo(i);
  syncing_ = false;
}

void TraceBrowserPanel::onCurrentChanged(const QModelIndex& current) {
  if (syncing_ || !current.isValid()) return;
  switch (current.data(TraceBrowserModel::KindRole).toInt()) {
  case TraceBrowserModel::ContextItem: {
    session_->selectContext(current.data(TraceBrowserModel::ContextIdRole).toLongLong());
    break;
  }
  case TraceBrowserModel::PassItem: session_->selectPass(current.data(TraceBrowserModel::PassIdRole).toLongLong(), 0); break;
  case TraceBrowserModel::StepItem:
    session_->selectPass(current.data(TraceBrowserModel::PassIdRole).toLongLong(),
                         current.data(TraceBrowserModel::StepRole).toLongLong());
    break;
  }
}

} // namespace loupe::views
