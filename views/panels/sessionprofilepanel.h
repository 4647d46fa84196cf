// The Profile panel on the Session's trace: the kernel runs, device peaks and TinyJit calls of the
// trace's profile, the kernel names in their axis colours (with the decoder's tooltip), and the
// selected kernel kept in sync both ways. It builds the Memory panel's data from the same events.
// Sampled kernels (hot spots) get their hottest source line and IPC in the table, their samples matched
// to their code off the GUI thread, each kernel once per sample count.
#pragma once
#include <QHash>
#include <QThreadPool>
#include <atomic>
#include <memory>

#include "profile/profileview.h"

namespace loupe::views {

class MemoryData;
class Session;

class SessionProfilePanel : public ProfileView {
  Q_OBJECT
public:
  explicit SessionProfilePanel(Session* session, QWidget* parent = nullptr);
  ~SessionProfilePanel() override;
  bool isMatchingHotspots() const { return matching_ > 0; }
  // A kernel picked here or in another panel (by trace id, else by name) becomes the session's.
  void selectKernelOfPanel(qint64 id, const QString& name);

  bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
  void memoryDataChanged(std::shared_ptr<const MemoryData> data);
  void hotspotsMatched();  // every sampled kernel's hottest line is known (or why not)

private:
  void sync();
  void syncHotspots();

  struct MatchedLine {
    qint64 samples = 0;  // the sample count it was matched at
    int line = 0;
    double share = 0;
    QString note;
  };
  QHash<qint64, MatchedLine> matched_;  // by kernel id
  int matching_ = 0;
  // bumped by every sync and by closing: a match job of an older one stops and its results are dropped
  std::shared_ptr<std::atomic<quint64>> generation_ = std::make_shared<std::atomic<quint64>>(0);
  QThreadPool pool_;

  Session* session_;
  bool syncingKernel_ = false;
};

} // namespace loupe::views
