#include "shapeview/shapeviewsmodel.h"

#include <QFont>
#include <QFontDatabase>

namespace loupe::views {

namespace {
QString symbolic(const QString& form, const QString& value) { return form.isEmpty() ? value : form + QStringLiteral(" = ") + value; }
} // namespace

ShapeViewsModel::ShapeViewsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ShapeViewsModel::setInput(std::shared_ptr<const ShapeTrackerInput> input) {
  beginResetModel();
  input_ = std::move(input);
  endResetModel();
}

int ShapeViewsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !input_) return 0;
  return int(input_->views.size());
}

int ShapeViewsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant ShapeViewsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !input_) return {};
  const ShapeViewInfo& v = input_->views[size_t(index.row())];
  const int n = int(input_->views.size());
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case ViewColumn:
      return n == 1                 ? tr("only")
             : index.row() == 0     ? tr("%1 (buffer)").arg(index.row())
             : index.row() == n - 1 ? tr("%1 (logical)").arg(index.row())
                                    : QString::number(index.row());
    // a symbolic entry shows its own form and its value under the input's variables
    case ShapeColumn:
      return symbolic(v.shapeText, formatTuple(v.shape));
    case StridesColumn:
      return symbolic(v.stridesText, formatTuple(v.strides));
    case OffsetColumn:
      return symbolic(v.offsetText, QString::number(v.offset));
    case MaskColumn:
      return symbolic(v.maskText, formatMask(v.mask));
    case ContiguousColumn:
      return v.contiguous ? tr("yes") : tr("no");
    }
    break;
  case SortRole:
    switch (index.column()) {
    case ViewColumn:
      return index.row();
    case OffsetColumn:
      return qint64(v.offset);
    case ContiguousColumn:
      return v.contiguous;
    default:
      return data(index, Qt::DisplayRole);
    }
  case MaskedRole:
    return !v.mask.empty();
  case Qt::FontRole:
    if (index.column() != ViewColumn && index.column() != ContiguousColumn)
      return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    break;
  case Qt::TextAlignmentRole:
    if (index.column() == OffsetColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
    break;
  case Qt::ToolTipRole:
    switch (index.column()) {
    case ViewColumn:
      return tr("View %1 of %2: view 0 reads the buffer, the last one defines the logical shape")
          .arg(index.row())
          .arg(n);
    case StridesColumn:
      return tr("Elements skipped in the buffer per step along each axis (0 = broadcast)");
    case OffsetColumn:
      return tr("Buffer offset of element (0, 0, ...)");
    case MaskColumn:
      return v.mask.empty() ? tr("No padding")
                            : tr("Valid index range [lo, hi) per axis; outside it the element is padding and reads 0");
    case ContiguousColumn:
      return tr("Row-major, no offset, no mask");
    }
    break;
  }
  return {};
}

QVariant ShapeViewsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case ViewColumn:
    return tr("View");
  case ShapeColumn:
    return tr("Shape");
  case StridesColumn:
    return tr("Strides");
  case OffsetColumn:
    return tr("Offset");
  case MaskColumn:
    return tr("Mask");
  case ContiguousColumn:
    return tr("Contiguous");
  }
  return {};
}

} // namespace loupe::views
