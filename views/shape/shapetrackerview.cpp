#include "shape/shapetrackerview.h"

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
#include "shape/shapegridwidget.h"
#include "shape/shapeoffsets.h"
#include "shape/shapeviewsmodel.h"
#include "panels/elidedlabel.h"

// The colour ramp from the lowest to the highest offset, plus the padding swatch.
class OffsetLegend : public QWidget {
public:
  explicit OffsetLegend(QWidget* parent) : QWidget(parent) { setMinimumHeight(fontMetrics().height() + 6); }
  void setRange(int64_t lo, int64_t hi, bool known) {
    m_lo = lo;
    m_hi = hi;
    m_known = known;
    updateGeometry();
    update();
  }
  QSize sizeHint() const override {
    const QFontMetrics fm = fontMetrics();
    const int numbers =
        m_known ? fm.horizontalAdvance(QString::number(m_lo)) + fm.horizontalAdvance(QString::number(m_hi)) + 140 + 24
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
    if (m_known) {
      const QString lo = QString::number(m_lo), hi = QString::number(m_hi);
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
  int64_t m_lo = 0, m_hi = 0;
  bool m_known = false;
};

ShapeTrackerView::ShapeTrackerView(QWidget* parent) : QWidget(parent), m_model(new ShapeViewsModel(this)) {
  m_title = loupe::views::widthFromLayout(new QLabel(this));
  m_title->setTextFormat(Qt::RichText);
  m_title->setWordWrap(true);

  m_table = new QTableView(this);
  m_table->setModel(m_model);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);

  m_rowAxis = new QComboBox(this);
  m_colAxis = new QComboBox(this);
  m_rowAxis->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_colAxis->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_rowAxis->setToolTip(tr("The axis that runs down the grid"));
  m_colAxis->setToolTip(tr("The axis that runs across the grid"));
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
  axes->addWidget(m_rowAxis);
  axes->addSpacing(8);
  axes->addWidget(loupe::views::captionLabel(tr("Columns"), this));
  axes->addWidget(m_colAxis);
  axes->addStretch(1);
  axes->addWidget(zoomOut);
  axes->addWidget(zoomIn);
  axes->addWidget(fit);

  m_sliceBox = new QWidget(this);
  m_sliceLayout = new QGridLayout(m_sliceBox);
  m_sliceLayout->setContentsMargins(0, 0, 0, 0);
  m_sliceLayout->setHorizontalSpacing(8);
  m_sliceLayout->setVerticalSpacing(2);

  m_grid = new ShapeGridWidget(this);
  m_legend = new OffsetLegend(this);
  m_hover = loupe::views::widthFromLayout(new QLabel(this));
  m_hover->setTextFormat(Qt::RichText);
  m_expressions = loupe::views::widthFromLayout(new QLabel(this));
  m_expressions->setTextFormat(Qt::RichText);
  m_expressions->setWordWrap(true);
  m_expressions->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // The views table and the expressions on the left, the grid on the right with the panel's whole
  // height: stacked, a bottom dock left the grid a strip of ~45 px.
  auto* infoPane = new QWidget(this);
  auto* iv = new QVBoxLayout(infoPane);
  iv->setContentsMargins(0, 0, 0, 0);
  iv->setSpacing(4);
  iv->addWidget(m_table);
  iv->addWidget(m_expressions);
  iv->addStretch(1);

  auto* gridPane = new QWidget(this);
  auto* gv = new QVBoxLayout(gridPane);
  gv->setContentsMargins(0, 0, 0, 0);
  gv->setSpacing(4);
  gv->addLayout(axes);
  gv->addWidget(m_sliceBox);
  gv->addWidget(m_grid, 1);
  // Legend and hover line under the grid, one per row: side by side they made the pane wider than
  // a bottom dock leaves it.
  gv->addWidget(m_legend, 0, Qt::AlignLeft);
  gv->addWidget(m_hover);
  m_hover->setWordWrap(true);
  m_grid->setMinimumHeight(kMinGridHeight);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(infoPane);
  split->addWidget(gridPane);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(m_title);
  layout->addWidget(split, 1);

  connect(m_rowAxis, &QComboBox::currentIndexChanged, this, [this] { onAxisComboChanged(true); });
  connect(m_colAxis, &QComboBox::currentIndexChanged, this, [this] { onAxisComboChanged(false); });
  connect(zoomIn, &QToolButton::clicked, m_grid, &ShapeGridWidget::zoomIn);
  connect(zoomOut, &QToolButton::clicked, m_grid, &ShapeGridWidget::zoomOut);
  connect(fit, &QToolButton::clicked, m_grid, &ShapeGridWidget::zoomToFit);
  connect(m_grid, &ShapeGridWidget::cellHovered, this, &ShapeTrackerView::describeHover);
  connect(m_grid, &ShapeGridWidget::cellClicked, this, &ShapeTrackerView::cellClicked);
  connect(m_grid, &ShapeGridWidget::colourRangeChanged, this, [this](qint64 lo, qint64 hi) {
    m_legend->setRange(lo, hi, m_offsets && (m_offsets->hasMapping() || m_offsets->canEvaluate()));
  });
  clear();
}

ShapeTrackerView::~ShapeTrackerView() = default;

void ShapeTrackerView::clear() { setInput(ShapeTrackerInput{}); }

void ShapeTrackerView::setInput(ShapeTrackerInput input) {
  m_input = std::make_shared<const ShapeTrackerInput>(std::move(input));
  m_offsets = std::make_shared<ShapeOffsets>(m_input);
  m_model->setInput(m_input);
  m_grid->setOffsets(m_offsets);
  m_table->resizeColumnsToContents();

  const QString muted = palette().color(QPalette::PlaceholderText).name();
  QString title = m_input->title.isEmpty() ? tr("<b>ShapeTracker</b>")
                                           : QStringLiteral("<b>%1</b>").arg(m_input->title.toHtmlEscaped());
  if (!m_input->views.empty() || !m_input->shape.empty())
    title +=
        tr(" &nbsp;<span style='color:%1'>shape</span> <tt>%2</tt> &nbsp;<span style='color:%1'>·</span> %3 view(s) "
           "&nbsp;<span style='color:%1'>·</span> %4 elements")
            .arg(muted, formatTuple(m_input->shape))
            .arg(m_input->views.size())
            .arg(elementCount(m_input->shape));
  if (!m_offsets->problem().isEmpty())
    title += QStringLiteral("<br><span style='color:#d33'>%1</span>").arg(m_offsets->problem().toHtmlEscaped());
  m_title->setText(title);

  auto expr = [](const loupe::UOpPtr& e, const QString& none) {
    if (!e) return none;
    QString s = QString::fromStdString(loupe::render_expr(e));
    if (s.size() > 600) s = s.left(599) + QStringLiteral("…");
    return s.toHtmlEscaped();
  };
  QString expressions =
      tr("<span style='color:%1'>index</span> <tt>%2</tt><br><span style='color:%1'>valid</span> <tt>%3</tt>")
          .arg(muted, expr(m_input->symbolicIndex ? m_input->symbolicIndex : m_input->index, tr("(not recorded)")),
               expr(m_input->symbolicIndex ? m_input->symbolicValid : m_input->valid, QStringLiteral("True")));
  if (!m_input->variables.empty()) {
    // the grid and the numbers are the view under one value per variable
    QStringList values;
    for (const ShapeVariable& v : m_input->variables)
      values << tr("%1 = %2 <span style='color:%3'>(%4..%5%6)</span>")
                    .arg(v.name.toHtmlEscaped()).arg(v.value).arg(muted).arg(v.min).arg(v.max).arg(v.bound ? tr(", bound") : QString());
    expressions += tr("<br><span style='color:%1'>under</span> %2").arg(muted, values.join(QStringLiteral(", ")));
  }
  m_expressions->setText(expressions);
  m_legend->setRange(m_grid->colourLow(), m_grid->colourHigh(), m_offsets->hasMapping() || m_offsets->canEvaluate());
  rebuildAxisControls();
  describeHover({});
  m_grid->zoomToFit();
  // The table takes the width of its columns (up to kMaxTableWidth, then it scrolls) and the height
  // of its rows, the grid beside it the rest.
  const int tableWidth = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() + 2;
  m_table->setMinimumWidth(std::min(tableWidth, kMaxTableWidth));
  const int scrollBar = tableWidth > kMaxTableWidth ? m_table->horizontalScrollBar()->sizeHint().height() : 0;
  const int tableHeight = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth() +
                          m_table->verticalHeader()->defaultSectionSize() * std::max(1, m_model->rowCount()) + 2 +
                          scrollBar;
  m_table->setFixedHeight(tableHeight);
}

void ShapeTrackerView::rebuildAxisControls() {
  m_updating = true;
  const ShapeGridMath& math = m_grid->math();
  const int rank = math.rank();
  m_rowAxis->clear();
  m_colAxis->clear();
  for (int a = 0; a < rank; ++a) {
    const QString label = tr("axis %1 (%2)").arg(a).arg(math.shape()[size_t(a)]);
    m_rowAxis->addItem(label, a);
    m_colAxis->addItem(label, a);
  }
  if (rank >= 1) m_rowAxis->addItem(tr("— (one row)"), -1);
  m_rowAxis->setEnabled(rank >= 2);
  m_colAxis->setEnabled(rank >= 2);
  syncAxisCombos();

  while (QLayoutItem* item = m_sliceLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_sliders = QList<QSlider*>(rank, nullptr);
  m_spins = QList<QSpinBox*>(rank, nullptr);
  int slot = 0;
  for (int axis : math.sliceAxes()) {
    const int64_t size = math.shape()[size_t(axis)];
    auto* label = loupe::views::captionLabel(tr("axis %1").arg(axis), m_sliceBox);
    auto* slider = new QSlider(Qt::Horizontal, m_sliceBox);
    auto* spin = new QSpinBox(m_sliceBox);
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
    m_sliceLayout->addWidget(label, row, col);
    m_sliceLayout->addWidget(slider, row, col + 1);
    m_sliceLayout->addWidget(spin, row, col + 2);
    connect(slider, &QSlider::valueChanged, this, [this, axis](int v) { setSliceIndex(axis, v); });
    connect(spin, &QSpinBox::valueChanged, this, [this, axis](int v) { setSliceIndex(axis, v); });
    m_sliders[axis] = slider;
    m_spins[axis] = spin;
    ++slot;
  }
  m_sliceBox->setVisible(slot > 0);
  m_updating = false;
}

void ShapeTrackerView::syncAxisCombos() {
  const ShapeGridMath& math = m_grid->math();
  m_rowAxis->setCurrentIndex(m_rowAxis->findData(math.rowAxis()));
  m_colAxis->setCurrentIndex(m_colAxis->findData(math.colAxis()));
}

void ShapeTrackerView::onAxisComboChanged(bool rowChanged) {
  if (m_updating) return;
  const ShapeGridMath& math = m_grid->math();
  int row = m_rowAxis->currentData().isValid() ? m_rowAxis->currentData().toInt() : -1;
  int col = m_colAxis->currentData().isValid() ? m_colAxis->currentData().toInt() : -1;
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
  const bool ok = m_grid->setAxes(rowAxis, colAxis);
  rebuildAxisControls(); // the slice axes changed; also puts the combos back if refused
  if (ok) m_grid->zoomToFit();
  return ok;
}

void ShapeTrackerView::setSliceIndex(int axis, int64_t value) {
  m_grid->setFixedIndex(axis, value);
  if (axis < 0 || axis >= m_sliders.size() || !m_sliders[axis]) return;
  const int v = int(m_grid->math().fixedIndex(axis));
  const QSignalBlocker b1(m_sliders[axis]), b2(m_spins[axis]);
  m_sliders[axis]->setValue(v);
  m_spins[axis]->setValue(v);
}

void ShapeTrackerView::describeHover(const QList<qint64>& index) {
  const QString muted = palette().color(QPalette::PlaceholderText).name();
  if (index.isEmpty() || !m_offsets) {
    m_hover->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                         .arg(muted, tr("Hover a cell for its index and expressions; Ctrl+wheel zooms")));
    return;
  }
  const std::vector<int64_t> idx(index.begin(), index.end());
  const ShapeCellReport r = m_offsets->report(idx, m_grid->math().flatIndex(idx));
  QString what;
  if (!r.offset())
    what = tr("offset unknown");
  else if (*r.offset() == ShapeOffsets::kPadding)
    what = tr("<b>padding</b>");
  else
    what = tr("offset <b>%1</b>").arg(*r.offset());
  if (r.disagrees()) what += tr(" <span style='color:#d33'>(expressions disagree with the mapping)</span>");
  m_hover->setText(tr("<tt>%1</tt> → %2").arg(formatTuple(idx), what));
}

QString ShapeTrackerView::hoverText() const { return m_hover->text(); }
