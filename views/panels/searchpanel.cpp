#include "panels/searchpanel.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#include "session/session.h"
#include "trace/trace_reader.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {

using Kind = loupe::TraceSearchHit::Kind;
constexpr int kHitRole = Qt::UserRole + 1;  // index into hits_, on result rows

struct SearchOutcome {
  loupe::TraceSearchResult result;
  QString error;
};

// On a worker thread, with a reader of its own (SQLite statements stay on the thread that made them).
SearchOutcome runSearch(const QString& path, const QString& text) {
  SearchOutcome out;
  try {
    loupe::TraceReader reader(path.toStdString(), {.quick_check = false});
    out.result = loupe::search_trace(reader, text.toStdString());
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

QString groupTitle(Kind k, int n, bool more) {
  const QString count = more ? QStringLiteral("%1+").arg(n) : QString::number(n);
  switch (k) {
  case Kind::Kernel: return QObject::tr("Kernels (%1)").arg(count);
  case Kind::Pass: return QObject::tr("Passes (%1)").arg(count);
  case Kind::Rule: return QObject::tr("Rules (%1)").arg(count);
  case Kind::Node: return QObject::tr("Nodes made or replaced by a rewrite (%1)").arg(count);
  case Kind::Source: return QObject::tr("Built from this line of your program (%1)").arg(count);
  }
  return {};
}

// Enter in the field goes to the first result; Down moves into the list.
class SearchField : public QLineEdit {
public:
  SearchField(SearchPanel* panel, QWidget* parent) : QLineEdit(parent), panel_(panel) {}

protected:
  void keyPressEvent(QKeyEvent* e) override {
    QTreeWidget* list = panel_->results();
    if (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) {
      panel_->goToFirstResult();
      return;
    }
    if (e->key() == Qt::Key_Down && list->topLevelItemCount()) {
      list->setFocus();
      list->setCurrentItem(list->topLevelItem(0)->childCount() ? list->topLevelItem(0)->child(0) : list->topLevelItem(0));
      return;
    }
    QLineEdit::keyPressEvent(e);
  }

private:
  SearchPanel* panel_;
};

} // namespace

SearchPanel::SearchPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  field_ = new SearchField(this, this);
  field_->setPlaceholderText(tr("Kernels, passes, rules (name or file:line), ops, args…"));
  field_->setClearButtonEnabled(true);
  field_->setToolTip(tr("Searches the whole trace as you type; Enter goes to the first result"));
  results_ = new QTreeWidget(this);
  results_->setColumnCount(2);
  results_->setHeaderLabels({tr("Found"), tr("Where")});
  results_->setRootIsDecorated(true);
  results_->setUniformRowHeights(true);
  results_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  results_->header()->resizeSection(0, 260);
  status_ = widthFromLayout(new QLabel(this));
  status_->setWordWrap(true);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(4);
  lay->addWidget(field_);
  lay->addWidget(results_, 1);
  lay->addWidget(status_);

  typing_ = new QTimer(this);
  typing_->setSingleShot(true);
  typing_->setInterval(250);
  connect(typing_, &QTimer::timeout, this, [this] { search(field_->text()); });
  connect(field_, &QLineEdit::textChanged, typing_, qOverload<>(&QTimer::start));
  connect(results_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
  // A grown trace: the results are of its older state. A new trace starts with no query.
  connect(session_, &Session::updated, this, [this] {
    if (!field_->text().isEmpty()) search(field_->text());
  });
  for (auto signal : {&Session::loaded, &Session::closed})
    connect(session_, signal, this, [this] {
      typing_->stop();
      {
        QSignalBlocker block(field_);
        field_->clear();
      }
      search(QString());
    });
  showResults(QString(), {}, QString());
}

QString SearchPanel::statusText() const { return status_->text(); }

void SearchPanel::search(const QString& text) {
  typing_->stop();
  const quint64 generation = ++generation_;
  searched_ = text;
  if (text.trimmed().isEmpty() || !session_->hasTrace()) {
    showResults(text, {}, QString());
    return;
  }
  running_++;
  status_->setText(tr("Searching…"));
  auto* watcher = new QFutureWatcher<SearchOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, text] {
    watcher->deleteLater();
    running_--;
    if (generation != generation_) return;  // the user typed on
    SearchOutcome o = watcher->result();
    showResults(text, o.result, o.error);
  });
  watcher->setFuture(QtConcurrent::run(runSearch, session_->path(), text.trimmed()));
}

void SearchPanel::showResults(const QString& text, const loupe::TraceSearchResult& result, const QString& error) {
  results_->clear();
  hits_ = result.hits;
  const bool goFirst = std::exchange(goFirst_, false);
  if (!error.isEmpty()) {
    status_->setText(tr("Cannot search: %1").arg(error));
    Q_EMIT searched(0);
    return;
  }
  if (text.trimmed().isEmpty() || !session_->hasTrace()) {
    status_->setText(session_->hasTrace() ? tr("Type to search the whole trace.") : tr("Open a trace to search it."));
    Q_EMIT searched(0);
    return;
  }
  QTreeWidgetItem* group = nullptr;
  Kind groupKind = Kind::Kernel;
  int inGroup = 0;
  auto closeGroup = [&] {
    if (group) group->setText(0, groupTitle(groupKind, inGroup, result.truncated && inGroup >= 200));
  };
  for (size_t i = 0; i < hits_.size(); i++) {
    const loupe::TraceSearchHit& h = hits_[i];
    if (!group || h.kind != groupKind) {
      closeGroup();
      group = new QTreeWidgetItem(results_);
      group->setFirstColumnSpanned(true);
      QFont bold = group->font(0);
      bold.setBold(true);
      group->setFont(0, bold);
      groupKind = h.kind;
      inGroup = 0;
    }
    inGroup++;
    auto* row = new QTreeWidgetItem(group);
    row->setText(0, QString::fromStdString(h.label));
    QString where = QString::fromStdString(h.context_name);
    if (h.pass_id >= 0) where += QStringLiteral(" › %1 › step %2").arg(QString::fromStdString(h.pass_name)).arg(h.step);
    row->setText(1, where);
    row->setToolTip(0, QString::fromStdString(h.label + (h.detail.empty() ? "" : "\n" + h.detail)));
    row->setToolTip(1, QString::fromStdString(h.detail));
    row->setData(0, kHitRole, qulonglong(i));
  }
  closeGroup();
  results_->expandAll();
  if (goFirst) goToFirstResult();
  const QString count = hits_.size() == 1 ? tr("1 result") : tr("%1 results").arg(hits_.size());
  status_->setText(hits_.empty() ? tr("Nothing in this trace matches “%1”.").arg(text.trimmed())
                   : result.truncated ? tr("%1 (some kinds have more: type more to narrow them)").arg(count)
                                      : tr("%1 · Enter or double-click goes to the step").arg(count));
  Q_EMIT searched(int(hits_.size()));
}

void SearchPanel::goToFirstResult() {
  if (isSearching() || typing_->isActive() || field_->text() != searched_) {
    goFirst_ = true;  // when the results of what is typed now arrive
    search(field_->text());
    return;
  }
  for (int g = 0; g < results_->topLevelItemCount(); g++)
    for (int r = 0; r < results_->topLevelItem(g)->childCount(); r++)
      if (activate(results_->topLevelItem(g)->child(r))) return;
}

bool SearchPanel::activate(QTreeWidgetItem* item) {
  if (!item || !item->data(0, kHitRole).isValid()) return false;
  const size_t i = item->data(0, kHitRole).toULongLong();
  if (i >= hits_.size()) return false;
  const loupe::TraceSearchHit& h = hits_[i];
  if (h.kernel_id >= 0) {  // a kernel, or a kernel computing the line's tensor ops
    session_->selectKernel(h.kernel_id);
    return true;
  }
  if (h.pass_id < 0) return false;  // a rule that never fired
  session_->selectPass(h.pass_id, h.step);
  return true;
}

} // namespace loupe::views
