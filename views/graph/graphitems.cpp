#include "graph/graphitems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace loupe::views {

namespace {

constexpr qreal kBadgeR = 7;
constexpr qreal kMargin = 10;  // halo, glow and badge outside the box

} // namespace

QString nodeTooltip(const DrawGraph& g, int i) {
  const GraphModelNode& m = g.modelNode(i);
  QString t = m.tooltip.isEmpty() ? QStringLiteral("%1 %2 %3").arg(m.op, m.dtype, m.arg).trimmed() : m.tooltip;
  if (m.change == GraphModelNode::Changed) t += QStringLiteral("\nrebuilt by this step: one of its sources changed");
  else if (m.change != GraphModelNode::Same) t += QStringLiteral("\n%1 by this step").arg(changeName(m.change));
  if (m.matched) t += QStringLiteral("\npart of the matched subgraph");
  int copies = g.instancesOf(m.id).size();
  if (copies > 1) t += QStringLiteral("\nshared leaf: drawn once per consumer (%1 copies)").arg(copies);
  return t;
}

QColor changeColour(const GraphStyle& s, GraphModelNode::Change c) {
  switch (c) {
  case GraphModelNode::Added: return s.added;
  case GraphModelNode::Changed: return s.changed;
  case GraphModelNode::Removed: return s.removed;
  default: return s.border;
  }
}

NodeItem::NodeItem(const DrawGraph& g, int i, const GraphStyle& style)
    : style_(style), index_(i), id_(g.nodes[i].id), title_(g.nodes[i].title), dtype_(g.nodes[i].dtype),
      lines_(g.nodes[i].lines), fill_(g.modelNode(i).colour), size_(g.nodes[i].size), change_(g.modelNode(i).change),
      matched_(g.modelNode(i).matched), changeInside_(g.nodes[i].changeInside) {
  if (!fill_.isValid()) fill_ = Qt::white;
  setFlag(ItemIsSelectable);  // the tooltip is made when asked for (GraphScene::helpEvent)
  setZValue(1);
}

bool NodeItem::outlined() const {
  return change_ == GraphModelNode::Added || change_ == GraphModelNode::Removed || matched_ || changeInside_;
}

QRectF NodeItem::boundingRect() const { return box().adjusted(-kMargin, -kMargin, kMargin, kMargin); }

QPainterPath NodeItem::shape() const {
  QPainterPath p;
  p.addRect(box());
  return p;
}

void NodeItem::setFindMark(int mark) {
  if (mark == findMark_) return;
  findMark_ = mark;
  update();
}

void NodeItem::setEcho(bool on) {
  if (on == echo_) return;
  echo_ = on;
  update();
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(p->worldTransform());
  const QRectF r = box();
  const bool ghost = change_ == GraphModelNode::Removed;
  const bool selected = isSelected();

  if (findMark_) {
    p->setPen(Qt::NoPen);
    QColor glow = findMark_ == 2 ? QColor(0xff, 0x9f, 0x1a) : style_.findHit;
    p->setBrush(glow);
    p->drawRoundedRect(r.adjusted(-7, -7, 7, 7), 8, 8);
  }
  const bool marked = outlined() || selected;
  if (lod < borderLod || (lod < textLod && marked)) {
    // Overview: flat boxes; what changed keeps a thick outline so it can be found from afar.
    QColor c = ghost ? fill_.lighter(115) : fill_;
    p->setBrush(c);
    if (marked) {
      QPen pen(selected                 ? style_.selection
               : changeInside_          ? style_.changed
               : matched_ && change_ != GraphModelNode::Added && change_ != GraphModelNode::Removed ? style_.matched
                                        : changeColour(style_, change_),
               3);
      pen.setCosmetic(true);
      p->setPen(pen);
    } else {
      p->setPen(Qt::NoPen);
    }
    p->drawRect(r);
    return;
  }

  if (matched_) {
    QPen halo(style_.matched, 2, Qt::DashLine);
    p->setPen(halo);
    p->setBrush(Qt::NoBrush);
    p->drawRoundedRect(r.adjusted(-4, -4, 4, 4), style_.cornerRadius + 3, style_.cornerRadius + 3);
  }

  QColor fill = fill_;
  if (ghost) fill.setAlpha(90);
  p->setBrush(fill);
  QPen border(style_.border, 1);
  // What the rule added or removed gets a thick outline and a glyph; a collapsed box hiding the change
  // the amber one. A rebuilt ancestor (Changed: only its sources are new) is drawn as any other node.
  if (change_ == GraphModelNode::Added || change_ == GraphModelNode::Removed) border = QPen(changeColour(style_, change_), 2.5);
  else if (changeInside_) border = QPen(style_.changed, 2.5);
  if (ghost) border.setStyle(Qt::DashLine);
  if (echo_) border = QPen(style_.selection, 2, Qt::DotLine);
  if (selected) border = QPen(style_.selection, 3, ghost ? Qt::DashLine : Qt::SolidLine);
  p->setPen(border);
  p->drawRoundedRect(r, style_.cornerRadius, style_.cornerRadius);

  if (lod >= textLod) {
    QColor text = ghost ? style_.secondaryText : style_.text;
    qreal x = r.left() + style_.padX, y = r.top() + style_.padY;
    QFont title = style_.titleFont;
    title.setStrikeOut(ghost);
    QFontMetricsF tm(title), bm(style_.bodyFont);
    p->setFont(title);
    p->setPen(text);
    p->drawText(QPointF(x, y + tm.ascent()), title_);
    if (!dtype_.isEmpty()) {
      p->setFont(style_.bodyFont);
      p->setPen(style_.secondaryText);
      p->drawText(QPointF(x + tm.horizontalAdvance(title_) + bm.averageCharWidth(), y + tm.ascent()), dtype_);
    }
    y += tm.height();
    p->setFont(style_.bodyFont);
    p->setPen(text);
    for (const QString& l : lines_) {
      p->drawText(QPointF(x, y + bm.ascent()), l);
      y += bm.height() + style_.lineGap;
    }
  }
  if (change_ == GraphModelNode::Added || change_ == GraphModelNode::Removed) paintBadge(p);
  Q_UNUSED(option);
}

// A glyph in a coloured disc on the top-right corner: + added, x removed.
void NodeItem::paintBadge(QPainter* p) const {
  QPointF c(box().right() - 1, box().top() + 1);
  p->setPen(QPen(Qt::white, 1.2));
  p->setBrush(changeColour(style_, change_));
  p->drawEllipse(c, kBadgeR, kBadgeR);
  QPen glyph(Qt::white, 2, Qt::SolidLine, Qt::RoundCap);
  p->setPen(glyph);
  p->setBrush(Qt::NoBrush);
  const qreal a = 3.6;
  switch (change_) {
  case GraphModelNode::Added:
    p->drawLine(c + QPointF(-a, 0), c + QPointF(a, 0));
    p->drawLine(c + QPointF(0, -a), c + QPointF(0, a));
    break;
  case GraphModelNode::Removed:
    p->drawLine(c + QPointF(-a * 0.8, -a * 0.8), c + QPointF(a * 0.8, a * 0.8));
    p->drawLine(c + QPointF(-a * 0.8, a * 0.8), c + QPointF(a * 0.8, -a * 0.8));
    break;
  default: break;
  }
}

} // namespace loupe::views
