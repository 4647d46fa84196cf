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

namespace loupe::views {

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
  const ProfileData* data() const { return data_.get(); }

  KernelTableModel* model() const { return model_; }
  KernelFilterProxy* proxy() const { return proxy_; }
  QTableView* table() const { return table_; }
  TimelineWidget* timeline() const { return timeline_; }
  RooflineWidget* roofline() const { return roofline_; }
  QLineEdit* filterEdit() const { return filter_; }

  int selectedKernelIndex() const { return selected_; } // into data()->kernels(), -1 for none
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

  std::shared_ptr<const ProfileData> data_;
  KernelTableModel* model_;
  KernelFilterProxy* proxy_;
  QLabel* summary_;
  QLineEdit* filter_;
  QComboBox* device_;
  QTableView* table_;
  RooflineWidget* roofline_;
  TimelineWidget* timeline_;
  int selected_ = -1;
  bool syncing_ = false;
  bool sortedByUser_ = false;  // the user clicked a header: the next re-sort shows the top rows
};

} // namespace loupe::views
