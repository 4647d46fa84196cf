// Paints kernel names in tinygrad's axis colours (global blue, local cyan, group green, reduce red,
// upcast yellow, unroll magenta) wherever a model gives a KernelNameParts under `partsRole`; other
// cells are drawn as usual. The colours follow the view's palette (light or dark).
#pragma once
#include <QStyledItemDelegate>
#include <functional>
#include <optional>

#include "session/kernelaxes.h"

namespace loupe::views {

class KernelNameDelegate : public QStyledItemDelegate {
  Q_OBJECT
public:
  using PartsSource = std::function<std::optional<KernelNameParts>(const QModelIndex&)>;
  KernelNameDelegate(int partsRole, QObject* parent = nullptr);
  // For models that know kernels by id only: `source` maps a cell to its kernel's parts.
  KernelNameDelegate(PartsSource source, QObject* parent = nullptr);
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
  std::optional<KernelNameParts> partsOf(const QModelIndex& index) const;
  int role_ = -1;
  PartsSource source_;
};

// Draws a kernel name in its axis colours at `pos` (baseline-left); returns the advance width.
qreal drawKernelName(QPainter* painter, const QPointF& pos, const KernelNameParts& parts, const QFont& font,
                     const QColor& text, bool dark);
bool isDarkPalette(const QPalette& palette);

} // namespace loupe::views
