// Runs dot layouts off the GUI thread, one at a time on a thread of their own (never on Qt's global
// pool, which painting uses), and caches them by graph content. Every request gets a generation
// number; a newer request makes older ones stale: a stale job that has not started is skipped, and
// the result of one that has is cached but not delivered.
#pragma once
#include <QCache>
#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <memory>

#include "graph/dotlayout.h"

namespace loupe::views {

class LayoutService : public QObject {
  Q_OBJECT
public:
  explicit LayoutService(QObject* parent = nullptr);
  ~LayoutService() override;

  // Makes every pending request stale and returns the new current generation.
  quint64 advance();
  quint64 generation() const { return current_->load(); }

  // A cached dot layout for this content (of full quality if asked), or an invalid layout.
  GraphLayout cached(quint64 contentKey, bool fullQuality = false) const;
  // Queues a dot layout of g for the current generation; dotFinished follows (queued) unless a
  // newer generation starts first. A cached result is delivered without running dot. fullQuality:
  // dot's own effort instead of DotOptions::forSize (slow on big graphs).
  void requestDot(const DrawGraph& g, bool fullQuality = false);
  bool busy() const { return running_ > 0; }

  // Processes events until no job of this service is running (tests and benchmarks).
  void waitForIdle();

  void setDotOptionsOverride(const DotOptions* options);  // null: DotOptions::forSize

Q_SIGNALS:
  void dotFinished(quint64 generation, const loupe::views::GraphLayout& layout);
  void dotFailed(quint64 generation, const QString& why);

private:
  void deliver(quint64 generation, const GraphLayout& layout);

  // Shared with jobs, which may outlive the service (dot cannot be interrupted).
  std::shared_ptr<std::atomic<quint64>> current_ = std::make_shared<std::atomic<quint64>>(0);
  QCache<quint64, GraphLayout> cache_;
  int running_ = 0;
  bool overrideSet_ = false;
  DotOptions override_;
};

} // namespace loupe::views
