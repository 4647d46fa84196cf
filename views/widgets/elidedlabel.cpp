#include "widgets/elidedlabel.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QStringList>
#include <QtMath>
#include <algorithm>

namespace loupe::views {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, sizePolicy().verticalPolicy());
}

void ElidedLabel::setText(const QString& text) {
  if (text == full_) return;
  full_ = text;
  refresh();
}

void ElidedLabel::setMinimumChars(int chars) {
  minimumChars_ = chars;
  updateGeometry();
}

int ElidedLabel::textWidth() const {
  // fractional advances rounded up: a label exactly as wide as its integer width elides its last letters
  const QFontMetricsF metrics(font());
  int width = 0;
  for (const QString& line : full_.split(QLatin1Char('\n'))) width = std::max(width, qCeil(metrics.horizontalAdvance(line)) + 1);
  return width + contentsMargins().left() + contentsMargins().right() + 2 * margin();
}

QSize ElidedLabel::minimumSizeHint() const {
  const QSize s = QLabel::minimumSizeHint();
  const int dots = fontMetrics().horizontalAdvance(QStringLiteral("…")) + contentsMargins().left() + contentsMargins().right();
  return {std::max(dots, std::min(textWidth(), fontMetrics().averageCharWidth() * minimumChars_)), s.height()};
}

QSize ElidedLabel::sizeHint() const {
  // ask for the whole text's width, but never more than a short sentence: a dock's first layout
  // must not be sized by a status message
  // (of the whole text: the text shown may be "…" already, and a caption asking for that stays "…")
  QSize s = QLabel::sizeHint();
  s.setWidth(std::min(textWidth(), fontMetrics().averageCharWidth() * 40));
  return s;
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  refresh();
}

void ElidedLabel::changeEvent(QEvent* event) {
  QLabel::changeEvent(event);
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) refresh();
}

void ElidedLabel::refresh() {
  const int room = contentsRect().width() - 2 * margin();
  QStringList lines = full_.split(QLatin1Char('\n'));
  bool cut = false;
  for (QString& line : lines) {
    const QString shown = fontMetrics().elidedText(line, Qt::ElideRight, std::max(room, 0));
    cut = cut || shown != line;
    line = shown;
  }
  QLabel::setText(lines.join(QLatin1Char('\n')));
  if (toolTip().isEmpty() || toolTip() == autoTip_) {
    autoTip_ = cut ? full_ : QString();
    setToolTip(autoTip_);
  }
}

ElidedLabel* captionLabel(const QString& text, QWidget* parent) {
  auto* l = new ElidedLabel(parent);
  l->setSizePolicy(QSizePolicy::Preferred, l->sizePolicy().verticalPolicy());  // its text's width
  l->setMinimumChars(16);  // whole when short, whatever the space; a long one cut to 16 characters
  l->setText(text);
  return l;
}

QLabel* widthFromLayout(QLabel* label) {
  QSizePolicy policy = label->sizePolicy();  // keeps height-for-width of a wrapping label
  policy.setHorizontalPolicy(QSizePolicy::Ignored);
  label->setSizePolicy(policy);
  label->setMinimumWidth(0);
  return label;
}

} // namespace loupe::views
