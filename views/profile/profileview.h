// The Profile panel: the sortable, filterable kernel table, the roofline chart beside it and the
// timeline below. One kernel is selected across all three; selecting it anywhere (table row,
// roofline dot, timeline bar) emits kernelSelected once, which the main window relays to the other
// panels. selectKernel() is how the main window selects from outside (it does not re-emit).
#pragma once
#include <QWidget>

#include <memory>

#include "profile/profiledata.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class KernelFilterProxy;
class KernelTableModel;
class RooflineWidget;
class TimelineWidget;

class ProfileView : public QWidget {
  Q_OBJECT
public:
  explicit ProfileView(QWidget* parent = nullptr);

  void setInput(ProfileInput input);
  void clear();
  const ProfileData* data() const { return m_data.get(); }

  KernelTableModel* model() const { return m_model; }
  KernelFilterProxy* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  TimelineWidget* timeline() const { return m_timeline; }
  RooflineWidget* roofline() const { return m_roofline; }
  QLineEdit* filterEdit() const { return m_filter; }

  int selectedKernelIndex() const { return m_selected; } // into data()->kernels(), -1 for none
  qint64 selectedKernelId() const;

public Q_SLOTS:
  // Select without emitting kernelSelected; false when the kernel is not in this profile.
  bool selectKernel(qint64 kernelId);
  bool selectKernelByName(const QString& name, const QString& device = {});

Q_SIGNALS:
  void kernelSelected(qint64 kernelId, const QString& name, const QString& device);

private:
  void setSelection(int kernelIndex, bool notify);
  void updateSummary();

  std::shared_ptr<const ProfileData> m_data;
  KernelTableModel* m_model;
  KernelFilterProxy* m_proxy;
  QLabel* m_summary;
  QLineEdit* m_filter;
  QComboBox* m_device;
  QTableView* m_table;
  RooflineWidget* m_roofline;
  TimelineWidget* m_timeline;
  int m_selected = -1;
  bool m_syncing = false;
  bool m_sortedByUser = false;  // the user clicked a header: the next re-sort shows the top rows
};
