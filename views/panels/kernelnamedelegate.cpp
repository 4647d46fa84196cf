#include "panels/kernelnamedelegate.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>

namespace loupe::views {

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Base).lightness() < 128; }

qreal drawKernelName(QPainter* painter, const QPointF& pos, const KernelNameParts& parts, const QFont& font,
                     const QColor& text, bool dark) {
  QFontMetricsF fm(font);
  painter->setFont(font);
  qreal x = pos.x();
  auto put = [&](const QString& s, const QColor& c) {
    painter->setPen(c);
    painter->drawText(QPointF(x, pos.y()), s);
    x += fm.horizontalAdvance(s);
  };
  if (!parts.parsed) {
    put(parts.name, text);
    return x - pos.x();
  }
  QColor sep = text;
  sep.setAlphaF(0.7f);
  put(parts.prefix, text);
  for (const KernelNameAxis& a : parts.axes) {
    put(QStringLiteral("_"), sep);
    put(a.size, a.kind ? axisColour(*a.kind, dark) : text);
  }
  if (!parts.suffix.isEmpty()) put(parts.suffix, text);
  return x - pos.x();
}

KernelNameDelegate::KernelNameDelegate(int partsRole, QObject* parent) : QStyledItemDelegate(parent), role_(partsRole) {}
KernelNameDelegate::KernelNameDelegate(PartsSource source, QObject* parent)
    : QStyledItemDelegate(parent), source_(std::move(source)) {}

std::optional<KernelNameParts> KernelNameDelegate::partsOf(const QModelIndex& index) const {
  if (source_) return source_(index);
  const QVariant v = index.data(role_);
  if (!v.canConvert<KernelNameParts>()) return std::nullopt;
  return v.value<KernelNameParts>();
}

void KernelNameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  const std::optional<KernelNameParts> p = partsOf(index);
  if (!p || !p->parsed) {
    QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  const KernelNameParts& parts = *p;
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  opt.text.clear();  // the background, selection and branch are drawn by the style; the text by us
  const QWidget* w = option.widget;
  QStyle* style = w ? w->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
  const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, w);
  const bool selected = opt.state & QStyle::State_Selected;
  const QPalette& pal = opt.palette;
  const QColor text = pal.color(selected ? QPalette::HighlightedText : QPalette::Text);
  // Axis colours cannot all be read on a selection highlight: a selected row shows the name in the
  // highlighted text colour (the tooltip still decodes it).
  KernelNameParts shown = parts;
  if (selected)
    for (KernelNameAxis& a : shown.axes) a.kind.reset();
  const bool dark = isDarkPalette(pal);
  painter->save();
  painter->setClipRect(textRect.adjusted(0, -4, 0, 4));  // underscores sit below the baseline
  QFontMetricsF fm(opt.font);
  const qreal baseline = textRect.top() + (textRect.height() - fm.height()) / 2 + fm.ascent();
  drawKernelName(painter, QPointF(textRect.left() + 2, baseline), shown, opt.font, text, dark);
  painter->restore();
}

QSize KernelNameDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  return QStyledItemDelegate::sizeHint(option, index);
}

} // namespace loupe::views
