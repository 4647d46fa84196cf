#include "graph/layoutservice.h"

#include <optional>

#include <QCoreApplication>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include "session/backgroundpriority.h"

namespace loupe::views {

namespace {

// dot runs on a pool of its own, one job at a time (Graphviz is not reentrant: dotLayout holds a
// process-wide lock). On Qt's global pool a long dot job, and the queued ones waiting for that lock,
// would occupy every thread, and the raster paint engine, which hands work to the global pool and
// waits for it, would freeze the GUI until dot finished. Never deleted: a job may outlive every
// service, and nothing should wait for dot at exit.
QThreadPool* dotPool() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool;
    p->setMaxThreadCount(1);
    p->setExpiryTimeout(-1);
    return p;
  }();
  return pool;
}

} // namespace

LayoutService::LayoutService(QObject* parent) : QObject(parent) {
  cache_.setMaxCost(400000);  // boxes over all cached layouts
}

LayoutService::~LayoutService() { current_->fetch_add(1); }  // running jobs become stale

quint64 LayoutService::advance() { return current_->fetch_add(1) + 1; }

GraphLayout LayoutService::cached(quint64 contentKey, bool fullQuality) const {
  const GraphLayout* l = cache_.object(contentKey);
  return l && (l->fullQuality || !fullQuality) ? *l : GraphLayout{};
}

void LayoutService::setDotOptionsOverride(const DotOptions* options) {
  overrideSet_ = options != nullptr;
  if (options) override_ = *options;
}

void LayoutService::requestDot(const DrawGraph& g, bool fullQuality) {
  const quint64 gen = current_->load();
  GraphLayout hit = cached(g.contentKey, fullQuality);
  if (hit.isValid()) {
    // Delivered from the event loop, like a computed one, so callers see one order of events.
    QMetaObject::invokeMethod(this, [this, gen, hit] { deliver(gen, hit); }, Qt::QueuedConnection);
    running_++;
    return;
  }
  // Unset: the effort for its size, chosen on dot's thread (counting virtual nodes ranks the graph).
  const std::optional<DotOptions> options = overrideSet_  ? std::optional<DotOptions>(override_)
                                            : fullQuality ? std::optional<DotOptions>(DotOptions::fullQuality())
                                                          : std::nullopt;
  std::shared_ptr<std::atomic<quint64>> current = current_;
  auto* watcher = new QFutureWatcher<GraphLayout>(this);
  connect(watcher, &QFutureWatcher<GraphLayout>::finished, this, [this, watcher, gen] {
    GraphLayout l = watcher->result();
    watcher->deleteLater();
    // A full-quality layout is never replaced by a cheaper one of the same graph.
    if (l.isValid() && !cached(l.contentKey, true).isValid())
      cache_.insert(l.contentKey, new GraphLayout(l), std::max(1, static_cast<int>(l.centers.size())));
    deliver(gen, l);
  });
  running_++;
  watcher->setFuture(QtConcurrent::run(dotPool(), [g, options, current, gen] {
    lowerThreadPriority();  // a refinement: the coarse picture is up, input comes first
    if (current->load() != gen) return GraphLayout{};  // stale before it started
    return dotLayout(g, options ? *options : DotOptions::forSize(g.nodes.size(), dotVirtualNodes(g)),
                     [&] { return current->load() == gen; });
  }));
}

void LayoutService::deliver(quint64 gen, const GraphLayout& l) {
  running_--;
  if (gen != current_->load()) return;
  if (l.isValid()) Q_EMIT dotFinished(gen, l);
  else Q_EMIT dotFailed(gen, l.note);
}

void LayoutService::waitForIdle() {
  while (running_ > 0) QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
}

} // namespace loupe::views
