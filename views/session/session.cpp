#include "session/session.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "session/uopnodeid.h"
#include "ir/buffer_ref.h"
#include "shape/shapetracker.h"
#include "support/error.h"

namespace loupe::views {

namespace {

// Arg decoders register from static initializers; naming a symbol of each object file keeps the
// linker from dropping it from a program that never builds those args itself.
void ensureArgDecoders() {
  loupe::register_shapetracker_arg();
  loupe::register_buffer_ref_arg();
}

QString what(const std::exception& e) { return QString::fromStdString(e.what()); }

} // namespace

struct Session::LoadResult {
  QString path;
  std::shared_ptr<loupe::TraceReader> reader;
  std::shared_ptr<loupe::TraceReader> replayReader;  // the step rebuilds' own connection
  std::shared_ptr<TraceSnapshot> snapshot;
  QString error;
};

Session::Session(QObject* parent) : QObject(parent) {
  ensureArgDecoders();
  qRegisterMetaType<KernelNameParts>();
  stepPool_.setMaxThreadCount(1);
}

// Queued rebuilds become stale and skip; the pool's destructor waits for the one running.
Session::~Session() { stepGeneration_->fetch_add(1); }

const TraceSnapshot& Session::trace() const {
  static const TraceSnapshot empty;
  return snapshot_ ? *snapshot_ : empty;
}

std::shared_ptr<Session::LoadResult> Session::loadTrace(const QString& path, bool quickCheck) {
  auto r = std::make_shared<Session::LoadResult>();
  r->path = path;
  try {
    loupe::TraceReaderOptions opts;
    opts.quick_check = quickCheck;
    r->reader = std::make_shared<loupe::TraceReader>(path.toStdString(), opts);
    r->snapshot = readTraceSnapshot(*r->reader);
    opts.quick_check = false;  // checked just now
    r->replayReader = std::make_shared<loupe::TraceReader>(path.toStdString(), opts);
  } catch (const std::exception& e) {
    r->reader.reset();
    r->replayReader.reset();
    r->error = what(e);
  }
  return r;
}

void Session::startLoad(const QString& path, bool reload) {
  const quint64 gen = ++generation_;
  loading_++;
  if (!reload) Q_EMIT loadStarted(path);
  auto* watcher = new QFutureWatcher<std::shared_ptr<LoadResult>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen, reload] {
    watcher->deleteLater();
    loading_--;
    std::shared_ptr<LoadResult> r = watcher->result();
    if (gen != generation_) return;  // a newer load (or close) superseded this one
    adopt(std::move(r), reload);
  });
  // A reload of a growing file skips the page check: it was done at open, and the writer is busy.
  watcher->setFuture(QtConcurrent::run([path, reload] { return loadTrace(path, !reload); }));
}

void Session::open(const QString& path) { startLoad(path, false); }

void Session::reload() {
  if (snapshot_) startLoad(snapshot_->path, true);
}

bool Session::openNow(const QString& path, QString* error) {
  ++generation_;
  Q_EMIT loadStarted(path);
  std::shared_ptr<LoadResult> r = loadTrace(path, true);
  if (error) *error = r->error;
  const bool ok = r->error.isEmpty();
  adopt(std::move(r), false);
  waitForStep();
  return ok;
}

bool Session::reloadNow(QString* error) {
  if (!snapshot_) return false;
  ++generation_;
  std::shared_ptr<LoadResult> r = loadTrace(snapshot_->path, false);
  if (error) *error = r->error;
  const bool ok = r->error.isEmpty();
  adopt(std::move(r), true);
  waitForStep();
  return ok;
}

bool Session::waitForLoad(int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (loading_ > 0 && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return loading_ == 0;
}

bool Session::waitForStep(int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (stepPending_ && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !stepPending_;
}

void Session::close() {
  ++generation_;
  if (!snapshot_) return;
  stepGeneration_->fetch_add(1);
  stepPending_ = false;
  replayer_.reset();
  reader_.reset();
  snapshot_.reset();
  matches_.clear();
  kernels_.clear();
  kernelRoots_.clear();
  sel_ = {};
  step_ = {};
  node_.reset();
  Q_EMIT closed();
  Q_EMIT selectionChanged();
}

void Session::adopt(std::shared_ptr<LoadResult> r, bool reload) {
  if (!r->error.isEmpty()) {
    Q_EMIT loadFailed(r->path, r->error);
    return;
  }
  matches_.clear();
  kernels_.clear();
  kernelRoots_.clear();
  reader_ = std::move(r->reader);
  replayer_ = std::make_shared<StepReplayer>(std::move(r->replayReader));
  snapshot_ = std::move(r->snapshot);
  if (reload) {
    Selection keep = sel_;
    if (keep.pass >= 0 && !snapshot_->pass(keep.pass)) keep = {};
    sel_ = {};  // forces every signal: panels re-read the grown trace
    Q_EMIT updated();
    apply(keep, true);
    return;
  }
  sel_ = {};
  step_ = {};
  node_.reset();
  Q_EMIT loaded();
  // Start where the work is: the first kernel's graph (see firstPassOf), else the first pass.
  Selection first;
  if (!snapshot_->kernels.empty()) {
    first.kernel = snapshot_->kernels.front().id;
    first.context = snapshot_->kernels.front().context_id;
    first.pass = firstPassOf(first.context);
  }
  if (first.pass < 0 && !snapshot_->passes.empty()) {
    first.pass = snapshot_->passes.front().id;
    first.context = snapshot_->passes.front().context_id;
  }
  apply(first, true);
}

// ---- queries ----

const std::vector<loupe::TraceMatch>& Session::matches(int64_t passId) {
  static const std::vector<loupe::TraceMatch> none;
  if (!reader_) return none;
  auto it = matches_.find(passId);
  if (it != matches_.end()) return it->second;
  try {
    return matches_.emplace(passId, reader_->matches(passId)).first->second;
  } catch (const std::exception& e) {
    Q_EMIT problem(what(e));
    return none;
  }
}

std::optional<loupe::TraceKernel> Session::kernelDetails(int64_t kernelId) {
  if (!reader_ || kernelId < 0) return std::nullopt;
  auto it = kernels_.find(kernelId);
  if (it != kernels_.end()) return it->second;
  try {
    return kernels_.emplace(kernelId, reader_->kernel(kernelId)).first->second;
  } catch (const std::exception& e) {
    Q_EMIT problem(what(e));
    return std::nullopt;
  }
}

std::vector<RuleFiring> Session::firingsOfRule(int64_t ruleId, int limit) {
  std::vector<RuleFiring> out;
  if (!reader_) return out;
  try {
    // The reader has no query by rule; the matches table is keyed (pass_id, idx) with rule_id a column.
    loupe::SqliteStmt st = reader_->db().prepare(
        "SELECT pass_id, idx FROM matches WHERE rule_id = ? ORDER BY pass_id, idx LIMIT ?");
    st.bind(1, int64_t(ruleId)).bind(2, int64_t(limit));
    while (st.step()) out.push_back({st.int64(0), st.int64(1) + 1});
  } catch (const std::exception& e) {
    Q_EMIT problem(what(e));
  }
  return out;
}

loupe::UOpPtr Session::node(int64_t traceNodeId) {
  if (!reader_) return nullptr;
  try {
    return reader_->node(traceNodeId);
  } catch (const std::exception& e) {
    Q_EMIT problem(what(e));
    return nullptr;
  }
}

// ---- selection ----

int Session::passPosition(int64_t passId) const {
  auto it = trace().passIndex.constFind(passId);
  return it == trace().passIndex.constEnd() ? -1 : *it;
}

int64_t Session::firstPassOf(int64_t contextId) const {
  std::vector<const loupe::TracePass*> ps = trace().passesOf(contextId);
  // A kernel opens on its whole graph: the first pass whose input is the kernel's AST, else the
  // lowerer's (a kernel with nested reduces records its AST before they are rewritten, so no pass
  // starts from it) -- not the first pass with matches, which can be a small index-math rewrite
  // ("nested reduce index").
  if (auto k = trace().kernelOfContext.constFind(contextId); k != trace().kernelOfContext.constEnd()) {
    if (const loupe::TraceKernel* kernel = trace().kernel(*k); kernel && kernel->ast_id >= 0)
      for (const loupe::TracePass* p : ps)
        if (p->input_id == kernel->ast_id) return p->id;
    for (const loupe::TracePass* p : ps)
      if (p->depth == 0 && p->name == "lowerer") return p->id;
  }
  for (const loupe::TracePass* p : ps)
    if (p->match_count > 0) return p->id;
  return ps.empty() ? -1 : ps.front()->id;
}

void Session::selectContext(int64_t contextId) {
  if (!trace().context(contextId)) return;
  Selection next = sel_;
  next.context = contextId;
  next.pass = firstPassOf(contextId);
  next.step = 0;
  if (int64_t k = trace().kernelForContext(contextId); k >= 0) next.kernel = k;
  apply(next, true);
}

void Session::selectPass(int64_t passId, int64_t step) {
  const loupe::TracePass* p = trace().pass(passId);
  if (!p) return;
  Selection next = sel_;
  next.pass = passId;
  next.context = p->context_id;
  next.step = std::clamp<int64_t>(step, 0, p->match_count);
  if (int64_t k = trace().kernelForContext(p->context_id); k >= 0) next.kernel = k;
  apply(next, next.pass != sel_.pass || next.step != sel_.step);
}

void Session::selectStep(int64_t step) {
  if (sel_.pass >= 0) selectPass(sel_.pass, step);
}

void Session::selectKernel(int64_t kernelId) {
  const loupe::TraceKernel* k = trace().kernel(kernelId);
  if (!k) return;
  Selection next = sel_;
  next.kernel = kernelId;
  // Keep the pass when it already belongs to this kernel (e.g. the profile re-selects it).
  if (trace().kernelForContext(sel_.context) != kernelId && k->context_id >= 0) {
    next.context = k->context_id;
    next.pass = firstPassOf(k->context_id);
    next.step = 0;
  }
  apply(next, next.pass != sel_.pass || next.step != sel_.step);
}

void Session::selectNode(const loupe::UOpPtr& node) {
  node_ = node;
  Selection next = sel_;
  next.node = node ? uopNodeId(*node) : 0;
  apply(next, false);
}

bool Session::selectNodeById(quint64 id) {
  if (id == 0) {
    selectNode(nullptr);
    return true;
  }
  for (const loupe::UOpPtr& root : {step_.graph, step_.before}) {
    if (!root) continue;
    for (const loupe::UOp* u : root->toposort())
      if (uopNodeId(*u) == id) {
        selectNode(u->ptr());
        return true;
      }
  }
  return false;
}

const QHash<quint64, QString>& Session::kernelRoots(int64_t contextId) {
  auto [it, fresh] = kernelRoots_.try_emplace(contextId);
  if (!fresh || !reader_) return it->second;
  try {
    std::map<std::string, std::string> names;  // AST key -> kernel name
    for (const loupe::TraceKernel& k : trace().kernels)
      if (!k.ast_key.empty()) names.emplace(k.ast_key, k.name);
    for (const auto& [nodeId, key] : reader_->schedule_roots(contextId)) {
      const loupe::UOpPtr n = reader_->node(nodeId);
      auto name = names.find(key);
      it->second.insert(uopNodeId(*n), key.empty() ? tr("copy") : name != names.end() ? tr("kernel %1").arg(QString::fromStdString(name->second)) : tr("kernel"));
    }
  } catch (const loupe::Error& e) {
    Q_EMIT problem(QString::fromStdString(e.what()));
  }
  return it->second;
}

bool Session::revealNode(int64_t contextId, quint64 id) {
  pendingNode_ = 0;
  if (!stepPending_ && sel_.context == contextId && selectNodeById(id)) return true;
  std::vector<const loupe::TracePass*> passes = trace().passesOf(contextId);
  if (passes.empty()) return false;
  const loupe::TracePass* last = passes.back();
  pendingNode_ = id;
  if (sel_.pass == last->id && sel_.step == last->match_count && !stepPending_) {
    pendingNode_ = 0;
    return selectNodeById(id);
  }
  selectPass(last->id, last->match_count);
  return true;
}

bool Session::revealKernelUOp(int64_t kernelId, bool noopt, const loupe::UOp* u) {
  const loupe::TraceKernel* k = trace().kernel(kernelId);
  if (!k || k->context_id < 0 || !u) return false;
  int64_t context = k->context_id;
  if (noopt) {
    context = -1;
    for (const loupe::TraceContext& c : trace().contexts)
      if (c.parent_id == k->context_id && c.kind == "noopt") context = c.id;
    if (context < 0) return false;
  }
  if ((u->op == loupe::Ops::ENDRANGE || u->op == loupe::Ops::ENDIF) && !u->src.empty()) u = u->src[0].get();
  return revealNode(context, uopNodeId(*u));
}

bool Session::nextMatch() {
  const loupe::TracePass* p = trace().pass(sel_.pass);
  if (p && sel_.step < p->match_count) {
    selectStep(sel_.step + 1);
    return true;
  }
  const auto& ps = trace().passes;
  for (size_t i = size_t(passPosition(sel_.pass) + 1); i < ps.size(); i++)
    if (ps[i].match_count > 0) {
      selectPass(ps[i].id, 1);
      return true;
    }
  return false;
}

bool Session::previousMatch() {
  if (sel_.pass >= 0 && sel_.step > 1) {
    selectStep(sel_.step - 1);
    return true;
  }
  const auto& ps = trace().passes;
  for (int i = passPosition(sel_.pass) - 1; i >= 0; i--)
    if (ps[size_t(i)].match_count > 0) {
      selectPass(ps[size_t(i)].id, ps[size_t(i)].match_count);
      return true;
    }
  return false;
}

bool Session::nextPass() {
  const auto& ps = trace().passes;
  for (size_t i = size_t(passPosition(sel_.pass) + 1); i < ps.size(); i++)
    if (!skipEmpty_ || !trace().passIsEmpty(ps[i].id)) {
      selectPass(ps[i].id, 0);
      return true;
    }
  return false;
}

bool Session::previousPass() {
  const auto& ps = trace().passes;
  for (int i = passPosition(sel_.pass) - 1; i >= 0; i--)
    if (!skipEmpty_ || !trace().passIsEmpty(ps[size_t(i)].id)) {
      selectPass(ps[size_t(i)].id, 0);
      return true;
    }
  return false;
}

bool Session::nextKernel() {
  const auto& ks = trace().kernels;
  auto it = trace().kernelIndex.constFind(sel_.kernel);
  const int pos = it == trace().kernelIndex.constEnd() ? -1 : *it;
  if (pos + 1 >= int(ks.size())) return false;
  selectKernel(ks[size_t(pos + 1)].id);
  return true;
}

bool Session::previousKernel() {
  const auto& ks = trace().kernels;
  auto it = trace().kernelIndex.constFind(sel_.kernel);
  if (it == trace().kernelIndex.constEnd() || *it == 0) return false;
  selectKernel(ks[size_t(*it - 1)].id);
  return true;
}

void Session::apply(Selection next, bool stepDirty) {
  const Selection old = sel_;
  sel_ = next;
  const bool stepMoved = stepDirty || old.pass != next.pass || old.step != next.step;
  if (stepMoved) requestStep();
  if (old.context != sel_.context) Q_EMIT contextChanged(sel_.context);
  if (old.kernel != sel_.kernel) Q_EMIT kernelChanged(sel_.kernel);
  if (old.pass != sel_.pass) Q_EMIT passChanged(sel_.pass);
  if (stepMoved) Q_EMIT stepChanged(sel_.pass, sel_.step);
  if (old.node != sel_.node) Q_EMIT nodeChanged(sel_.node);
  if (!(old == sel_) || stepDirty) Q_EMIT selectionChanged();
}

void Session::setStepDrawer(StepDrawer drawer) {
  drawer_ = std::move(drawer);
  if (replayer_) requestStep();
}

void Session::requestStep() {
  const quint64 generation = stepGeneration_->fetch_add(1) + 1;
  stepPending_ = true;
  auto* watcher = new QFutureWatcher<std::optional<StepInfo>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    std::optional<StepInfo> step = watcher->result();
    if (step && generation == stepGeneration_->load()) adoptStep(std::move(*step));
  });
  // Delivered from the event loop even when there is nothing to replay, so every selection sees
  // one order of events: stepChanged now, stepReady later.
  std::shared_ptr<StepReplayer> replayer = replayer_;
  std::shared_ptr<const TraceSnapshot> snapshot = snapshot_;
  std::shared_ptr<std::atomic<quint64>> current = stepGeneration_;
  const int64_t pass = sel_.pass, step = sel_.step;
  StepDrawer drawer = drawer_;
  watcher->setFuture(QtConcurrent::run(&stepPool_, [=]() -> std::optional<StepInfo> {
    if (current->load() != generation) return std::nullopt;  // a newer selection came first
    if (replayer && snapshot) return replayer->rebuild(*snapshot, pass, step, drawer);
    StepInfo nothing;  // no trace open
    nothing.pass = pass;
    nothing.step = step;
    return nothing;
  }));
}

void Session::adoptStep(StepInfo step) {
  stepPending_ = false;
  step_ = std::move(step);
  if (step_.pass == sel_.pass) sel_.step = step_.step;  // clamped to the matches the trace holds
  if (!step_.error.isEmpty()) Q_EMIT problem(step_.error);
  // A node selection survives stepping only while the node is still in the graph.
  bool nodeGone = false;
  if (node_ && sel_.node) {
    nodeGone = true;
    for (const loupe::UOpPtr& root : {step_.graph, step_.before})
      if (root)
        for (const loupe::UOp* u : root->toposort())
          if (u == node_.get()) nodeGone = false;
    if (nodeGone) {
      node_.reset();
      sel_.node = 0;
    }
  }
  Q_EMIT stepReady();
  if (nodeGone) {
    Q_EMIT nodeChanged(0);
    Q_EMIT selectionChanged();
  }
  if (pendingNode_) {
    const quint64 id = std::exchange(pendingNode_, 0);
    selectNodeById(id);
  }
}

} // namespace loupe::views
