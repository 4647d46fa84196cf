// The kernel-name decoder: a kernel name like "r_16_8_4_4" lists the sizes of its axes; which axis is
// global, local, group-reduce, reduce, upcast or unroll is what the optimizer recorded in the trace
// (KernelRecord::axis_kinds). Colours are tinygrad's: blue, cyan, green, red, yellow, magenta.
#pragma once
#include <QColor>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "codegen/kernel.h"
#include <string>
#include <vector>

namespace loupe::views {

struct KernelNameAxis {
  QString size;                      // as written in the name ("16", or a symbolic size)
  std::optional<loupe::AxisKind> kind;  // unknown when the AST could not be read
};

struct KernelNameParts {
  QString name;                  // the whole name
  QString prefix;                // "r", "E", "C", "r2" ...: the part before the first axis
  QVector<KernelNameAxis> axes;
  QString suffix;                // "n1": the engine's number for a second kernel of the same shape
  bool parsed = false;           // the name has the prefix_size_size... form
  bool decoded = false;          // every axis has a kind
  bool dontUseLocals = false;
  QVector<qint64> globalSize, localSize;  // launch dimensions, when known

  bool operator==(const KernelNameParts& o) const;
};

// Splits a name into prefix, axis sizes and suffix; kinds stay unknown.
KernelNameParts parseKernelName(const QString& name);

// The name with the recorded kind of each axis (codegen's axis_kind_name). Kinds that are missing
// (a trace from before they were recorded), of another count than the name's axes, or unknown leave
// the parts parsed but not decoded.
KernelNameParts decodeKernelName(const QString& name, const std::vector<std::string>& kinds, bool dontUseLocals);

// tinygrad's colour of an axis kind, tuned to stay readable on a light or a dark background.
QColor axisColour(loupe::AxisKind kind, bool dark);
QString axisKindTitle(loupe::AxisKind kind);  // "global", "local", "group reduce", ...

// The name as rich text with every axis size in its colour (separators grey).
QString kernelNameHtml(const KernelNameParts& parts, bool dark);
// The decoder's tooltip: the coloured name, then one line per axis (kind and size), launch dims.
QString kernelNameTooltip(const KernelNameParts& parts, bool dark);

} // namespace loupe::views

Q_DECLARE_METATYPE(loupe::views::KernelNameParts)
