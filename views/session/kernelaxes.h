// The kernel-name decoder: a kernel name like "r_16_8_4_4" lists the sizes of its axes; which axis is
// global, local, group-reduce, reduce, upcast or unroll follows from the kernel's AST (the SINK arg
// carries (name, local_dims, upcasted, dont_use_locals); the STORE's view gives the output shape, so
// reduce axes are where it differs from the full shape) and from its applied opts (each GROUP or
// GROUPTOP adds one group-reduce axis). Colours are tinygrad's: blue, cyan, green, red, yellow, magenta.
#pragma once
#include <QColor>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "codegen/kernel.h"
#include "ir/uop.h"

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

// Reads the axis kinds from the kernel's AST (a SINK with the kernel arg) and its applied opts
// ("Opt(op=OptOps.GROUP, axis=0, arg=4)"). When the AST is missing or does not fit the name (axis
// count), the parts come back parsed but not decoded.
KernelNameParts decodeKernelName(const QString& name, const loupe::UOpPtr& ast, const QStringList& opts);

// The axis kinds of an AST alone (empty when it is not a kernel AST with views).
std::vector<loupe::AxisKind> astAxisKinds(const loupe::UOpPtr& ast, int groupReduces);

// tinygrad's colour of an axis kind, tuned to stay readable on a light or a dark background.
QColor axisColour(loupe::AxisKind kind, bool dark);
QString axisKindTitle(loupe::AxisKind kind);  // "global", "local", "group reduce", ...

// The name as rich text with every axis size in its colour (separators grey).
QString kernelNameHtml(const KernelNameParts& parts, bool dark);
// The decoder's tooltip: the coloured name, then one line per axis (kind and size), launch dims.
QString kernelNameTooltip(const KernelNameParts& parts, bool dark);

} // namespace loupe::views

Q_DECLARE_METATYPE(loupe::views::KernelNameParts)
