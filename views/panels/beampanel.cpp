#include "panels/beampanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <cmath>

#include "session/session.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {
bool timed(const loupe::BeamCandidate& c) { return std::isfinite(c.seconds) && c.seconds >= 0; }

// A cell that shows its text and sorts by the number under Qt::UserRole.
class SortedByValue : public QTableWidgetItem {
public:
  SortedByValue(const QString& text, double value) : QTableWidgetItem(text) { setData(Qt::UserRole, value); }
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
    if (a.isValid() && b.isValid()) return a.toDouble() < b.toDouble();
    return QTableWidgetItem::operator<(other);
  }
};
} // namespace

BeamPanel::BeamPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  header_ = widthFromLayout(new QLabel(this));
  header_->setWordWrap(true);
  header_->setContentsMargins(6, 4, 6, 4);
  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setHorizontalHeaderLabels({tr("Chosen"), tr("Round"), tr("Best run"), tr("vs no opts"), tr("Build + time"), tr("Opts"), tr("Status")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(header_);
  lay->addWidget(table_, 1);
  connect(session_, &Session::kernelChanged, this, &BeamPanel::refresh);
  connect(session_, &Session::loaded, this, &BeamPanel::refresh);
  connect(session_, &Session::closed, this, &BeamPanel::refresh);
  refresh();
}

QString BeamPanel::headerText() const { return QTextDocumentFragment::fromHtml(header_->text()).toPlainText(); }

void BeamPanel::refresh() {
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  std::optional<loupe::TraceKernel> k = session_->hasTrace() ? session_->kernelDetails(session_->selection().kernel) : std::nullopt;
  if (!k) {
    header_->setText(tr("Select a kernel to see the BEAM search that chose its opts."));
    return;
  }
  const QString name = QString::fromStdString(k->name).toHtmlEscaped();
  if (k->beam.empty()) {
    header_->setText(tr("<b>%1</b>: no BEAM search recorded. Run with <tt>BEAM=2</tt> to choose its opts by timing candidates; "
                        "opts read from BEAM's disk cache record no search (<tt>DISABLE_COMPILER_CACHE=1</tt> searches again).")
                         .arg(name));
    return;
  }
  // the kernel without opts: the first candidate, round 0
  double base = 0;
  for (const loupe::BeamCandidate& c : k->beam)
    if (c.round == 0 && c.opts.empty() && timed(c)) {
      base = c.seconds;
      break;
    }
  int timedCount = 0;
  double build = 0;
  const loupe::BeamCandidate* chosen = nullptr;
  table_->setRowCount(int(k->beam.size()));
  for (int r = 0; r < int(k->beam.size()); r++) {
    const loupe::BeamCandidate& c = k->beam[size_t(r)];
    timedCount += timed(c);
    build += c.wall_seconds;
    if (c.chosen) chosen = &c;
    QStringList opts;
    for (const std::string& o : c.opts) opts << QString::fromStdString(o);
    const double us = timed(c) ? c.seconds * 1e6 : 1e300;
    auto set = [&](int col, const QString& text, double value) { table_->setItem(r, col, new SortedByValue(text, value)); };
    set(Chosen, c.chosen ? QStringLiteral("★") : QString(), c.chosen ? 0 : 1);
    set(Round, QString::number(c.round), c.round);
    set(Time, timed(c) ? QStringLiteral("%1 µs").arg(us, 0, 'f', us < 10 ? 2 : 1) : QStringLiteral("—"), us);
    const double speed = timed(c) && base > 0 ? base / c.seconds : 0;
    set(Speedup, speed > 0 ? QStringLiteral("%1×").arg(speed, 0, 'f', 2) : QStringLiteral("—"), speed);
    set(BuildTime, QStringLiteral("%1 ms").arg(c.wall_seconds * 1e3, 0, 'f', 1), c.wall_seconds);
    set(Opts, opts.isEmpty() ? tr("(none)") : opts.join(QStringLiteral(", ")), r);
    set(Status, QString::fromStdString(c.status), r);
    if (c.chosen)
      for (int col = 0; col < ColumnCount; col++) {
        QFont f = table_->item(r, col)->font();
        f.setBold(true);
        table_->item(r, col)->setFont(f);
      }
  }
  header_->setText(tr("<b>%1</b>: BEAM tried %2 candidates (%3 timed) in %4 s; chosen: %5%6")
                       .arg(name)
                       .arg(k->beam.size())
                       .arg(timedCount)
                       .arg(build, 0, 'f', 2)
                       .arg(chosen && timed(*chosen) ? QStringLiteral("%1 µs").arg(chosen->seconds * 1e6, 0, 'f', 2) : tr("(none timed)"))
                       .arg(chosen && timed(*chosen) && base > 0 ? tr(", %1× the kernel without opts").arg(base / chosen->seconds, 0, 'f', 2)
                                                                 : QString()));
  table_->setSortingEnabled(true);
  table_->resizeColumnsToContents();
}

} // namespace loupe::views
