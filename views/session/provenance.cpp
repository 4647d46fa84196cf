#include "session/provenance.h"

#include <QFileInfo>
#include <QUrl>

namespace loupe::views {

QList<SourceLine> sourceLines(const std::vector<loupe::Metadata>& records) {
  QList<SourceLine> out;
  for (const loupe::Metadata& m : records) {
    if (m.file.empty()) continue;
    const QString file = QString::fromStdString(m.file), function = QString::fromStdString(m.function);
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const SourceLine& s) { return s.file == file && s.line == m.line && s.function == function; });
    if (it == out.end()) it = out.insert(out.end(), SourceLine{file, m.line, function, {}});
    const QString op = QString::fromStdString(m.op);
    if (!it->ops.contains(op)) it->ops << op;
  }
  return out;
}

QString sourceLineText(const SourceLine& s) {
  QString where = QStringLiteral("%1:%2").arg(QFileInfo(s.file).fileName()).arg(s.line);
  if (!s.function.isEmpty() && s.function != QLatin1String("<module>")) where += QStringLiteral(" (%1)").arg(s.function);
  return QStringLiteral("%1: %2").arg(where, s.ops.join(QStringLiteral(", ")));
}

QString sourceLink(const QString& file, int line) {
  return QStringLiteral("loupe-src:%1#%2").arg(QString::fromUtf8(QUrl::toPercentEncoding(file, "/")), QString::number(line));
}

bool parseSourceLink(const QString& link, QString* file, int* line) {
  if (!link.startsWith(QLatin1String("loupe-src:"))) return false;
  const QString rest = link.mid(10);
  const int hash = rest.lastIndexOf(QLatin1Char('#'));
  if (hash < 0) return false;
  bool ok = false;
  const int n = rest.mid(hash + 1).toInt(&ok);
  if (!ok) return false;
  *file = QUrl::fromPercentEncoding(rest.left(hash).toUtf8());
  *line = n;
  return true;
}

QString sourceLinesHtml(const QList<SourceLine>& lines, int limit) {
  QStringList parts;
  for (int i = 0; i < lines.size() && i < limit; i++)
    parts << QStringLiteral("<a href=\"%1\">%2</a>").arg(sourceLink(lines[i].file, lines[i].line), sourceLineText(lines[i]).toHtmlEscaped());
  if (lines.size() > limit) parts << QObject::tr("and %1 more").arg(lines.size() - limit);
  return parts.join(QStringLiteral(" · "));
}

} // namespace loupe::views
