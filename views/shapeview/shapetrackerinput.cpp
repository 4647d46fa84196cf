#include "shapeview/shapetrackerinput.h"

#include <QStringList>

namespace loupe::views {

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

QString formatTuple(const std::vector<int64_t>& values) {
  QStringList parts;
  for (int64_t v : values) parts << QString::number(v);
  if (parts.size() == 1) return u'(' + parts.front() + QStringLiteral(",)"); // Python's one-tuple
  return u'(' + parts.join(QStringLiteral(", ")) + u')';
}

QString formatMask(const std::vector<std::pair<int64_t, int64_t>>& mask) {
  if (mask.empty()) return QStringLiteral("None");
  QStringList parts;
  for (const auto& [lo, hi] : mask) parts << QStringLiteral("(%1, %2)").arg(lo).arg(hi);
  if (parts.size() == 1) return u'(' + parts.front() + QStringLiteral(",)");
  return u'(' + parts.join(QStringLiteral(", ")) + u')';
}

} // namespace loupe::views
