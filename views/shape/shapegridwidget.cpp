#include "shape/shapegridwidget.h"

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

namespace {
constexpr double kImageBelow = 6.0; // cells smaller than this are drawn as one scaled image
constexpr double kTextFrom = 18.0;  // cells at least this big get their offset written in
constexpr double kZoomStep = 1.25;

QList<qint64> toList(const std::vector<int64_t>& v) { return QList<qint64>(v.begin(), v.end()); }
} // namespace

ShapeGridWidget::ShapeGridWidget(QWidget* parent) : QAbstractScrollArea(parent) {
  viewport()->setMouseTracking(true);
  viewport()->setBackgroundRole(QPalette::Base);
  viewport()->setAutoFillBackground(true);
  horizontalScrollBar()->setSingleStep(20);
  verticalScrollBar()->setSingleStep(20);
  updateHeaders();
}

void ShapeGridWidget::setOffsets(std::shared_ptr<ShapeOffsets> offsets) {
  m_offsets = std::move(offsets);
  m_math.setShape(m_offsets && m_offsets->input() ? m_offsets->input()->shape : std::vector<int64_t>{});
  m_hover.reset();
  m_hoverOffset.reset();
  m_selected.reset();
  updateHeaders();
  updateColourRange();
  viewport()->update();
}

void ShapeGridWidget::updateColourRange() {
  // Spread the ramp over this slice's offsets, so a slice of a big buffer is not one flat colour.
  qint64 lo = 0, hi = 0;
  constexpr int64_t kMaxScan = int64_t(1) << 22;
  if (m_offsets && m_offsets->hasMapping() && m_math.rows() * m_math.cols() <= kMaxScan) {
    bool any = false;
    for (int64_t r = 0; r < m_math.rows(); ++r) {
      for (int64_t c = 0; c < m_math.cols(); ++c) {
        const int64_t v = *m_offsets->known(m_math.flatIndexOf({r, c}));
        if (v < 0) continue;
        lo = any ? std::min<qint64>(lo, v) : v;
        hi = any ? std::max<qint64>(hi, v) : v;
        any = true;
      }
    }
  } else if (m_offsets) {
    std::vector<std::optional<int64_t>> fixed(size_t(m_math.rank()));
    for (int a : m_math.sliceAxes()) fixed[size_t(a)] = m_math.fixedIndex(a);
    std::tie(lo, hi) = m_offsets->boundsWithFixed(fixed);
  }
  if (lo == m_lo && hi == m_hi) return;
  m_lo = lo;
  m_hi = hi;
  Q_EMIT colourRangeChanged(lo, hi);
}

bool ShapeGridWidget::setAxes(int rowAxis, int colAxis) {
  if (!m_math.setAxes(rowAxis, colAxis)) return false;
  setHover(std::nullopt);
  updateHeaders();
  updateColourRange();
  viewport()->update();
  return true;
}

void ShapeGridWidget::setFixedIndex(int axis, int64_t value) {
  if (!m_math.setFixedIndex(axis, value)) return;
  setHover(std::nullopt);
  updateColourRange();
  viewport()->update();
}

void ShapeGridWidget::setCellSize(double size) {
  m_fitted = false;
  const double before = m_math.cellSize();
  m_math.setCellSize(size);
  updateHeaders();
  viewport()->update();
  if (m_math.cellSize() != before) Q_EMIT cellSizeChanged(m_math.cellSize());
}

void ShapeGridWidget::zoomIn() { zoomAt(kZoomStep, QPointF(viewport()->rect().center())); }
void ShapeGridWidget::zoomOut() { zoomAt(1.0 / kZoomStep, QPointF(viewport()->rect().center())); }

void ShapeGridWidget::zoomToFit() {
  // Hidden widgets have no real size yet: fit once they are shown and laid out.
  m_fitPending = !isVisible();
  setCellSize(std::min(m_fitLimit, m_math.fitCellSize(QSizeF(viewport()->size()))));
  horizontalScrollBar()->setValue(0);
  verticalScrollBar()->setValue(0);
  m_fitted = true;  // until the user zooms: a resize (the dock, the splitter) fits again
}

void ShapeGridWidget::showEvent(QShowEvent* event) {
  QAbstractScrollArea::showEvent(event);
  if (m_fitPending) zoomToFit();
}

void ShapeGridWidget::zoomAt(double factor, QPointF pos) {
  // Keep the grid point under `pos` in place: it sits at the same fractional cell after zooming.
  const QPointF c = pos + scrollOffset();
  const double u = (c.x() - m_math.leftHeader()) / m_math.cellSize();
  const double v = (c.y() - m_math.topHeader()) / m_math.cellSize();
  setCellSize(m_math.cellSize() * factor);
  horizontalScrollBar()->setValue(int(std::lround(m_math.leftHeader() + u * m_math.cellSize() - pos.x())));
  verticalScrollBar()->setValue(int(std::lround(m_math.topHeader() + v * m_math.cellSize() - pos.y())));
}

QPointF ShapeGridWidget::scrollOffset() const {
  return QPointF(horizontalScrollBar()->value(), verticalScrollBar()->value());
}

QPoint ShapeGridWidget::viewportPosOf(GridCell cell) const {
  return (m_math.cellRect(cell).center() - scrollOffset()).toPoint();
}

void ShapeGridWidget::updateHeaders() {
  const QFontMetrics fm(font());
  const int64_t maxRow = std::max<int64_t>(0, m_math.rows() - 1);
  // Wide enough for the row labels and the corner's axis note ("a2↓ a3→").
  const double left = std::max(fm.horizontalAdvance(QString::number(maxRow)) + 14,
                               fm.horizontalAdvance(QStringLiteral("a0↓ a0→")) + 12);
  m_math.setHeaderSize(left, fm.height() + 8);
  updateScrollBars();
}

void ShapeGridWidget::updateScrollBars() {
  const QSizeF content = m_math.contentSize();
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
  if ((m_fitPending || m_fitted) && isVisible()) zoomToFit();
}

void ShapeGridWidget::changeEvent(QEvent* event) {
  QAbstractScrollArea::changeEvent(event);
  if (event->type() == QEvent::FontChange) updateHeaders();
  if (event->type() == QEvent::PaletteChange) viewport()->update();
}

void ShapeGridWidget::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ControlModifier) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0) zoomAt(std::pow(kZoomStep, steps), event->position());
    event->accept();
    return;
  }
  QAbstractScrollArea::wheelEvent(event);
}

void ShapeGridWidget::setHover(std::optional<GridCell> cell) {
  if (cell == m_hover) return;
  m_hover = cell;
  m_hoverOffset.reset();
  if (cell && m_offsets) {
    if (auto k = m_offsets->known(m_math.flatIndexOf(*cell)); k && *k >= 0) m_hoverOffset = *k;
  }
  viewport()->update();
  Q_EMIT cellHovered(cell ? toList(m_math.indexOf(*cell)) : QList<qint64>{});
}

void ShapeGridWidget::mouseMoveEvent(QMouseEvent* event) {
  setHover(m_math.cellAt(event->position() + scrollOffset()));
  QAbstractScrollArea::mouseMoveEvent(event);
}

void ShapeGridWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    if (auto cell = m_math.cellAt(event->position() + scrollOffset())) {
      m_selected = m_math.indexOf(*cell);
      viewport()->update();
      Q_EMIT cellClicked(toList(*m_selected));
    }
  }
  QAbstractScrollArea::mousePressEvent(event);
}

void ShapeGridWidget::leaveEvent(QEvent* event) {
  setHover(std::nullopt);
  QAbstractScrollArea::leaveEvent(event);
}

bool ShapeGridWidget::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_offsets) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (auto cell = m_math.cellAt(QPointF(help->pos()) + scrollOffset())) {
      const std::vector<int64_t> index = m_math.indexOf(*cell);
      const QString text = shapeCellTooltip(m_offsets->report(index, m_math.flatIndex(index)));
      const QRect r = m_math.cellRect(*cell).translated(-scrollOffset()).toAlignedRect();
      QToolTip::showText(help->globalPos(), text, viewport(), r);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

std::optional<int64_t> ShapeGridWidget::offsetOf(GridCell cell, int* budget) {
  if (!m_offsets) return ShapeOffsets::kError;
  const int64_t flat = m_math.flatIndexOf(cell);
  if (auto k = m_offsets->known(flat)) return k;
  if (*budget <= 0) return std::nullopt;
  --*budget;
  return m_offsets->evaluate(flat, m_math.indexOf(cell));
}

void ShapeGridWidget::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  const QPalette pal = palette();
  p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
  const QRectF visible(scrollOffset(), QSizeF(viewport()->size()));
  const GridRange range = m_math.cellsIn(visible);
  int budget = kEvalBudget;
  m_pending = 0;
  if (!range.isEmpty()) {
    p.save();
    p.setClipRect(QRectF(m_math.leftHeader(), m_math.topHeader(), viewport()->width(), viewport()->height()));
    p.translate(-scrollOffset());
    if (m_math.cellSize() < kImageBelow)
      paintSmallCells(p, range, &budget);
    else
      paintLargeCells(p, range, &budget);
    paintMarks(p, range);
    p.restore();
  } else if (m_math.rank() > 0 && m_math.rows() == 0) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter,
               tr("The shape %1 has no elements").arg(formatTuple(m_math.shape())));
  }
  paintHeaders(p, range);
  // Whatever the budget did not cover is drawn as pending and evaluated on the next turn.
  if (m_pending > 0 && !m_repaintQueued) {
    m_repaintQueued = true;
    QTimer::singleShot(0, this, [this] {
      m_repaintQueued = false;
      viewport()->update();
    });
  }
}

void ShapeGridWidget::paintLargeCells(QPainter& p, const GridRange& range, int* budget) {
  const QPalette pal = palette();
  const double cs = m_math.cellSize();
  const bool gaps = cs >= 10;
  const QBrush hatch(pal.color(QPalette::Mid), Qt::BDiagPattern);
  const QColor pendingColour = pal.color(QPalette::AlternateBase);
  QFont f = font();
  f.setPixelSize(int(std::clamp(cs * 0.36, 7.0, 14.0)));
  p.setFont(f);
  const QFontMetrics fm(f);
  const int64_t lo = m_lo, hi = m_hi;
  for (int64_t r = range.row0; r < range.row1; ++r) {
    for (int64_t c = range.col0; c < range.col1; ++c) {
      const GridCell cell{r, c};
      QRectF rect = m_math.cellRect(cell);
      if (gaps) rect.adjust(0.5, 0.5, -0.5, -0.5);
      const std::optional<int64_t> off = offsetOf(cell, budget);
      QString text;
      QColor textColour = pal.color(QPalette::Text);
      if (!off) {
        ++m_pending;
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
  const int64_t lo = m_lo, hi = m_hi;
  for (int64_t r = range.row0; r < range.row1; ++r) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(int(r - range.row0)));
    for (int64_t c = range.col0; c < range.col1; ++c) {
      const std::optional<int64_t> off = offsetOf({r, c}, budget);
      QRgb px;
      if (!off)
        ++m_pending, px = unknown;
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
      m_math.cellRect({range.row0, range.col0}).united(m_math.cellRect({range.row1 - 1, range.col1 - 1}));
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(target, img);
}

void ShapeGridWidget::paintMarks(QPainter& p, const GridRange& range) {
  const QPalette pal = palette();
  const double cs = m_math.cellSize();
  p.setBrush(Qt::NoBrush);
  // Other cells reading the hovered cell's offset: broadcasting and overlapping windows at a glance.
  if (m_hoverOffset && m_offsets && cs >= 4 && range.count() <= 250000) {
    QPen pen(pal.color(QPalette::Text), cs >= 14 ? 2 : 1, Qt::DotLine);
    p.setPen(pen);
    for (int64_t r = range.row0; r < range.row1; ++r) {
      for (int64_t c = range.col0; c < range.col1; ++c) {
        auto k = m_offsets->known(m_math.flatIndexOf({r, c}));
        if (k && *k == *m_hoverOffset && !(m_hover && *m_hover == GridCell{r, c}))
          p.drawRect(m_math.cellRect({r, c}).adjusted(2, 2, -2, -2));
      }
    }
  }
  if (m_selected) {
    if (auto cell = m_math.cellOf(*m_selected)) {
      p.setPen(QPen(pal.color(QPalette::Highlight), 3));
      p.drawRect(m_math.cellRect(*cell).adjusted(1, 1, -1, -1));
    }
  }
  if (m_hover) {
    p.setPen(QPen(pal.color(QPalette::Text), 2));
    p.drawRect(m_math.cellRect(*m_hover).adjusted(1, 1, -1, -1));
  }
}

void ShapeGridWidget::paintHeaders(QPainter& p, const GridRange& range) {
  const QPalette pal = palette();
  const double left = m_math.leftHeader(), top = m_math.topHeader(), cs = m_math.cellSize();
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
      const QRectF cell = m_math.cellRect({0, c});
      // Keep the first label clear of the corner instead of half hidden under it, and skip a label
      // that the shift would make overlap the next.
      const double textHalf = fm.horizontalAdvance(QString::number(c)) / 2.0 + 2;
      const double cx = std::max(cell.center().x() - s.x(), left + textHalf);
      if (cx - textHalf < lastRight) continue;
      lastRight = cx + textHalf;
      const QRectF label(cx - 40, 0, 80, top);
      const bool hovered = m_hover && m_hover->col == c;
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
      const QRectF cell = m_math.cellRect({r, 0});
      const double cy = std::max(cell.center().y() - s.y(), top + fm.height() / 2.0);
      if (cy - fm.height() / 2.0 < lastBottom) continue;
      lastBottom = cy + fm.height() / 2.0;
      const QRectF label(0, cy - fm.height(), left - 6, 2 * fm.height());
      if (m_hover && m_hover->row == r) p.fillRect(QRectF(left - 3, cell.y() - s.y(), 3, cs), hoverBg);
      p.setPen(text);
      p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
    }
    p.restore();
  }
  // Corner: which axes run down and across.
  p.fillRect(QRectF(0, 0, left, top), headerBg);
  p.setPen(pal.color(QPalette::PlaceholderText));
  QStringList corner;
  if (m_math.rowAxis() >= 0) corner << QStringLiteral("a%1↓").arg(m_math.rowAxis());
  if (m_math.colAxis() >= 0) corner << QStringLiteral("a%1→").arg(m_math.colAxis());
  p.drawText(QRectF(2, 0, left - 4, top), Qt::AlignCenter, corner.join(u' '));
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(0, top - 0.5), QPointF(viewport()->width(), top - 0.5));
  p.drawLine(QPointF(left - 0.5, 0), QPointF(left - 0.5, viewport()->height()));
}
