#include "exec/layout_memo.h"

#include <atomic>
#include <iostream>
#include <list>
#include <mutex>

#include "exec/exec_item.h"
#include "exec/realize.h"
#include "ir/buffer_ref.h"
#include "observe/observer.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "shape/shapetracker.h"
#include "support/options.h"

namespace loupe {

namespace {

// Remembered copies hold their outputs alive: at most this many bytes of them, the least recently
// used forgotten first (the packed weights of a 7B-parameter layer stack would not fit; a BERT-sized
// model's do).
constexpr size_t kMemoBytes = size_t(512) << 20;

struct Input {
  uint64_t id, writes;
  bool operator==(const Input&) const = default;
};

struct Entry {
  UOpPtr ast;                  // (held: ASTs are hash-consed, the pointer is the key)
  std::vector<Input> inputs;   // in the kernel's buffer order
  std::vector<std::weak_ptr<Buffer>> alive;  // the inputs: an entry of a freed input is dead
  std::shared_ptr<Buffer> output;
  uint64_t output_writes;      // the output's count when remembered: another write invalidates it
};

struct Memo {
  std::mutex mutex;
  std::list<Entry> entries;  // most recently used first
  size_t bytes = 0;
  std::atomic<int64_t> reused{0};

  void forget(std::list<Entry>::iterator it) {
    bytes -= it->output->nbytes();
    entries.erase(it);
  }
  void forget_dead() {
    for (auto it = entries.begin(); it != entries.end();) {
      auto next = std::next(it);
      bool dead = it->output->writes() != it->output_writes;
      for (const auto& w : it->alive) dead = dead || w.expired();
      if (dead) forget(it);
      it = next;
    }
  }
};

Memo& memo() {
  static Memo* m = new Memo;  // (never destroyed: buffers may outlive static destruction order)
  return *m;
}

std::vector<Input> inputs_of(const std::vector<std::shared_ptr<Buffer>>& buffers) {
  std::vector<Input> in;
  for (size_t k = 1; k < buffers.size(); k++) in.push_back({buffers[k]->id(), buffers[k]->writes()});
  return in;
}

std::shared_ptr<Buffer> realized_storage(const UOpPtr& node) {
  const auto& ref = static_cast<const BufferRef&>(node->arg.as_object());
  std::lock_guard lock(ref.state->mutex);
  // (a random tensor's refill, in a TinyJit replay, is a host copy: it counts as a write)
  return ref.state->pending_host_data.empty() ? ref.state->storage : nullptr;
}

} // namespace

bool is_layout_copy(const UOpPtr& ast) {
  if (ast->op != Ops::SINK || ast->src.size() != 1 || ast->src[0]->op != Ops::STORE) return false;
  for (const UOp* u : ast->toposort()) {
    switch (u->op) {
    case Ops::SINK:
    case Ops::STORE:
    case Ops::LOAD:
    case Ops::DEFINE_GLOBAL: break;
    case Ops::VIEW:
      for (const View& v : u->arg.object<ShapeTracker>()->views())
        if (v.mask) return false;  // padding: a per-call input's, not a weight's layout
      break;
    default: return false;
    }
  }
  return true;
}

LayoutReuse::LayoutReuse(const Schedule& schedule) : reusable_(schedule.items.size(), false) {
  const bool timed_or_watched = ExecListenerScope::current() || execution_observer() || options().beam > 0 || options().compare_noopt;
  if (timed_or_watched || !options().layout_memo) return;
  std::unordered_set<const UOp*> written, requested;  // in this schedule; its outputs
  for (const UOpPtr& o : schedule.outputs)
    if (UOpPtr b = realized_buffer(o)) requested.insert(b.get());
  for (size_t i = 0; i < schedule.items.size(); i++) {
    const ScheduleItem& item = schedule.items[i];
    bool ok = item.ast->op != Ops::COPY && item.bufs.size() >= 2 && !requested.count(item.bufs[0].get()) &&
              runs_on_host_cores(static_cast<const BufferRef&>(item.bufs[0]->arg.as_object()).device) && is_layout_copy(item.ast);
    for (size_t k = 1; ok && k < item.bufs.size(); k++)
      ok = !written.count(item.bufs[k].get()) && realized_storage(item.bufs[k]) != nullptr;
    if (ok) {
      reusable_[i] = true;
      outputs_.insert(item.bufs[0].get());
    }
    written.insert(item.bufs[0].get());
  }
}

bool LayoutReuse::reuse(size_t i, const ScheduleItem& item) {
  if (!reusable_[i]) return false;
  std::vector<std::shared_ptr<Buffer>> buffers{nullptr};
  for (size_t k = 1; k < item.bufs.size(); k++) {
    buffers.push_back(realized_storage(item.bufs[k]));
    if (!buffers.back()) return false;
  }
  const std::vector<Input> in = inputs_of(buffers);
  Memo& m = memo();
  std::lock_guard lock(m.mutex);
  for (auto it = m.entries.begin(); it != m.entries.end(); ++it) {
    if (it->ast != item.ast || it->inputs != in || it->output->writes() != it->output_writes) continue;
    // held by a tensor of an earlier schedule still alive: binding it here too would make the two one
    // buffer, and a write to either change both
    if (it->output.use_count() > 1) continue;
    const auto& ref = static_cast<const BufferRef&>(item.bufs[0]->arg.as_object());
    {
      std::lock_guard ref_lock(ref.state->mutex);
      ref.state->storage = it->output;
    }
    m.entries.splice(m.entries.begin(), m.entries, it);
    m.reused++;
    if (options().debug >= 2)
      std::cout << "    " << ref.device << " layout copy not run: reused from an earlier schedule (" << ref.size << " x "
                << ref.dtype.short_name() << ", its inputs unchanged)\n";
    return true;
  }
  return false;
}

void LayoutReuse::ran(size_t i, const ScheduleItem& item, const std::vector<std::shared_ptr<Buffer>>& buffers) {
  if (!reusable_[i] || buffers.empty() || buffers[0]->nbytes() > kMemoBytes) return;
  Entry e{item.ast, inputs_of(buffers), {}, buffers[0], buffers[0]->writes()};
  for (size_t k = 1; k < buffers.size(); k++) e.alive.push_back(buffers[k]);
  Memo& m = memo();
  std::lock_guard lock(m.mutex);
  m.forget_dead();
  m.bytes += e.output->nbytes();
  m.entries.push_front(std::move(e));
  while (m.bytes > kMemoBytes) m.forget(std::prev(m.entries.end()));
}

void clear_layout_memo() {
  Memo& m = memo();
  std::lock_guard lock(m.mutex);
  m.entries.clear();
  m.bytes = 0;
}

int64_t layout_copies_reused() { return memo().reused.load(); }

} // namespace loupe
