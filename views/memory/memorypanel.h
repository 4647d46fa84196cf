// The Memory panel: the chart of every device buffer over time (MemoryChart), a summary of the peaks
// and of TinyJit's memory planning, and the selected buffer's details: its size and dtype, when it
// lived, the kernels that wrote and read it, and the planner's shared allocation it belongs to. A
// kernel in the details is a link: kernelActivated asks the main window to show it in the Profile and
// the graph.
#pragma once
#include <QWidget>

#include <memory>

#include "memory/memorydata.h"

class QLabel;
class QTextBrowser;

namespace loupe::views {

class MemoryChart;

class MemoryPanel : public QWidget {
  Q_OBJECT
public:
  explicit MemoryPanel(QWidget* parent = nullptr);

  void setData(std::shared_ptr<const MemoryData> data);
  void clear();
  const MemoryData* data() const { return data_.get(); }
  MemoryChart* chart() const { return chart_; }
  QTextBrowser* details() const { return details_; }
  QLabel* summary() const { return summary_; }

  // Selects a buffer (index into data()->buffers(), -1 for none) and shows its details.
  void selectBuffer(int index);
  int selectedBuffer() const { return selected_; }

Q_SIGNALS:
  void kernelActivated(qint64 kernelId, const QString& name);

private:
  void showDetails();
  void updateSummary();
  void openLink(const QUrl& url);

  std::shared_ptr<const MemoryData> data_;
  QLabel* summary_;
  MemoryChart* chart_;
  QTextBrowser* details_;
  int selected_ = -1;
};

} // namespace loupe::views
