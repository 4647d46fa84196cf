// The Profile panel on the Session's trace: the kernel runs, device peaks and TinyJit calls of the
// trace's profile, the kernel names in their axis colours (with the decoder's tooltip), and the
// selected kernel kept in sync both ways. It builds the Memory panel's data from the same events.
#pragma once
#include <memory>

#include "profile/profileview.h"

class MemoryData;

namespace loupe::views {

class Session;

class SessionProfilePanel : public ProfileView {
  Q_OBJECT
public:
  explicit SessionProfilePanel(Session* session, QWidget* parent = nullptr);
  // A kernel picked here or in another panel (by trace id, else by name) becomes the session's.
  void selectKernelOfPanel(qint64 id, const QString& name);

  bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
  void memoryDataChanged(std::shared_ptr<const MemoryData> data);

private:
  void sync();

  Session* session_;
  bool syncingKernel_ = false;
};

} // namespace loupe::views
