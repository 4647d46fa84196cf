#include "shapeview/shapetrackerview.h"

#include <QStringList>

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "ir/print.h"
#include "shapeview/shapegridwidget.h"
#include "shapeview/shapeoffsets.h"
#include "shapeview/shapeviewsmodel.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

// The colour ramp from the lowest to the highest offset, plus the padding swatch.
class OffsetLegend : public QWidget {
public:
  explicit OffsetLegend(QWidget* parent) : QWidget(parent) { setMinimumHeight(fontMetrics().height() + 6); }
  void setRange(int64_t lo, int64_t hi, bool known) {
    lo_ = lo;
    hi_ = hi;
    known_ = known;
    updateGeometry();
    update();
  }
  QSize sizeHint() const override {
    const QFontMetrics fm = fontMetrics();
    const int numbers =
        known_ ? fm.horizontalAdvance(QString::number(lo_)) + fm.horizontalAdvance(QString::number(hi_)) + 140 + 24
                : 0;
    return {fm.horizontalAdvance(tr("offset")) + 8 + numbers + fm.height() + 6 +
                fm.horizontalAdvance(tr("padding (reads 0)")) + 4,
            fm.height() + 6};
  }
  QSize minimumSizeHint() const override { return sizeHint(); }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const QFontMetrics fm = fontMetrics();
    const int h = fm.height() + 2, y = (height() - h) / 2;
    int x = 0;
    p.setPen(palette().color(QPalette::WindowText));
    const QString caption = tr("offset"); // of the elements in the shown slice
    p.drawText(QRect(x, y, fm.horizontalAdvance(caption), h), Qt::AlignVCenter, caption);
    x += fm.horizontalAdvance(caption) + 8;
    if (known_) {
      const QString lo = QString::number(lo_), hi = QString::number(hi_);
      p.drawText(QRect(x, y, fm.horizontalAdvance(lo), h), Qt::AlignVCenter, lo);
      x += fm.horizontalAdvance(lo) + 4;
      const int w = 140;
      QLinearGradient g(x, 0, x + w, 0);
      for (int i = 0; i <= 8; ++i) g.setColorAt(i / 8.0, ShapeGridMath::rampColor(i / 8.0));
      p.fillRect(QRect(x, y + 2, w, h - 4), g);
      x += w + 4;
      p.drawText(QRect(x, y, fm.horizontalAdvance(hi), h), Qt::AlignVCenter, hi);
      x += fm.horizontalAdvance(hi) + 16;
    }
    const QRect swatch(x, y + 2, h - 4, h - 4);
    p.fillRect(swatch, palette().color(QPalette::Base));
    p.fillRect(swatch, QBrush(palette().color(QPalette::Mid), Qt::BDiagPattern));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(swatch.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::WindowText));
    const QString pad = tr("padding (reads 0)");
    p.drawText(QRect(swatch.right() + 6, y, fm.horizontalAdvance(pad) + 2, h), Qt::AlignVCenter, pad);
  }

private:
  int64_t lo_ = 0, hi_ = 0;
  bool known_ = false;
};

ShapeTrackerView::ShapeTrackerView(QWidget* parent) : QWidget(parent), model_(new ShapeViewsModel(this)) {
  title_ = loupe::views::widthFromLayout(new QLabel(this));
  title_->setTextFormat(Qt::RichText);
  title_->setWordWrap(true);

  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);

  rowAxis_ = new QComboBox(this);
  colAxis_ = new QComboBox(this);
  rowAxis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  colAxis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  rowAxis_->setToolTip(tr("The axis that runs down the grid"));
  colAxis_->setToolTip(tr("The axis that runs across the grid"));
  auto* zoomOut = new QToolButton(this);
  zoomOut->setText(QStringLiteral("−"));
  zoomOut->setToolTip(tr("Zoom out (Ctrl+wheel)"));
  auto* zoomIn = new QToolButton(this);
  zoomIn->setText(QStringLiteral("+"));
  zoomIn->setToolTip(tr("Zoom in (Ctrl+wheel)"));
  auto* fit = new QToolButton(this);
  fit->setText(tr("Fit"));

  auto* axes = new QHBoxLayout;
  axes->addWidget(loupe::views::captionLabel(tr("Rows"), this));
  axes->addWidget(rowAxis_);
  axes->addSpacing(8);
  axes->addWidget(loupe::views::captionLabel(tr("Columns"), this));
  axes->addWidget(colAxis_);
  axes->addStretch(1);
  axes->addWidget(zoomOut);
  axes->addWidget(zoomIn);
  axes->addWidget(fit);

  sliceBox_ = new QWidget(this);
  sliceLayout_ = new QGridLayout(sliceBox_);
  sliceLayout_->setContentsMargins(0, 0, 0, 0);
  sliceLayout_->setHorizontalSpacing(8);
  sliceLayout_->setVerticalSpacing(2);

  grid_ = new ShapeGridWidget(this);
  legend_ = new OffsetLegend(this);
  hover_ = loupe::views::widthFromLayout(new QLabel(this));
  hover_->setTextFormat(Qt::RichText);
  expressions_ = loupe::views::widthFromLayout(new QLabel(this));
  expressions_->setTextFormat(Qt::RichText);
  expressions_->setWordWrap(true);
  expressions_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // The views table and the expressions on the left, the grid on the right with the panel's whole
  // height: stacked, a bottom dock left the grid a strip of ~45 px.
  auto* infoPane = new QWidget(this);
  auto* iv = new QVBoxLayout(infoPane);
  iv->setContentsMargins(0, 0, 0, 0);
  iv->setSpacing(4);
  iv->addWidget(table_);
  iv->addWidget(expressions_);
  iv->addStretch(1);

  auto* gridPane = new QWidget(this);
  auto* gv = new QVBoxLayout(gridPane);
  gv->setContentsMargins(0, 0, 0, 0);
  gv->setSpacing(4);
  gv->addLayout(axes);
  gv->addWidget(sliceBox_);
  gv->addWidget(grid_, 1);
  // Legend and hover line under the grid, one per row: side by side they made the pane wider than
  // a bottom dock leaves it.
  gv->addWidget(legend_, 0, Qt::AlignLeft);
  gv->addWidget(hover_);
  hover_->setWordWrap(true);
  grid_->setMinimumHeight(kMinGridHeight);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(infoPane);
  split->addWidget(gridPane);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(title_);
  layout->addWidget(split, 1);

  connect(rowAxis_, &QComboBox::currentIndexChanged, this, [this] { onAxisComboChanged(true); });
  connect(colAxis_, &QComboBox::currentIndexChanged, this, [this] { onAxisComboChanged(false); });
  connect(zoomIn, &QToolButton::clicked, grid_, &ShapeGridWidget::zoomIn);
  connect(zoomOut, &QToolButton::clicked, grid_, &ShapeGridWidget::zoomOut);
  connect(fit, &QToolButton::clicked, grid_, &ShapeGridWidget::zoomToFit);
  connect(grid_, &ShapeGridWidget::cellHovered, this, &ShapeTrackerView::describeHover);
  connect(grid_, &ShapeGridWidget::cellClicked, this, &ShapeTrackerView::cellClicked);
  connect(grid_, &ShapeGridWidget::colourRangeChanged, this, [this](qint64 lo, qint64 hi) {
    legend_->setRange(lo, hi, offsets_ && (offsets_->hasMapping() || offsets_->canEvaluate()));
  });
  clear();
}

ShapeTrackerView::~ShapeTrackerView() = default;

void ShapeTrackerView::clear() { setInput(ShapeTrackerInput{}); }

void ShapeTrackerView::setInput(ShapeTrackerInput input) {
  input_ = std::make_shared<const ShapeTrackerInput>(std::move(input));
  offsets_ = std::make_shared<ShapeOffsets>(input_);
  model_->setInput(input_);
  grid_->setOffsets(offsets_);
  table_->resizeColumnsToContents();

  const QString muted = palette().color(QPalette::PlaceholderText).name();
  QString title = input_->title.isEmpty() ? tr("<b>ShapeTracker</b>")
                                           : QStringLiteral("<b>%1</b>").arg(input_->title.toHtmlEscaped());
  if (!input_->views.empty() || !input_->shape.empty())
    title +=
        tr(" &nbsp;<span style='color:%1'>shape</span> <tt>%2</tt> &nbsp;<span style='color:%1'>·</span> %3 view(s) "
           "&nbsp;<span style='color:%1'>·</span> %4 elements")
            .arg(muted, formatTuple(input_->shape))
            .arg(input_->views.size())
            .arg(elementCount(input_->shape));
  if (!offsets_->problem().isEmpty())
    title += QStringLiteral("<br><span style='color:#d33'>%1</span>").arg(offsets_->problem().toHtmlEscaped());
  title_->setText(title);

  auto expr = [](const loupe::UOpPtr& e, const QString& none) {
    if (!e) return none;
    QString s = QString::fromStdString(loupe::render_expr(e));
    if (s.size() > 600) s = s.left(599) + QStringLiteral("…");
    return s.toHtmlEscaped();
  };
  QString expressions =
      tr("<span style='color:%1'>index</span> <tt>%2</tt><br><span style='color:%1'>valid</span> <tt>%3</tt>")
          .arg(muted, expr(input_->symbolicIndex ? input_->symbolicIndex : input_->index, tr("(not recorded)")),
               expr(input_->symbolicIndex ? input_->symbolicValid : input_->valid, QStringLiteral("True")));
  if (!input_->variables.empty()) {
    // the grid and the numbers are the view under one value per variable
    QStringList values;
    for (const ShapeVariable& v : input_->variables)
      values << tr("%1 = %2 <span style='color:%3'>(%4..%5%6)</span>")
                    .arg(v.name.toHtmlEscaped()).arg(v.value).arg(muted).arg(v.min).arg(v.max).arg(v.bound ? tr(", bound") : QString());
    expressions += tr("<br><span style='color:%1'>under</span> %2").arg(muted, values.join(QStringLiteral(", ")));
  }
  expressions_->setText(expressions);
  legend_->setRange(grid_->colourLow(), grid_->colourHigh(), offsets_->hasMapping() || offsets_->canEvaluate());
  rebuildAxisControls();
  describeHover({});
  grid_->zoomToFit();
  // The table takes the width of its columns (up to kMaxTableWidth, then it scrolls) and the height
  // of its rows, the grid beside it the rest.
  const int tableWidth = table_->horizontalHeader()->length() + 2 * table_->frameWidth() + 2;
  table_->setMinimumWidth(std::min(tableWidth, kMaxTableWidth));
  const int scrollBar = tableWidth > kMaxTableWidth ? table_->horizontalScrollBar()->sizeHint().height() : 0;
  const int tableHeight = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth() +
                          table_->verticalHeader()->defaultSectionSize() * std::max(1, model_->rowCount()) + 2 +
                          scrollBar;
  table_->setFixedHeight(tableHeight);
}

void ShapeTrackerView::rebuildAxisControls() {
  updating_ = true;
  const ShapeGridMath& math = grid_->math();
  const int rank = math.rank();
  rowAxis_->clear();
  colAxis_->clear();
  for (int a = 0; a < rank; ++a) {
    const QString label = tr("axis %1 (%2)").arg(a).arg(math.shape()[size_t(a)]);
    rowAxis_->addItem(label, a);
    colAxis_->addItem(label, a);
  }
  if (rank >= 1) rowAxis_->addItem(tr("— (one row)"), -1);
  rowAxis_->setEnabled(rank >= 2);
  colAxis_->setEnabled(rank >= 2);
  syncAxisCombos();

  while (QLayoutItem* item = sliceLayout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  sliders_ = QList<QSlider*>(rank, nullptr);
  spins_ = QList<QSpinBox*>(rank, nullptr);
  int slot = 0;
  for (int axis : math.sliceAxes()) {
    const int64_t size = math.shape()[size_t(axis)];
    auto* label = loupe::views::captionLabel(tr("axis %1").arg(axis), sliceBox_);
    auto* slider = new QSlider(Qt::Horizontal, sliceBox_);
    auto* spin = new QSpinBox(sliceBox_);
    const int maxIndex = int(std::clamp<int64_t>(size - 1, 0, INT_MAX));
    slider->setRange(0, maxIndex);
    spin->setRange(0, maxIndex);
    spin->setSuffix(tr(" / %1").arg(maxIndex));
    slider->setValue(int(math.fixedIndex(axis)));
    spin->setValue(int(math.fixedIndex(axis)));
    slider->setEnabled(size > 1);
    spin->setEnabled(size > 1);
    slider->setMinimumWidth(80);
    const int row = slot / 2, col = (slot % 2) * 3;  // two per row: the grid pane stays narrow
    sliceLayout_->addWidget(label, row, col);
    sliceLayout_->addWidget(slider, row, col + 1);
    sliceLayout_->addWidget(spin, row, col + 2);
    connect(slider, &QSlider::valueChanged, this, [this, axis](int v) { setSliceIndex(axis, v); });
    connect(spin, &QSpinBox::valueChanged, this, [this, axis](int v) { setSliceIndex(axis, v); });
    sliders_[axis] = slider;
    spins_[axis] = spin;
    ++slot;
  }
  sliceBox_->setVisible(slot > 0);
  updating_ = false;
}

void ShapeTrackerView::syncAxisCombos() {
  const ShapeGridMath& math = grid_->math();
  rowAxis_->setCurrentIndex(rowAxis_->findData(math.rowAxis()));
  colAxis_->setCurrentIndex(colAxis_->findData(math.colAxis()));
}

void ShapeTrackerView::onAxisComboChanged(bool rowChanged) {
  if (updating_) return;
  const ShapeGridMath& math = grid_->math();
  int row = rowAxis_->currentData().isValid() ? rowAxis_->currentData().toInt() : -1;
  int col = colAxis_->currentData().isValid() ? colAxis_->currentData().toInt() : -1;
  // Picking the axis the other combo shows swaps the two.
  if (row >= 0 && row == col) {
    if (rowChanged)
      col = math.rowAxis();
    else
      row = math.colAxis();
  }
  setGridAxes(row, col);
}

bool ShapeTrackerView::setGridAxes(int rowAxis, int colAxis) {
  const bool ok = grid_->setAxes(rowAxis, colAxis);
  rebuildAxisControls(); // the slice axes changed; also puts the combos back if refused
  if (ok) grid_->zoomToFit();
  return ok;
}

void ShapeTrackerView::setSliceIndex(int axis, int64_t value) {
  grid_->setFixedIndex(axis, value);
  if (axis < 0 || axis >= sliders_.size() || !sliders_[axis]) return;
  const int v = int(grid_->math().fixedIndex(axis));
  const QSignalBlocker b1(sliders_[axis]), b2(spins_[axis]);
  sliders_[axis]->setValue(v);
  spins_[axis]->setValue(v);
}

void ShapeTrackerView::describeHover(const QList<qint64>& index) {
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  if (index.isEmpty() || !offsets_) {
    hover_->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                         .arg(muted, tr("Hover a cell for its index and expressions; Ctrl+wheel zooms")));
    return;
  }
  const std::vector<int64_t> idx(index.begin(), index.end());
  const ShapeCellReport r = offsets_->report(idx, grid_->math().flatIndex(idx));
  QString what;
  if (!r.offset())
    what = tr("offset unknown");
  else if (*r.offset() == ShapeOffsets::kPadding)
    what = tr("<b>padding</b>");
  else
    what = tr("offset <b>%1</b>").arg(*r.offset());
  if (r.disagrees()) what += tr(" <span style='color:#d33'>(expressions disagree with the mapping)</span>");
  hover_->setText(tr("<tt>%1</tt> → %2").arg(formatTuple(idx), what));
}

QString ShapeTrackerView::hoverText() const { return hover_->text(); }

} // namespace loupe::views
