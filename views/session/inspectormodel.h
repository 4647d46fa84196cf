// The inspector: one node's properties as a tree (Property | Value): op, dtype, arg, content key,
// proven range (vmin/vmax), shape, its sources and its users in the graph shown (each a row that
// leads to that node), and its ShapeTracker when it carries one (views with shape, strides, offset,
// mask; index and valid expressions). The rows are built by a pure function, so they are testable
// without a trace.
#pragma once
#include <QAbstractItemModel>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "ir/metadata.h"
#include "ir/uop.h"
#include "shape/shapetracker.h"

namespace loupe::views {

struct InspectorRow {
  QString name, value, tooltip;
  quint64 nodeId = 0;  // a row that stands for a node (sources, users): its uopNodeId
  std::vector<InspectorRow> children;
};

// The node's rows; `graph` (may be null) is the graph it is shown in, for its users.
std::vector<InspectorRow> inspectorRows(const loupe::UOpPtr& node, const loupe::UOpPtr& graph);
// "from your code": one row per line of the user's program the kernel came from (none without provenance).
std::optional<InspectorRow> provenanceRow(const std::vector<loupe::Metadata>& kernelProvenance);
// The ShapeTracker the node carries: its own arg (VIEW), or that of a VIEW source.
const loupe::ShapeTracker* nodeShapeTracker(const loupe::UOpPtr& node);
// The node's shape where it can be told: from its views, movement args and sources; nullopt otherwise.
std::optional<std::vector<int64_t>> nodeShape(const loupe::UOpPtr& node);
// Exact text of a proven bound; "-inf"/"inf" beyond the range of any real index.
QString boundText(__int128 v);

class InspectorModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { PropertyColumn, ValueColumn, ColumnCount };
  enum Roles { NodeIdRole = Qt::UserRole + 1 };

  explicit InspectorModel(QObject* parent = nullptr);
  ~InspectorModel() override;
  // The node, and the provenance of the kernel it belongs to (empty outside a kernel or without records).
  void setNode(const loupe::UOpPtr& node, const loupe::UOpPtr& graph, const std::vector<loupe::Metadata>& kernelProvenance = {});
  void clear() { setNode(nullptr, nullptr); }
  loupe::UOpPtr node() const { return node_; }
  // The top-level row with this property name (for views and tests); invalid if absent.
  QModelIndex findRow(const QString& name) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Node;
  Node* nodeOf(const QModelIndex& index) const;
  loupe::UOpPtr node_;
  std::unique_ptr<Node> root_;
};

} // namespace loupe::views
