// The Memory panel: the chart of every device buffer over time (MemoryChart), a summary of the peaks
// and of TinyJit's memory planning, and the selected buffer's details: its size and dtype, when it
// lived, the kernels that wrote and read it, and the planner's shared allocation it belongs to. A
// kernel in the details is a link: kernelActivated asks the main window to show it in the Profile and
// the graph.
#pragma once
#include <QWidget>

#include <memory>

#include "memory/memorydata.h"

class MemoryChart;
class QLabel;
class QTextBrowser;

class MemoryPanel : public QWidget {
  Q_OBJECT
public:
  explicit MemoryPanel(QWidget* parent = nullptr);

  void setData(std::shared_ptr<const MemoryData> data);
  void clear();
  const MemoryData* data() const { return m_data.get(); }
  MemoryChart* chart() const { return m_chart; }
  QTextBrowser* details() const { return m_details; }
  QLabel* summary() const { return m_summary; }

  // Selects a buffer (index into data()->buffers(), -1 for none) and shows its details.
  void selectBuffer(int index);
  int selectedBuffer() const { return m_selected; }

Q_SIGNALS:
  void kernelActivated(qint64 kernelId, const QString& name);

private:
  void showDetails();
  void updateSummary();
  void openLink(const QUrl& url);

  std::shared_ptr<const MemoryData> m_data;
  QLabel* m_summary;
  MemoryChart* m_chart;
  QTextBrowser* m_details;
  int m_selected = -1;
};
