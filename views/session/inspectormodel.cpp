#include "session/inspectormodel.h"

#include <QFileInfo>
#include <QFont>
#include <QGuiApplication>
#include <functional>
#include <unordered_map>

#include "session/uopnodeid.h"
#include "ir/buffer_ref.h"
#include "ir/print.h"
#include "session/provenance.h"

namespace loupe::views {

using loupe::Ops;
using loupe::UOp;
using loupe::UOpPtr;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString tupleText(const std::vector<int64_t>& v) {
  QStringList parts;
  for (int64_t x : v) parts << QString::number(x);
  return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + (v.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
}

QString sintsText(const loupe::sints& v) {
  QStringList parts;
  for (const loupe::sint& x : v) parts << qs(x.str());
  return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + (v.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
}

int64_t dimValue(const loupe::sint& s) { return s.is_int() ? s.as_int() : s.vmax(); }

QString nodeSummary(const UOp& u) { return qs(loupe::uop_label(u, 48)); }

bool isIntLike(const loupe::DType& d) { return !d.is_ptr && (d.is_int() || d.is_bool()); }

std::optional<std::vector<int64_t>> intsOf(const loupe::Arg& a) {
  if (!a.is_tuple()) return std::nullopt;
  std::vector<int64_t> out;
  for (const loupe::Arg& x : a.as_tuple()) {
    if (!x.is_int()) return std::nullopt;
    out.push_back(x.as_int());
  }
  return out;
}

// Pairs ((b, e), ...) of a PAD or SHRINK arg.
std::optional<std::vector<std::pair<int64_t, int64_t>>> pairsOf(const loupe::Arg& a) {
  if (!a.is_tuple()) return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const loupe::Arg& x : a.as_tuple()) {
    auto p = intsOf(x);
    if (!p || p->size() != 2) return std::nullopt;
    out.emplace_back((*p)[0], (*p)[1]);
  }
  return out;
}

} // namespace

QString boundText(__int128 v) {
  const __int128 huge = __int128(1) << 100;
  if (v <= -huge) return QStringLiteral("-inf");
  if (v >= huge) return QStringLiteral("inf");
  const bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-v) : static_cast<unsigned __int128>(v);
  QString digits;
  do {
    digits.prepend(QChar(u'0' + int(u % 10)));
    u /= 10;
  } while (u);
  return neg ? QLatin1Char('-') + digits : digits;
}

const loupe::ShapeTracker* nodeShapeTracker(const UOpPtr& node) {
  if (!node) return nullptr;
  if (node->op == Ops::VIEW)
    if (const auto* st = node->arg.object<loupe::ShapeTracker>()) return st;
  for (const UOpPtr& s : node->src)
    if (s->op == Ops::VIEW)
      if (const auto* st = s->arg.object<loupe::ShapeTracker>()) return st;
  return nullptr;
}

std::optional<std::vector<int64_t>> nodeShape(const UOpPtr& node) {
  if (!node) return std::nullopt;
  using Shape = std::optional<std::vector<int64_t>>;
  std::unordered_map<const UOp*, Shape> memo;
  for (const UOp* u : node->toposort()) {
    Shape s;
    auto src = [&](size_t i) -> Shape { return i < u->src.size() ? memo[u->src[i].get()] : std::nullopt; };
    if (const loupe::ShapeTracker* st = nodeShapeTracker(u->ptr())) {
      std::vector<int64_t> v;
      for (const loupe::sint& d : st->shape()) v.push_back(dimValue(d));
      s = v;
    } else {
      switch (u->op) {
      case Ops::BUFFER:
        if (const auto* b = u->arg.object<loupe::BufferRef>()) s = std::vector<int64_t>{b->size};
        break;
      case Ops::RESHAPE:
      case Ops::EXPAND: s = intsOf(u->arg); break;
      case Ops::PERMUTE:
        if (Shape in = src(0); in)
          if (auto order = intsOf(u->arg); order && order->size() == in->size()) {
            std::vector<int64_t> v;
            for (int64_t a : *order)
              if (a >= 0 && a < int64_t(in->size())) v.push_back((*in)[size_t(a)]);
            if (v.size() == in->size()) s = v;
          }
        break;
      case Ops::PAD:
        if (Shape in = src(0); in)
          if (auto p = pairsOf(u->arg); p && p->size() == in->size()) {
            s = in;
            for (size_t i = 0; i < p->size(); i++) (*s)[i] += (*p)[i].first + (*p)[i].second;
          }
        break;
      case Ops::SHRINK:
        if (auto p = pairsOf(u->arg)) {
          std::vector<int64_t> v;
          for (auto [b, e] : *p) v.push_back(e - b);
          s = v;
        }
        break;
      case Ops::REDUCE_AXIS:
        if (Shape in = src(0); in && u->arg.is_tuple() && u->arg.as_tuple().size() >= 2)
          if (auto axes = intsOf(u->arg.as_tuple()[1])) {
            s = in;
            for (int64_t a : *axes)
              if (a >= 0 && a < int64_t(s->size())) (*s)[size_t(a)] = 1;
          }
        break;
      case Ops::CONST: s = std::vector<int64_t>{}; break;
      case Ops::SINK:
      case Ops::DEVICE:
      case Ops::RANGE:
      case Ops::DEFINE_GLOBAL:
      case Ops::DEFINE_VAR: break;
      default:
        // elementwise and the like: the shape of a source that has one
        for (size_t i = u->op == Ops::WHERE ? 1 : 0; i < u->src.size() && !s; i++) s = src(i);
      }
    }
    memo[u] = s;
  }
  return memo[node.get()];
}

std::vector<InspectorRow> inspectorRows(const UOpPtr& node, const UOpPtr& graph) {
  std::vector<InspectorRow> rows;
  if (!node) return rows;
  rows.push_back({QStringLiteral("op"), QString::fromUtf8(loupe::op_name(node->op).data(), qsizetype(loupe::op_name(node->op).size())), {}, 0, {}});
  rows.push_back({QStringLiteral("dtype"), qs(node->dtype.is_void() ? std::string("void") : node->dtype.name()),
                  qs(node->dtype.short_name()), 0, {}});
  const QString arg = qs(node->arg.str());
  rows.push_back({QStringLiteral("arg"), arg, arg, 0, {}});
  rows.push_back({QStringLiteral("key"), qs(node->key().hex()), {}, 0, {}});
  if (uint32_t meta = node->metadata()) {
    const loupe::Metadata& m = loupe::metadata_of(meta);
    rows.push_back({QStringLiteral("tensor op"), qs(loupe::metadata_str(m)),
                    QObject::tr("The Tensor call this node was built for (the first, where several built the same node); "
                                "find the line's other nodes with Ctrl+F and %1:%2").arg(QFileInfo(qs(m.file)).fileName()).arg(m.line),
                    0, {}});
  }
  if (isIntLike(node->dtype))
    rows.push_back({QStringLiteral("range"), QStringLiteral("[%1, %2]").arg(boundText(node->vmin()), boundText(node->vmax())),
                    QStringLiteral("vmin and vmax proven by range analysis"), 0, {}});
  if (auto shape = nodeShape(node)) rows.push_back({QStringLiteral("shape"), tupleText(*shape), {}, 0, {}});

  InspectorRow srcs{QStringLiteral("sources"), QString::number(node->src.size()), {}, 0, {}};
  for (size_t i = 0; i < node->src.size(); i++)
    srcs.children.push_back({QStringLiteral("[%1]").arg(i), nodeSummary(*node->src[i]), qs(node->src[i]->arg.str()),
                             uopNodeId(*node->src[i]), {}});
  rows.push_back(std::move(srcs));

  if (graph) {
    InspectorRow users{QStringLiteral("users"), {}, QStringLiteral("nodes of the graph shown that read this one"), 0, {}};
    for (const UOp* u : graph->toposort())
      for (size_t i = 0; i < u->src.size(); i++)
        if (u->src[i].get() == node.get())
          users.children.push_back({QStringLiteral("as [%1] of").arg(i), nodeSummary(*u), {}, uopNodeId(*u), {}});
    users.value = QString::number(users.children.size());
    rows.push_back(std::move(users));
  }

  if (const loupe::ShapeTracker* st = nodeShapeTracker(node)) {
    InspectorRow str{QStringLiteral("ShapeTracker"), QStringLiteral("%1 view%2").arg(st->views().size()).arg(st->views().size() == 1 ? "" : "s"),
                     qs(st->str()), 0, {}};
    for (size_t i = 0; i < st->views().size(); i++) {
      const loupe::View& v = st->views()[i];
      InspectorRow vr{QStringLiteral("view %1").arg(i), sintsText(v.shape), {}, 0, {}};
      vr.children.push_back({QStringLiteral("shape"), sintsText(v.shape), {}, 0, {}});
      vr.children.push_back({QStringLiteral("strides"), sintsText(v.strides), {}, 0, {}});
      vr.children.push_back({QStringLiteral("offset"), qs(v.offset.str()), {}, 0, {}});
      QString mask = QStringLiteral("None");
      if (v.mask) {
        QStringList parts;
        for (const auto& [b, e] : *v.mask) parts << QStringLiteral("(%1, %2)").arg(qs(b.str()), qs(e.str()));
        mask = QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
      }
      vr.children.push_back({QStringLiteral("mask"), mask, {}, 0, {}});
      vr.children.push_back({QStringLiteral("contiguous"), v.contiguous ? QStringLiteral("True") : QStringLiteral("False"), {}, 0, {}});
      str.children.push_back(std::move(vr));
    }
    try {
      auto [index, valid] = st->to_indexed(true);
      const QString idx = index ? qs(loupe::render_expr(index)) : QStringLiteral("—");
      const QString val = valid ? qs(loupe::render_expr(valid)) : QStringLiteral("True");
      str.children.push_back({QStringLiteral("index"), idx, idx, 0, {}});
      str.children.push_back({QStringLiteral("valid"), val, val, 0, {}});
    } catch (const std::exception& e) {
      str.children.push_back({QStringLiteral("index"), QStringLiteral("(cannot be built: %1)").arg(qs(e.what())), {}, 0, {}});
    }
    rows.push_back(std::move(str));
  }
  return rows;
}

// ---- model ----

struct InspectorModel::Node {
  InspectorRow row;
  Node* parent = nullptr;
  int index = 0;
  std::vector<std::unique_ptr<Node>> children;
};

InspectorModel::InspectorModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Node>()) {}
InspectorModel::~InspectorModel() = default;

std::optional<InspectorRow> provenanceRow(const std::vector<loupe::Metadata>& kernelProvenance) {
  const QList<SourceLine> lines = sourceLines(kernelProvenance);
  if (lines.isEmpty()) return std::nullopt;
  InspectorRow row{QObject::tr("from your code"), QObject::tr("%n line(s) of the program", nullptr, int(lines.size())),
                   QObject::tr("The lines of the program whose tensor ops the kernel computes"), 0, {}};
  for (const SourceLine& s : lines)
    row.children.push_back({QStringLiteral("%1:%2").arg(QFileInfo(s.file).fileName()).arg(s.line),
                            (s.function.isEmpty() ? QString() : s.function + QStringLiteral(": ")) + s.ops.join(QStringLiteral(", ")),
                            s.file, 0, {}});
  return row;
}

void InspectorModel::setNode(const UOpPtr& node, const UOpPtr& graph, const std::vector<loupe::Metadata>& kernelProvenance) {
  beginResetModel();
  node_ = node;
  root_ = std::make_unique<Node>();
  std::function<void(Node*, std::vector<InspectorRow>&)> add = [&](Node* parent, std::vector<InspectorRow>& rows) {
    for (InspectorRow& r : rows) {
      auto n = std::make_unique<Node>();
      n->parent = parent;
      n->index = int(parent->children.size());
      std::vector<InspectorRow> kids = std::move(r.children);
      n->row = std::move(r);
      add(n.get(), kids);
      parent->children.push_back(std::move(n));
    }
  };
  std::vector<InspectorRow> rows = inspectorRows(node, graph);
  if (std::optional<InspectorRow> from = provenanceRow(kernelProvenance)) rows.push_back(std::move(*from));
  add(root_.get(), rows);
  endResetModel();
}

QModelIndex InspectorModel::findRow(const QString& name) const {
  for (const auto& c : root_->children)
    if (c->row.name == name) return createIndex(c->index, 0, c.get());
  return {};
}

InspectorModel::Node* InspectorModel::nodeOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

QModelIndex InspectorModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (parent.isValid() && parent.column() != 0) return {};
  Node* p = nodeOf(parent);
  if (row >= int(p->children.size())) return {};
  return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex InspectorModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  Node* p = nodeOf(child)->parent;
  if (!p || p == root_.get()) return {};
  return createIndex(p->index, 0, p);
}

int InspectorModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return int(nodeOf(parent)->children.size());
}

int InspectorModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == PropertyColumn ? tr("Property") : tr("Value");
}

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const InspectorRow& r = nodeOf(index)->row;
  switch (role) {
  case Qt::DisplayRole: return index.column() == PropertyColumn ? r.name : r.value;
  case Qt::ToolTipRole: return r.tooltip.isEmpty() ? QVariant() : QVariant(r.tooltip);
  case NodeIdRole: return r.nodeId ? QVariant(quint64(r.nodeId)) : QVariant();
  case Qt::FontRole:
    if (index.column() == ValueColumn && qGuiApp) {
      QFont f = QGuiApplication::font();
      f.setFamily(QStringLiteral("DejaVu Sans Mono"));
      f.setStyleHint(QFont::Monospace);
      return f;
    }
    return {};
  }
  return {};
}

} // namespace loupe::views
