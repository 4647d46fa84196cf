#include "profile/profileview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <utility>
#include <QToolButton>
#include <QVBoxLayout>

#include "profile/kerneltablemodel.h"
#include "profile/profileformat.h"
#include "profile/rooflinewidget.h"
#include "profile/timelinewidget.h"
#include "widgets/chartchrome.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {

// Share column: a bar behind the percentage, so the heavy kernels show at a glance.
class ShareBarDelegate : public QStyledItemDelegate {
public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    const double share = std::clamp(index.data(KernelTableModel::ShareRole).toDouble(), 0.0, 1.0);
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    QColor bar = opt.palette.color(QPalette::Highlight);
    const bool dark = isDarkBase(opt.palette);
    bar.setAlphaF(opt.state & QStyle::State_Selected ? 0.5 : dark ? 0.55 : 0.28);
    QStyledItemDelegate::paint(p, option, index);
    const QRectF r = QRectF(opt.rect).adjusted(2, 3, -2, -3);
    p->fillRect(QRectF(r.left(), r.top(), r.width() * share, r.height()), bar);
  }
};

} // namespace

ProfileView::ProfileView(QWidget* parent)
    : QWidget(parent), model_(new KernelTableModel(this)), proxy_(new KernelFilterProxy(this)) {
  proxy_->setSourceModel(model_);

  summary_ = loupe::views::widthFromLayout(new QLabel(this));
  summary_->setTextFormat(Qt::RichText);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter kernels by name, device or opts"));
  filter_->setClearButtonEnabled(true);
  device_ = new QComboBox(this);
  device_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* fit = new QToolButton(this);
  fit->setText(tr("Show all"));
  fit->setToolTip(tr("Show the whole timeline (or double-click it)"));

  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(KernelTableModel::TimeColumn, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setHighlightSections(false);
  table_->setItemDelegateForColumn(KernelTableModel::ShareColumn, new ShareBarDelegate(table_));

  roofline_ = new RooflineWidget(this);
  timeline_ = new TimelineWidget(this);

  auto* tableBar = new QHBoxLayout;
  tableBar->setContentsMargins(0, 0, 0, 0);
  tableBar->addWidget(filter_, 1);
  tableBar->addWidget(device_);
  auto* tablePane = new QWidget(this);
  auto* tv = new QVBoxLayout(tablePane);
  tv->setContentsMargins(0, 0, 0, 0);
  tv->setSpacing(4);
  tv->addLayout(tableBar);
  tv->addWidget(table_, 1);

  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(tablePane);
  top->addWidget(roofline_);
  top->setStretchFactor(0, 3);
  top->setStretchFactor(1, 2);
  top->setChildrenCollapsible(false);

  auto* timelinePane = new QWidget(this);
  auto* tlv = new QVBoxLayout(timelinePane);
  tlv->setContentsMargins(0, 0, 0, 0);
  tlv->setSpacing(2);
  auto* tlBar = new QHBoxLayout;
  auto* tlTitle = loupe::views::widthFromLayout(new QLabel(
      tr("<b>Timeline</b> <span style='color:gray'>— wheel zooms around the cursor, drag pans</span>"), this));
  tlTitle->setTextFormat(Qt::RichText);
  tlBar->addWidget(tlTitle, 1);
  tlBar->addWidget(fit);
  tlv->addLayout(tlBar);
  tlv->addWidget(timeline_, 1);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(timelinePane);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->setSpacing(6);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  connect(filter_, &QLineEdit::textChanged, proxy_, &KernelFilterProxy::setFilterText);
  connect(device_, &QComboBox::currentIndexChanged, this,
          [this] { proxy_->setDevice(device_->currentData().toString()); });
  connect(fit, &QToolButton::clicked, timeline_, &TimelineWidget::showAll);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (syncing_ || !current.isValid()) return;
    setSelection(current.data(KernelTableModel::KernelIndexRole).toInt(), true);
  });
  connect(roofline_, &RooflineWidget::kernelClicked, this, [this](int k) { setSelection(k, true); });
  connect(timeline_, &TimelineWidget::kernelClicked, this, [this](int k) { setSelection(k, true); });
  // A new sort shows its top rows (the slowest kernel after sorting by time); a filter keeps the
  // selected row in sight.
  connect(table_->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this] {
    sortedByUser_ = true;
    QTimer::singleShot(0, this, [this] {
      if (std::exchange(sortedByUser_, false)) table_->scrollToTop();
    });
  });
  connect(proxy_, &QAbstractItemModel::layoutChanged, this, [this] {
    if (std::exchange(sortedByUser_, false)) {
      table_->scrollToTop();
      return;
    }
    const QModelIndex i = proxy_->mapFromSource(model_->indexOfKernel(selected_));
    if (i.isValid()) table_->scrollTo(i);
  });
  clear();
}

void ProfileView::clear() { setInput(ProfileInput{}); }

void ProfileView::setInput(ProfileInput input) {
  data_ = ProfileData::build(std::move(input));
  selected_ = -1;
  model_->setData(data_);
  roofline_->setData(data_);
  timeline_->setData(data_);
  {
    const QSignalBlocker block(device_);
    device_->clear();
    device_->addItem(tr("All devices"), QString());
    for (const QString& d : data_->devices()) device_->addItem(d, d);
    device_->setVisible(data_->devices().size() > 1);
  }
  proxy_->setDevice({});
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->resizeSection(
      KernelTableModel::ShareColumn,
      std::max(70, table_->horizontalHeader()->sectionSize(KernelTableModel::ShareColumn)));
  updateSummary();
}

void ProfileView::updateSummary() {
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  if (data_->input().runs.isEmpty()) {
    summary_->setText(tr("<b>Profile</b> <span style='color:%1'>— no kernel runs recorded</span>").arg(muted));
    return;
  }
  double flops = 0;
  for (const KernelStats& k : data_->kernels()) flops += k.flops;
  summary_->setText(tr("<b>Profile</b> &nbsp;%1 kernels · %2 runs on %3 &nbsp;<span style='color:%4'>·</span>&nbsp; "
                        "kernel time <b>%5</b> &nbsp;<span style='color:%4'>·</span>&nbsp; %6 overall")
                         .arg(data_->kernels().size())
                         .arg(data_->input().runs.size())
                         .arg(data_->devices().join(QStringLiteral(", ")).toHtmlEscaped(), muted,
                              formatDuration(double(data_->totalKernelNs()) * 1e-9),
                              formatGflops(data_->totalKernelNs() > 0 ? flops / double(data_->totalKernelNs()) : 0)));
}

qint64 ProfileView::selectedKernelId() const {
  return selected_ >= 0 ? data_->kernels()[size_t(selected_)].kernelId : -1;
}

bool ProfileView::selectKernel(qint64 kernelId) {
  const int k = data_->kernelIndexForId(kernelId);
  setSelection(k, false);
  return k >= 0;
}

bool ProfileView::selectKernelByName(const QString& name, const QString& device) {
  const int k = data_->kernelIndexForName(name, device);
  setSelection(k, false);
  return k >= 0;
}

void ProfileView::setSelection(int kernelIndex, bool notify) {
  if (kernelIndex >= int(data_->kernels().size())) kernelIndex = -1;
  const bool changed = kernelIndex != selected_;
  selected_ = kernelIndex;
  syncing_ = true;
  const QModelIndex row = proxy_->mapFromSource(model_->indexOfKernel(kernelIndex));
  if (row.isValid()) {
    table_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(row);
  } else {
    table_->selectionModel()->clearSelection();
  }
  syncing_ = false;
  roofline_->setSelectedKernel(kernelIndex);
  timeline_->setSelectedKernel(kernelIndex);
  if (!notify) timeline_->revealKernel(kernelIndex);
  if (notify && changed && kernelIndex >= 0) {
    const KernelStats& k = data_->kernels()[size_t(kernelIndex)];
    Q_EMIT kernelSelected(k.kernelId, k.name, k.device);
  }
}

} // namespace loupe::views
