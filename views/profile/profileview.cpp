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
#include "panels/elidedlabel.h"

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
    const bool dark = opt.palette.color(QPalette::Base).lightness() < 128;
    bar.setAlphaF(opt.state & QStyle::State_Selected ? 0.5 : dark ? 0.55 : 0.28);
    QStyledItemDelegate::paint(p, option, index);
    const QRectF r = QRectF(opt.rect).adjusted(2, 3, -2, -3);
    p->fillRect(QRectF(r.left(), r.top(), r.width() * share, r.height()), bar);
  }
};

} // namespace

ProfileView::ProfileView(QWidget* parent)
    : QWidget(parent), m_model(new KernelTableModel(this)), m_proxy(new KernelFilterProxy(this)) {
  m_proxy->setSourceModel(m_model);

  m_summary = loupe::views::widthFromLayout(new QLabel(this));
  m_summary->setTextFormat(Qt::RichText);
  m_filter = new QLineEdit(this);
  m_filter->setPlaceholderText(tr("Filter kernels by name, device or opts"));
  m_filter->setClearButtonEnabled(true);
  m_device = new QComboBox(this);
  m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* fit = new QToolButton(this);
  fit->setText(tr("Show all"));
  fit->setToolTip(tr("Show the whole timeline (or double-click it)"));

  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(KernelTableModel::TimeColumn, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->horizontalHeader()->setHighlightSections(false);
  m_table->setItemDelegateForColumn(KernelTableModel::ShareColumn, new ShareBarDelegate(m_table));

  m_roofline = new RooflineWidget(this);
  m_timeline = new TimelineWidget(this);

  auto* tableBar = new QHBoxLayout;
  tableBar->setContentsMargins(0, 0, 0, 0);
  tableBar->addWidget(m_filter, 1);
  tableBar->addWidget(m_device);
  auto* tablePane = new QWidget(this);
  auto* tv = new QVBoxLayout(tablePane);
  tv->setContentsMargins(0, 0, 0, 0);
  tv->setSpacing(4);
  tv->addLayout(tableBar);
  tv->addWidget(m_table, 1);

  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(tablePane);
  top->addWidget(m_roofline);
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
  tlv->addWidget(m_timeline, 1);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(timelinePane);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->setSpacing(6);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &KernelFilterProxy::setFilterText);
  connect(m_device, &QComboBox::currentIndexChanged, this,
          [this] { m_proxy->setDevice(m_device->currentData().toString()); });
  connect(fit, &QToolButton::clicked, m_timeline, &TimelineWidget::showAll);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (m_syncing || !current.isValid()) return;
    setSelection(current.data(KernelTableModel::KernelIndexRole).toInt(), true);
  });
  connect(m_roofline, &RooflineWidget::kernelClicked, this, [this](int k) { setSelection(k, true); });
  connect(m_timeline, &TimelineWidget::kernelClicked, this, [this](int k) { setSelection(k, true); });
  // A new sort shows its top rows (the slowest kernel after sorting by time); a filter keeps the
  // selected row in sight.
  connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this] {
    m_sortedByUser = true;
    QTimer::singleShot(0, this, [this] {
      if (std::exchange(m_sortedByUser, false)) m_table->scrollToTop();
    });
  });
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, [this] {
    if (std::exchange(m_sortedByUser, false)) {
      m_table->scrollToTop();
      return;
    }
    const QModelIndex i = m_proxy->mapFromSource(m_model->indexOfKernel(m_selected));
    if (i.isValid()) m_table->scrollTo(i);
  });
  clear();
}

void ProfileView::clear() { setInput(ProfileInput{}); }

void ProfileView::setInput(ProfileInput input) {
  m_data = ProfileData::build(std::move(input));
  m_selected = -1;
  m_model->setData(m_data);
  m_roofline->setData(m_data);
  m_timeline->setData(m_data);
  {
    const QSignalBlocker block(m_device);
    m_device->clear();
    m_device->addItem(tr("All devices"), QString());
    for (const QString& d : m_data->devices()) m_device->addItem(d, d);
    m_device->setVisible(m_data->devices().size() > 1);
  }
  m_proxy->setDevice({});
  m_table->resizeColumnsToContents();
  m_table->horizontalHeader()->resizeSection(
      KernelTableModel::ShareColumn,
      std::max(70, m_table->horizontalHeader()->sectionSize(KernelTableModel::ShareColumn)));
  updateSummary();
}

void ProfileView::updateSummary() {
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  if (m_data->input().runs.isEmpty()) {
    m_summary->setText(tr("<b>Profile</b> <span style='color:%1'>— no kernel runs recorded</span>").arg(muted));
    return;
  }
  double flops = 0;
  for (const KernelStats& k : m_data->kernels()) flops += k.flops;
  m_summary->setText(tr("<b>Profile</b> &nbsp;%1 kernels · %2 runs on %3 &nbsp;<span style='color:%4'>·</span>&nbsp; "
                        "kernel time <b>%5</b> &nbsp;<span style='color:%4'>·</span>&nbsp; %6 overall")
                         .arg(m_data->kernels().size())
                         .arg(m_data->input().runs.size())
                         .arg(m_data->devices().join(QStringLiteral(", ")).toHtmlEscaped(), muted,
                              formatDuration(double(m_data->totalKernelNs()) * 1e-9),
                              formatGflops(m_data->totalKernelNs() > 0 ? flops / double(m_data->totalKernelNs()) : 0)));
}

qint64 ProfileView::selectedKernelId() const {
  return m_selected >= 0 ? m_data->kernels()[size_t(m_selected)].kernelId : -1;
}

bool ProfileView::selectKernel(qint64 kernelId) {
  const int k = m_data->kernelIndexForId(kernelId);
  setSelection(k, false);
  return k >= 0;
}

bool ProfileView::selectKernelByName(const QString& name, const QString& device) {
  const int k = m_data->kernelIndexForName(name, device);
  setSelection(k, false);
  return k >= 0;
}

void ProfileView::setSelection(int kernelIndex, bool notify) {
  if (kernelIndex >= int(m_data->kernels().size())) kernelIndex = -1;
  const bool changed = kernelIndex != m_selected;
  m_selected = kernelIndex;
  m_syncing = true;
  const QModelIndex row = m_proxy->mapFromSource(m_model->indexOfKernel(kernelIndex));
  if (row.isValid()) {
    m_table->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(row);
  } else {
    m_table->selectionModel()->clearSelection();
  }
  m_syncing = false;
  m_roofline->setSelectedKernel(kernelIndex);
  m_timeline->setSelectedKernel(kernelIndex);
  if (!notify) m_timeline->revealKernel(kernelIndex);
  if (notify && changed && kernelIndex >= 0) {
    const KernelStats& k = m_data->kernels()[size_t(kernelIndex)];
    Q_EMIT kernelSelected(k.kernelId, k.name, k.device);
  }
}
