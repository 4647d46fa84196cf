#include "graph/graphmodel.h"

#include <QRegularExpression>

namespace loupe::views {

QHash<quint64, int> GraphModel::index() const {
  QHash<quint64, int> ix;
  ix.reserve(nodes.size());
  for (int i = 0; i < nodes.size(); i++) ix.insert(nodes[i].id, i);
  return ix;
}

QString GraphModel::validate() const {
  QHash<quint64, int> seen;
  seen.reserve(nodes.size());
  for (int i = 0; i < nodes.size(); i++) {
    const GraphModelNode& n = nodes[i];
    if (seen.contains(n.id)) return QStringLiteral("node %1 (%2): duplicate id %3").arg(i).arg(n.op).arg(n.id);
    for (int s = 0; s < n.src.size(); s++)
      if (!seen.contains(n.src[s]))
        return QStringLiteral("node %1 (%2): source %3 (id %4) is not an earlier node").arg(i).arg(n.op).arg(s).arg(n.src[s]);
    seen.insert(n.id, i);
  }
  for (const GraphModelNode& n : nodes)
    if (n.replacedBy != 0 && !seen.contains(n.replacedBy))
      return QStringLiteral("node %1 (%2): replacedBy %3 is not in the graph").arg(n.id).arg(n.op).arg(n.replacedBy);
  if (!nodes.isEmpty() && !seen.contains(root)) return QStringLiteral("root %1 is not in the graph").arg(root);
  return {};
}

QString changeName(GraphModelNode::Change c) {
  switch (c) {
  case GraphModelNode::Same: return QStringLiteral("same");
  case GraphModelNode::Added: return QStringLiteral("added");
  case GraphModelNode::Changed: return QStringLiteral("changed");
  case GraphModelNode::Removed: return QStringLiteral("removed");
  }
  return {};
}

QString sourceLineKey(const QString& text) {
  static const QRegularExpression re(QStringLiteral("^\\s*(?:.*/)?([^/\\s:]+):(\\d+)\\s*$"));
  const QRegularExpressionMatch m = re.match(text);
  return m.hasMatch() ? m.captured(1) + u':' + m.captured(2) : QString();
}

} // namespace loupe::views
