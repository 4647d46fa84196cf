#include "shapeview/shapegridwidget.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <climits>
#include <cmath>

#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
constexpr double kImageBelow = 6.0; // cells smaller than this are drawn as one scaled image
constexpr double kTextFrom = 18.0;  // cells at least this big get their offset written in
constexpr double kZoomStep = 1.25;

QList<qint64> toList(const std::vector<int64_t>& v) { return QList<qint64>(v.begin(), v.end()); }
} // namespace

ShapeGridWidget::ShapeGridWidget(QWidget* parent) : QAbstractScrollArea(parent) {
  setUpChartSurface(viewport());
  horizontalScrollBar()->setSingleStep(20);
  verticalScrollBar()->setSingleStep(20);
  updateHeaders();
}

void ShapeGridWidget::setOffsets(std::shared_ptr<ShapeOffsets> offsets) {
  offsets_ = std::move(offsets);
  math_.setShape(offsets_ && offsets_->input() ? offsets_->input()->shape : std::vector<int64_t>{});
  hover_.reset();
  hoverOffset_.reset();
  selected_.reset();
  updateHeaders();
  updateColourRange();
  viewport()->update();
}

void ShapeGridWidget::updateColourRange() {
  // Spread the ramp over this slice's offsets, so a slice of a big buffer is not one flat colour.
  qint64 lo = 0, hi = 0;
  constexpr int64_t kMaxScan = int64_t(1) << 22;
  if (offsets_ && offsets_->hasMapping() && math_.rows() * math_.cols() <= kMaxScan) {
    bool any = false;
    for (int64_t r = 0; r < math_.rows(); ++r) {
      for (int64_t c = 0; c < math_.cols(); ++c) {
        const int64_t v = *offsets_->known(math_.flatIndexOf({r, c}));
        if (v < 0) continue;
        lo = any ? std::min<qint64>(lo, v) : v;
        hi = any ? std::max<qint64>(hi, v) : v;
        any = true;
      }
    }
  } else if (offsets_) {
    std::vector<std::optional<int64_t>> fixed(size_t(math_.rank()));
    for (int a : math_.sliceAxes()) fixed[size_t(a)] = math_.fixedIndex(a);
    std::tie(lo, hi) = offsets_->boundsWithFixed(fixed);
  }
  if (lo == lo_ && hi == hi_) return;
  lo_ = lo;
  hi_ = hi;
  Q_EMIT colourRangeChanged(lo, hi);
}

bool ShapeGridWidget::setAxes(int rowAxis, int colAxis) {
  if (!math_.setAxes(rowAxis, colAxis)) return false;
  setHover(std::nullopt);
  updateHeaders();
  updateColourRange();
  viewport()->update();
  return true;
}

void ShapeGridWidget::setFixedIndex(int axis, int64_t value) {
  if (!math_.setFixedIndex(axis, value)) return;
  setHover(std::nullopt);
  updateColourRange();
  viewport()->update();
}

void ShapeGridWidget::setCellSize(double size) {
  fitted_ = false;
  const double before = math_.cellSize();
  math_.setCellSize(size);
  updateHeaders();
  viewport()->update();
  if (math_.cellSize() != before) Q_EMIT cellSizeChanged(math_.cellSize());
}

void ShapeGridWidget::zoomIn() { zoomAt(kZoomStep, QPointF(viewport()->rect().center())); }
void ShapeGridWidget::zoomOut() { zoomAt(1.0 / kZoomStep, QPointF(viewport()->rect().center())); }

void ShapeGridWidget::zoomToFit() {
  // Hidden widgets have no real size yet: fit once they are shown and laid out.
  fitPending_ = !isVisible();
  setCellSize(std::min(fitLimit_, math_.fitCellSize(QSizeF(viewport()->size()))));
  horizontalScrollBar()->setValue(0);
  verticalScrollBar()->setValue(0);
  fitted_ = true;  // until the user zooms: a resize (the dock, the splitter) fits again
}

void ShapeGridWidget::showEvent(QShowEvent* event) {
  QAbstractScrollArea::showEvent(event);
  if (fitPending_) zoomToFit();
}

void ShapeGridWidget::zoomAt(double factor, QPointF pos) {
  // Keep the grid point under `pos` in place: it sits at the same fractional cell after zooming.
  const QPointF c = pos + scrollOffset();
  const double u = (c.x() - math_.leftHeader()) / math_.cellSize();
  const double v = (c.y() - math_.topHeader()) / math_.cellSize();
  setCellSize(math_.cellSize() * factor);
  horizontalScrollBar()->setValue(int(std::lround(math_.leftHeader() + u * math_.cellSize() - pos.x())));
  verticalScrollBar()->setValue(int(std::lround(math_.topHeader() + v * math_.cellSize() - pos.y())));
}

QPointF ShapeGridWidget::scrollOffset() const {
  return QPointF(horizontalScrollBar()->value(), verticalScrollBar()->value());
}

QPoint ShapeGridWidget::viewportPosOf(GridCell cell) const {
  return (math_.cellRect(cell).center() - scrollOffset()).toPoint();
}

void ShapeGridWidget::updateHeaders() {
  const QFontMetrics fm(font());
  const int64_t maxRow = std::max<int64_t>(0, math_.rows() - 1);
  // Wide enough for the row labels and the corner's axis note ("a2↓ a3→").
  const double left = std::max(fm.horizontalAdvance(QString::number(maxRow)) + 14,
                               fm.horizontalAdvance(QStringLiteral("a0↓ a0→")) + 12);
  math_.setHeaderSize(left, fm.height() + 8);
  updateScrollBars();
}

void ShapeGridWidget::updateScrollBars() {
  const QSizeF content = math_.contentSize();
  const QSize vp = viewport()->size();
  auto range = [](double content, int view) {
    return int(std::clamp(std::ceil(content) - view, 0.0, double(INT_MAX / 2)));
  };
  horizontalScrollBar()->setRange(0, range(content.width(), vp.width()));
  verticalScrollBar()->setRange(0, range(content.height(), vp.height()));
  horizontalScrollBar()->setPageStep(vp.width());
  verticalScrollBar()->setPageStep(vp.height());
}

void ShapeGridWidget::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
  if ((fitPending_ || fitted_) && isVisible()) zoomToFit();
}

void ShapeGridWidget::changeEvent(QEvent* event) {
  QAbstractScrollArea::changeEvent(event);
  if (event->type() == QEvent::FontChange) updateHeaders();
  if (event->type() == QEvent::PaletteChange) viewport()->update();
}

void ShapeGridWidget::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ControlModifier) {
    const double steps = wheelNotches(event);
    if (steps != 0) zoomAt(std::pow(kZoomStep, steps), event->position());
    event->accept();
    return;
  }
  QAbstractScrollArea::wheelEvent(event);
}

void ShapeGridWidget::setHover(std::optional<GridCell> cell) {
  if (cell == hover_) return;
  hover_ = cell;
  hoverOffset_.reset();
  if (cell && offsets_) {
    if (auto k = offsets_->known(math_.flatIndexOf(*cell)); k && *k >= 0) hoverOffset_ = *k;
  }
  viewport()->update();
  Q_EMIT cellHovered(cell ? toList(math_.indexOf(*cell)) : QList<qint64>{});
}

void ShapeGridWidget::mouseMoveEvent(QMouseEvent* event) {
  setHover(math_.cellAt(event->position() + scrollOffset()));
  QAbstractScrollArea::mouseMoveEvent(event);
}

void ShapeGridWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    if (auto cell = math_.cellAt(event->position() + scrollOffset())) {
      selected_ = math_.indexOf(*cell);
      viewport()->update();
      Q_EMIT cellClicked(toList(*selected_));
    }
  }
  QAbstractScrollArea::mousePressEvent(event);
}

void ShapeGridWidget::leaveEvent(QEvent* event) {
  setHover(std::nullopt);
  QAbstractScrollArea::leaveEvent(event);
}

bool ShapeGridWidget::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && offsets_) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (auto cell = math_.cellAt(QPointF(help->pos()) + scrollOffset())) {
      const std::vector<int64_t> index = math_.indexOf(*cell);
      const QString text = shapeCellTooltip(offsets_->report(index, math_.flatIndex(index)));
      const QRect r = math_.cellRect(*cell).translated(-scrollOffset()).toAlignedRect();
      QToolTip::showText(help->globalPos(), text, viewport(), r);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

std::optional<int64_t> ShapeGridWidget::offsetOf(GridCell cell, int* budget) {
  if (!offsets_) return ShapeOffsets::kError;
  const int64_t flat = math_.flatIndexOf(cell);
  if (auto k = offsets_->known(flat)) return k;
  if (*budget <= 0) return std::nullopt;
  --*budget;
  return offsets_->evaluate(flat, math_.indexOf(cell));
}

void ShapeGridWidget::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  const QPalette pal = palette();
  p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
  const QRectF visible(scrollOffset(), QSizeF(viewport()->size()));
  const GridRange range = math_.cellsIn(visible);
  int budget = kEvalBudget;
  pending_ = 0;
  if (!range.isEmpty()) {
    p.save();
    p.setClipRect(QRectF(math_.leftHeader(), math_.topHeader(), viewport()->width(), viewport()->height()));
    p.translate(-scrollOffset());
    if (math_.cellSize() < kImageBelow)
      paintSmallCells(p, range, &budget);
    else
      paintLargeCells(p, range, &budget);
    paintMarks(p, range);
    p.restore();
  } else if (math_.rank() > 0 && math_.rows() == 0) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter,
               tr("The shape %1 has no elements").arg(formatTuple(math_.shape())));
  }
  paintHeaders(p, range);
  // Whatever the budget did not cover is drawn as pending and evaluated on the next turn.
  if (pending_ > 0 && !repaintQueued_) {
    repaintQueued_ = true;
    QTimer::singleShot(0, this, [this] {
      repaintQueued_ = false;
      viewport()->update();
    });
  }
}

void ShapeGridWidget::paintLargeCells(QPainter& p, const GridRange& range, int* budget) {
  const QPalette pal = palette();
  const double cs = math_.cellSize();
  const bool gaps = cs >= 10;
  const QBrush hatch(pal.color(QPalette::Mid), Qt::BDiagPattern);
  const QColor pendingColour = pal.color(QPalette::AlternateBase);
  QFont f = font();
  f.setPixelSize(int(std::clamp(cs * 0.36, 7.0, 14.0)));
  p.setFont(f);
  const QFontMetrics fm(f);
  const int64_t lo = lo_, hi = hi_;
  for (int64_t r = range.row0; r < range.row1; ++r) {
    for (int64_t c = range.col0; c < range.col1; ++c) {
      const GridCell cell{r, c};
      QRectF rect = math_.cellRect(cell);
      if (gaps) rect.adjust(0.5, 0.5, -0.5, -0.5);
      const std::optional<int64_t> off = offsetOf(cell, budget);
      QString text;
      QColor textColour = pal.color(QPalette::Text);
      if (!off) {
        ++pending_;
        p.fillRect(rect, pendingColour);
      } else if (*off == ShapeOffsets::kPadding) {
        p.fillRect(rect, pal.color(QPalette::Base));
        p.fillRect(rect, hatch);
        if (gaps) {
          p.setPen(QPen(pal.color(QPalette::Mid), 1));
          p.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5));
        }
      } else if (*off == ShapeOffsets::kError) {
        p.fillRect(rect, pal.color(QPalette::Window));
        text = QStringLiteral("?");
      } else {
        const QColor bg = ShapeGridMath::offsetColor(*off, lo, hi);
        p.fillRect(rect, bg);
        text = QString::number(*off);
        textColour = ShapeGridMath::prefersDarkText(bg) ? QColor(20, 20, 20) : QColor(250, 250, 250);
      }
      if (cs >= kTextFrom && !text.isEmpty() && fm.horizontalAdvance(text) <= rect.width() - 4) {
        p.setPen(textColour);
        p.drawText(rect, Qt::AlignCenter, text);
      }
    }
  }
}

void ShapeGridWidget::paintSmallCells(QPainter& p, const GridRange& range, int* budget) {
  const QPalette pal = palette();
  QImage img(int(range.col1 - range.col0), int(range.row1 - range.row0), QImage::Format_RGB32);
  const QRgb padding = pal.color(QPalette::Mid).rgb(), unknown = pal.color(QPalette::AlternateBase).rgb();
  const int64_t lo = lo_, hi = hi_;
  for (int64_t r = range.row0; r < range.row1; ++r) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(int(r - range.row0)));
    for (int64_t c = range.col0; c < range.col1; ++c) {
      const std::optional<int64_t> off = offsetOf({r, c}, budget);
      QRgb px;
      if (!off)
        ++pending_, px = unknown;
      else if (*off == ShapeOffsets::kPadding)
        px = padding;
      else if (*off == ShapeOffsets::kError)
        px = unknown;
      else
        px = ShapeGridMath::offsetColor(*off, lo, hi).rgb();
      line[c - range.col0] = px;
    }
  }
  const QRectF target =
      math_.cellRect({range.row0, range.col0}).united(math_.cellRect({range.row1 - 1, range.col1 - 1}));
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(target, img);
}

void ShapeGridWidget::paintMarks(QPainter& p, const GridRange& range) {
  const QPalette pal = palette();
  const double cs = math_.cellSize();
  p.setBrush(Qt::NoBrush);
  // Other cells reading the hovered cell's offset: broadcasting and overlapping windows at a glance.
  if (hoverOffset_ && offsets_ && cs >= 4 && range.count() <= 250000) {
    QPen pen(pal.color(QPalette::Text), cs >= 14 ? 2 : 1, Qt::DotLine);
    p.setPen(pen);
    for (int64_t r = range.row0; r < range.row1; ++r) {
      for (int64_t c = range.col0; c < range.col1; ++c) {
        auto k = offsets_->known(math_.flatIndexOf({r, c}));
        if (k && *k == *hoverOffset_ && !(hover_ && *hover_ == GridCell{r, c}))
          p.drawRect(math_.cellRect({r, c}).adjusted(2, 2, -2, -2));
      }
    }
  }
  if (selected_) {
    if (auto cell = math_.cellOf(*selected_)) {
      p.setPen(QPen(pal.color(QPalette::Highlight), 3));
      p.drawRect(math_.cellRect(*cell).adjusted(1, 1, -1, -1));
    }
  }
  if (hover_) {
    p.setPen(QPen(pal.color(QPalette::Text), 2));
    p.drawRect(math_.cellRect(*hover_).adjusted(1, 1, -1, -1));
  }
}

void ShapeGridWidget::paintHeaders(QPainter& p, const GridRange& range) {
  const QPalette pal = palette();
  const double left = math_.leftHeader(), top = math_.topHeader(), cs = math_.cellSize();
  const QPointF s = scrollOffset();
  const QColor headerBg = pal.color(QPalette::Window);
  p.fillRect(QRectF(0, 0, viewport()->width(), top), headerBg);
  p.fillRect(QRectF(0, 0, left, viewport()->height()), headerBg);
  p.setFont(font());
  const QFontMetrics fm(font());
  const QColor text = pal.color(QPalette::WindowText);
  const QColor hoverBg = pal.color(QPalette::Highlight);
  if (!range.isEmpty()) {
    // Column labels along the top, every `step` columns so they never overlap.
    const int64_t colStep = ShapeGridMath::labelStep(cs, fm.horizontalAdvance(QString::number(range.col1 - 1)) + 8);
    p.save();
    p.setClipRect(QRectF(left, 0, viewport()->width() - left, top));
    double lastRight = -1e300;
    for (int64_t c = range.col0 - range.col0 % colStep; c < range.col1; c += colStep) {
      const QRectF cell = math_.cellRect({0, c});
      // Keep the first label clear of the corner instead of half hidden under it, and skip a label
      // that the shift would make overlap the next.
      const double textHalf = fm.horizontalAdvance(QString::number(c)) / 2.0 + 2;
      const double cx = std::max(cell.center().x() - s.x(), left + textHalf);
      if (cx - textHalf < lastRight) continue;
      lastRight = cx + textHalf;
      const QRectF label(cx - 40, 0, 80, top);
      const bool hovered = hover_ && hover_->col == c;
      if (hovered) p.fillRect(QRectF(cell.x() - s.x(), top - 3, cs, 3), hoverBg);
      p.setPen(text);
      p.drawText(label, Qt::AlignCenter, QString::number(c));
    }
    p.restore();
    const int64_t rowStep = ShapeGridMath::labelStep(cs, fm.height());
    p.save();
    p.setClipRect(QRectF(0, top, left, viewport()->height() - top));
    double lastBottom = -1e300;
    for (int64_t r = range.row0 - range.row0 % rowStep; r < range.row1; r += rowStep) {
      const QRectF cell = math_.cellRect({r, 0});
      const double cy = std::max(cell.center().y() - s.y(), top + fm.height() / 2.0);
      if (cy - fm.height() / 2.0 < lastBottom) continue;
      lastBottom = cy + fm.height() / 2.0;
      const QRectF label(0, cy - fm.height(), left - 6, 2 * fm.height());
      if (hover_ && hover_->row == r) p.fillRect(QRectF(left - 3, cell.y() - s.y(), 3, cs), hoverBg);
      p.setPen(text);
      p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
    }
    p.restore();
  }
  // Corner: which axes run down and across.
  p.fillRect(QRectF(0, 0, left, top), headerBg);
  p.setPen(pal.color(QPalette::PlaceholderText));
  QStringList corner;
  if (math_.rowAxis() >= 0) corner << QStringLiteral("a%1↓").arg(math_.rowAxis());
  if (math_.colAxis() >= 0) corner << QStringLiteral("a%1→").arg(math_.colAxis());
  p.drawText(QRectF(2, 0, left - 4, top), Qt::AlignCenter, corner.join(u' '));
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(0, top - 0.5), QPointF(viewport()->width(), top - 0.5));
  p.drawLine(QPointF(left - 0.5, 0), QPointF(left - 0.5, viewport()->height()));
}

} // namespace loupe::views
