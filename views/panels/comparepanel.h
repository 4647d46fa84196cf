// The Compare panel: the selected kernel's NOOPT version against the optimized one (CompareView from
// views/code), with the measured times.
#pragma once
#include <QWidget>

namespace loupe::views {

class CompareView;
class Session;

class KernelComparePanel : public QWidget {
  Q_OBJECT
public:
  explicit KernelComparePanel(Session* session, QWidget* parent = nullptr);
  CompareView* compareView() const { return compare_; }

private:
  void refresh();
  Session* session_;
  CompareView* compare_;
  int64_t shown_ = -1;
};

} // namespace loupe::views
