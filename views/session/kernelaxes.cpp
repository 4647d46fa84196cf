#include "session/kernelaxes.h"

#include <QRegularExpression>

namespace loupe::views {

using loupe::AxisKind;

bool KernelNameParts::operator==(const KernelNameParts& o) const {
  if (axes.size() != o.axes.size()) return false;
  for (int i = 0; i < axes.size(); i++)
    if (axes[i].size != o.axes[i].size || axes[i].kind != o.axes[i].kind) return false;
  return name == o.name && prefix == o.prefix && suffix == o.suffix && parsed == o.parsed && decoded == o.decoded &&
         dontUseLocals == o.dontUseLocals && globalSize == o.globalSize && localSize == o.localSize;
}

KernelNameParts parseKernelName(const QString& name) {
  KernelNameParts p;
  p.name = name;
  static const QRegularExpression prefixRe(QStringLiteral("^[A-Za-z]+[0-9]*$"));
  static const QRegularExpression lastRe(QStringLiteral("^(.+?)(n[0-9]+)$"));
  QStringList tokens = name.split(QLatin1Char('_'));
  if (tokens.size() < 2 || !prefixRe.match(tokens[0]).hasMatch()) return p;
  p.prefix = tokens[0];
  tokens.removeFirst();
  if (auto m = lastRe.match(tokens.last()); m.hasMatch()) {
    bool numeric = false;
    m.captured(1).toLongLong(&numeric);
    if (numeric) {
      tokens.last() = m.captured(1);
      p.suffix = m.captured(2);
    }
  }
  for (const QString& t : tokens) {
    if (t.isEmpty()) {
      KernelNameParts bad;
      bad.name = name;
      return bad;
    }
    p.axes.push_back({t, std::nullopt});
  }
  p.parsed = true;
  return p;
}

KernelNameParts decodeKernelName(const QString& name, const std::vector<std::string>& kinds, bool dontUseLocals) {
  KernelNameParts p = parseKernelName(name);
  if (!p.parsed || kinds.size() != size_t(p.axes.size())) return p;
  std::vector<AxisKind> decoded;
  for (const std::string& k : kinds) {
    std::optional<AxisKind> kind = loupe::axis_kind_from_name(k);
    if (!kind) return p;
    decoded.push_back(*kind);
  }
  for (int i = 0; i < p.axes.size(); i++) p.axes[i].kind = decoded[size_t(i)];
  p.dontUseLocals = dontUseLocals;
  p.decoded = true;
  return p;
}

QColor axisColour(AxisKind kind, bool dark) {
  // Dark: tinygrad VIZ's terminal colours mixed 60 % with white; light: deeper tones of the same hues.
  switch (kind) {
  case AxisKind::Global: return dark ? QColor(0x66, 0x66, 0xff) : QColor(0x1f, 0x4f, 0xd8);
  case AxisKind::Local: return dark ? QColor(0x66, 0xff, 0xff) : QColor(0x00, 0x83, 0x8f);
  case AxisKind::GroupReduce: return dark ? QColor(0x66, 0xb3, 0x66) : QColor(0x2e, 0x7d, 0x32);
  case AxisKind::Reduce: return dark ? QColor(0xff, 0x66, 0x66) : QColor(0xc6, 0x28, 0x28);
  case AxisKind::Upcast: return dark ? QColor(0xff, 0xff, 0x66) : QColor(0x9a, 0x74, 0x00);
  case AxisKind::Unroll: return dark ? QColor(0xff, 0x66, 0xff) : QColor(0xad, 0x14, 0x9e);
  }
  return dark ? QColor(Qt::white) : QColor(Qt::black);
}

QString axisKindTitle(AxisKind kind) {
  switch (kind) {
  case AxisKind::Global: return QStringLiteral("global");
  case AxisKind::Local: return QStringLiteral("local");
  case AxisKind::GroupReduce: return QStringLiteral("group reduce");
  case AxisKind::Reduce: return QStringLiteral("reduce");
  case AxisKind::Upcast: return QStringLiteral("upcast");
  case AxisKind::Unroll: return QStringLiteral("unroll");
  }
  return QStringLiteral("?");
}

namespace {
QString coloured(const QString& text, const QColor& c) {
  return QStringLiteral("<span style=\"color:%1\">%2</span>").arg(c.name(), text.toHtmlEscaped());
}
QString dims(const QVector<qint64>& d) {
  QStringList s;
  for (qint64 v : d) s << QString::number(v);
  return QLatin1Char('[') + s.join(QStringLiteral(", ")) + QLatin1Char(']');
}
} // namespace

QString kernelNameHtml(const KernelNameParts& parts, bool dark) {
  if (!parts.parsed) return parts.name.toHtmlEscaped();
  const QColor sep = dark ? QColor(0x9a, 0x9a, 0xa6) : QColor(0x70, 0x70, 0x78);
  QString html = parts.prefix.toHtmlEscaped();
  for (const KernelNameAxis& a : parts.axes) {
    html += coloured(QStringLiteral("_"), sep);
    html += a.kind ? coloured(a.size, axisColour(*a.kind, dark)) : a.size.toHtmlEscaped();
  }
  return html + parts.suffix.toHtmlEscaped();
}

QString kernelNameTooltip(const KernelNameParts& parts, bool dark) {
  QString html = QStringLiteral("<p style=\"white-space:pre\"><b><tt>%1</tt></b></p>").arg(kernelNameHtml(parts, dark));
  if (!parts.parsed) return html;
  if (parts.prefix.startsWith(QLatin1Char('r')))
    html += QStringLiteral("<p>a kernel with a reduction</p>");
  else if (parts.prefix.startsWith(QLatin1Char('E')))
    html += QStringLiteral("<p>an elementwise kernel</p>");
  html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
  for (int i = 0; i < parts.axes.size(); i++) {
    const KernelNameAxis& a = parts.axes[i];
    QString kind = a.kind ? coloured(axisKindTitle(*a.kind), axisColour(*a.kind, dark)) : QStringLiteral("unknown");
    html += QStringLiteral("<tr><td>axis %1</td><td align=\"right\"><tt>%2</tt></td><td>%3</td></tr>")
                .arg(i)
                .arg(a.kind ? coloured(a.size, axisColour(*a.kind, dark)) : a.size.toHtmlEscaped(), kind);
  }
  html += QStringLiteral("</table>");
  if (!parts.decoded) html += QStringLiteral("<p><i>axis kinds unknown: the trace has no AST for this kernel</i></p>");
  if (parts.dontUseLocals) html += QStringLiteral("<p>no local dimensions (NOLOCALS)</p>");
  if (!parts.globalSize.isEmpty() || !parts.localSize.isEmpty())
    html += QStringLiteral("<p>launch: global %1 · local %2</p>").arg(dims(parts.globalSize), dims(parts.localSize));
  if (!parts.suffix.isEmpty())
    html += QStringLiteral("<p><tt>%1</tt>: another kernel with the same axis sizes</p>").arg(parts.suffix.toHtmlEscaped());
  return html;
}

} // namespace loupe::views
