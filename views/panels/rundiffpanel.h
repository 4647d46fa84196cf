// The Run diff panel: the open trace (A) beside another run of the program (B: optimized vs BEAM, before
// vs after a change, CPU vs CUDA). Kernels are paired by their scheduled AST (else by name), each pair
// with both times, the speed-up, both opts; kernels of one run only are listed too; sorted by how much
// time changed (engine/trace/trace_diff.h). The selected pair's source diff shows below. B is read
// off the GUI thread.
#pragma once
#include <QAbstractTableModel>
#include <QWidget>
#include <memory>

#include "trace/trace_diff.h"

class QLabel;
class QTableView;

namespace loupe::views {

class CodeView;
class Session;

class RunDiffModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { KernelA, KernelB, Matched, TimeA, TimeB, Speedup, OptsA, OptsB, ColumnCount };
  enum Role { ChangeRole = Qt::UserRole + 1 };  // B's total minus A's, in ns (sorting)

  using QAbstractTableModel::QAbstractTableModel;
  void setDiff(std::shared_ptr<const loupe::TraceDiff> diff);
  const loupe::TraceDiff* diff() const { return diff_.get(); }
  const loupe::KernelPair* pair(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::shared_ptr<const loupe::TraceDiff> diff_;
};

class RunDiffPanel : public QWidget {
  Q_OBJECT
public:
  explicit RunDiffPanel(Session* session, QWidget* parent = nullptr);

  // Diffs the open trace against `other` (in the background); error() says what went wrong.
  void compareWith(const QString& other);
  bool isLoading() const { return loading_; }
  QString error() const { return error_; }
  QString summaryText() const;  // plain text
  RunDiffModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  CodeView* sourceDiff() const { return source_; }
  void selectRow(int row);

Q_SIGNALS:
  void finished();  // a comparison finished (or failed)

private:
  void showPair(int row);

  Session* session_;
  QLabel* summary_;
  QTableView* table_;
  CodeView* source_;
  RunDiffModel* model_;
  QString error_;
  bool loading_ = false;
  int generation_ = 0;
};

} // namespace loupe::views
