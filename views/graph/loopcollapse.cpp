#include "graph/loopcollapse.h"

#include <QHash>
#include <QSet>

namespace loupe::views {

namespace {
const QString kRange = QStringLiteral("RANGE");
}

QVector<quint64> loopRanges(const GraphModel& model) {
  QVector<quint64> out;
  for (const GraphModelNode& n : model.nodes)
    if (n.op == kRange && n.change != GraphModelNode::Removed) out << n.id;
  return out;
}

QVector<quint64> loopClosers(const GraphModel& model, quint64 rangeId) {
  QHash<quint64, int> index;
  for (int i = 0; i < model.nodes.size(); i++) index.insert(model.nodes[i].id, i);
  const int r = index.value(rangeId, -1);
  if (r < 0 || model.nodes[r].op != kRange) return {};
  // accumulators over this loop, and whether each node depends on it (sources come first)
  QSet<quint64> accumulators, inside{rangeId};
  for (const GraphModelNode& n : model.nodes) {
    if (n.op == QLatin1String("DEFINE_ACC") && n.src.mid(1).contains(rangeId)) accumulators.insert(n.id);
    for (quint64 s : n.src)
      if (inside.contains(s)) {
        inside.insert(n.id);
        break;
      }
  }
  QVector<quint64> assigns, stores;
  for (const GraphModelNode& n : model.nodes) {
    if (n.change == GraphModelNode::Removed) continue;
    if (n.op == QLatin1String("ASSIGN") && !n.src.isEmpty() && accumulators.contains(n.src[0])) assigns << n.id;
    else if (n.op == QLatin1String("STORE") && inside.contains(n.id)) stores << n.id;
  }
  return assigns.isEmpty() ? stores : assigns;
}

} // namespace loupe::views
