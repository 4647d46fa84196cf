// Kernels of a schedule grouped by the user's code that made them, so that a training step's 40
// kernels read as its layers first (forward layer by layer, loss, backward, optimizer) and a group is
// opened to see its kernels. Groups follow the schedule's order: consecutive kernels from one line
// form a group; a line run in a loop (an MLP's hidden layers, all built by one line) is split where
// its first Tensor call comes round again; short runs of lines that alternate (the output layer and
// the loss) are merged into one group.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>

namespace loupe::views {

// One kernel of a schedule: the node that becomes it, and the Tensor call its node came from.
struct ScheduleKernel {
  quint64 root = 0;  // its node in the schedule's graph (GraphModelNode::id)
  QString line;      // "mlp_train.py:23" (sourceLineKey); empty when unknown
  QString op;        // the Tensor call: "linear", "layernorm"; empty when unknown
};

struct KernelGroup {
  QVector<quint64> kernels;  // roots, in schedule order
  QStringList lines;         // the lines its kernels came from, in order of first use
  QStringList ops;           // the Tensor calls, in order of first use
  // The box a group is drawn as stands in for its last kernel (the one the others feed).
  quint64 box() const { return kernels.isEmpty() ? 0 : kernels.last(); }
  QString title() const;     // "mlp_train.py:23" or "mlp_train.py:24, 41"
};

// Grouping helps only for a schedule of many kernels, most of them with a known line, that falls into
// clearly fewer groups.
constexpr int kMinKernelsToGroup = 16;

// The groups of a schedule's kernels (in schedule order), or none where grouping does not help (few
// kernels, no lines recorded, about as many groups as kernels).
QVector<KernelGroup> groupKernels(const QVector<ScheduleKernel>& kernels);

} // namespace loupe::views
