#include "panels/rundiffpanel.h"

#include "widgets/elidedlabel.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "code/codeview.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"

namespace loupe::views {

namespace {

QString optsText(const std::vector<std::string>& opts) {
  QStringList l;
  for (const std::string& o : opts) l << QString::fromStdString(o);
  return l.isEmpty() ? QStringLiteral("—") : l.join(QStringLiteral(", "));
}

struct DiffResult {
  std::shared_ptr<const loupe::TraceDiff> diff;
  QString error;
};

DiffResult diffFiles(const QString& a, const QString& b) {
  DiffResult r;
  try {
    loupe::TraceReader ra(a.toStdString()), rb(b.toStdString());
    r.diff = std::make_shared<const loupe::TraceDiff>(loupe::diff_traces(ra, rb));
  } catch (const std::exception& e) {
    r.error = QString::fromUtf8(e.what());
  }
  return r;
}

} // namespace

void RunDiffModel::setDiff(std::shared_ptr<const loupe::TraceDiff> diff) {
  beginResetModel();
  diff_ = std::move(diff);
  endResetModel();
}

const loupe::KernelPair* RunDiffModel::pair(int row) const {
  if (!diff_ || row < 0 || row >= int(diff_->pairs.size())) return nullptr;
  return &diff_->pairs[size_t(row)];
}

int RunDiffModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !diff_ ? 0 : int(diff_->pairs.size()); }
int RunDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case KernelA: return tr("Kernel in A");
  case KernelB: return tr("Kernel in B");
  case Matched: return tr("Paired by");
  case TimeA: return tr("A time");
  case TimeB: return tr("B time");
  case Speedup: return tr("B speed-up");
  case OptsA: return tr("A opts");
  case OptsB: return tr("B opts");
  }
  return {};
}

QVariant RunDiffModel::data(const QModelIndex& index, int role) const {
  const loupe::KernelPair* p = pair(index.row());
  if (!p) return {};
  const int c = index.column();
  if (role == ChangeRole) return double(p->change_ns());
  if (role == Qt::TextAlignmentRole && (c == TimeA || c == TimeB || c == Speedup)) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && c == Speedup) return tr("A's mean time per run over B's: above 1, B is faster");
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  const bool sort = role == Qt::EditRole;
  auto time = [&](const std::optional<loupe::KernelInRun>& k) -> QVariant {
    if (!k || k->runs == 0) return sort ? QVariant(-1.0) : QVariant(QStringLiteral("—"));
    if (sort) return k->mean_ns();
    return QStringLiteral("%1 ×%2").arg(formatNanoseconds(int64_t(k->mean_ns()))).arg(k->runs);
  };
  switch (c) {
  case KernelA: return p->a ? QString::fromStdString(p->a->name) : tr("(only in B)");
  case KernelB: return p->b ? QString::fromStdString(p->b->name) : tr("(only in A)");
  case Matched: return p->matched_by.empty() ? tr("one run only") : p->matched_by == "ast" ? tr("same AST") : tr("name");
  case TimeA: return time(p->a);
  case TimeB: return time(p->b);
  case Speedup: {
    const double r = p->ratio();
    if (sort) return r;
    return r > 0 ? QStringLiteral("%1×").arg(r, 0, 'f', r >= 10 ? 1 : 2) : QStringLiteral("—");
  }
  case OptsA: return p->a ? optsText(p->a->opts) : QString();
  case OptsB: return p->b ? optsText(p->b->opts) : QString();
  }
  return {};
}

RunDiffPanel::RunDiffPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  summary_ = widthFromLayout(new QLabel(tr("Compare the open trace with another run of the program: File › Compare With Trace…"), this));
  summary_->setWordWrap(true);
  summary_->setContentsMargins(6, 4, 6, 4);
  model_ = new RunDiffModel(this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(model_);
  proxy->setSortRole(Qt::EditRole);
  table_ = new QTableView(this);
  table_->setModel(proxy);
  table_->setSortingEnabled(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);  // the diff's own order: most changed time first
  source_ = new CodeView(this);
  source_->setReadOnly(true);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(source_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(summary_);
  lay->addWidget(split, 1);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, proxy](const QModelIndex& current) { showPair(proxy->mapToSource(current).row()); });
  connect(session_, &Session::closed, this, [this] {
    generation_++;
    model_->setDiff(nullptr);
    source_->clearSource();
  });
}

QString RunDiffPanel::summaryText() const { return QTextDocumentFragment::fromHtml(summary_->text()).toPlainText(); }

void RunDiffPanel::compareWith(const QString& other) {
  const QString a = session_->path();
  error_.clear();
  if (a.isEmpty()) {
    error_ = tr("open a trace first: it is run A of the comparison");
    summary_->setText(error_);
    Q_EMIT finished();
    return;
  }
  loading_ = true;
  const int gen = ++generation_;
  summary_->setText(tr("Comparing %1 with %2…").arg(QFileInfo(a).fileName(), QFileInfo(other).fileName()));
  auto* watcher = new QFutureWatcher<DiffResult>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen, a, other] {
    watcher->deleteLater();
    if (gen != generation_) return;
    loading_ = false;
    DiffResult r = watcher->result();
    if (!r.error.isEmpty()) {
      error_ = r.error;
      summary_->setText(tr("<b>Cannot compare with %1</b><br>%2").arg(QFileInfo(other).fileName().toHtmlEscaped(), r.error.toHtmlEscaped()));
      Q_EMIT finished();
      return;
    }
    model_->setDiff(r.diff);
    int paired = 0, onlyA = 0, onlyB = 0;
    for (const loupe::KernelPair& p : r.diff->pairs) (p.a && p.b ? paired : p.a ? onlyA : onlyB)++;
    const double ta = r.diff->total_a_ns, tb = r.diff->total_b_ns;
    summary_->setText(tr("<b>A</b> %1 · <b>B</b> %2 — %3 kernels paired, %4 only in A, %5 only in B · kernel time %6 → %7%8")
                          .arg(QFileInfo(a).fileName().toHtmlEscaped(), QFileInfo(other).fileName().toHtmlEscaped())
                          .arg(paired)
                          .arg(onlyA)
                          .arg(onlyB)
                          .arg(formatNanoseconds(int64_t(ta)), formatNanoseconds(int64_t(tb)))
                          .arg(ta > 0 && tb > 0 ? tr(" (B %1×)").arg(ta / tb, 0, 'f', 2) : QString()));
    table_->resizeColumnsToContents();
    if (model_->rowCount() > 0) selectRow(0);
    Q_EMIT finished();
  });
  watcher->setFuture(QtConcurrent::run([a, other] { return diffFiles(a, other); }));
}

void RunDiffPanel::selectRow(int row) {
  auto* proxy = static_cast<QSortFilterProxyModel*>(table_->model());
  table_->setCurrentIndex(proxy->mapFromSource(model_->index(row, 0)));
}

void RunDiffPanel::showPair(int row) {
  const loupe::KernelPair* p = model_->pair(row);
  if (!p) {
    source_->clearSource();
    return;
  }
  QList<CodeRow> rows;
  if (!p->source_diff.empty()) {
    int line = 0;
    for (const std::string& l : p->source_diff) {
      CodeRow r;
      r.text = QString::fromStdString(l);
      r.mark = l.rfind("- ", 0) == 0 ? RowMark::Removed : l.rfind("+ ", 0) == 0 ? RowMark::Added : RowMark::None;
      r.lineNumber = ++line;
      rows << r;
    }
  } else {
    const std::optional<loupe::KernelInRun>& k = p->a ? p->a : p->b;
    const QString note = p->a && p->b ? tr("(the two sources are the same)") : p->a ? tr("(only in A)") : tr("(only in B)");
    rows << CodeRow{note, 0, RowMark::None, {}};
    const QStringList lines = QString::fromStdString(k ? k->source : std::string()).split(u'\n');
    int n = 0;
    for (const QString& l : lines) rows << CodeRow{l, ++n, RowMark::None, {}};
  }
  source_->setRows(rows, SourceLanguage::C);
}

} // namespace loupe::views
