#include "memory/memorydata.h"

#include <QHash>

#include <algorithm>

namespace loupe::views {

qint64 MemoryBuffer::offsetAt(qint64 t) const {
  auto it = std::upper_bound(offsets.begin(), offsets.end(), t, [](qint64 v, const auto& s) { return v < s.first; });
  return it == offsets.begin() ? offsets.front().second : std::prev(it)->second;
}

std::shared_ptr<MemoryData> MemoryData::build(const std::vector<loupe::TraceEvent>& events) {
  auto d = std::make_shared<MemoryData>();
  std::vector<const loupe::TraceEvent*> order;
  for (const loupe::TraceEvent& e : events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });

  QHash<QString, int> laneOf;
  QHash<qint64, int> bufferOf;   // live or dead, by id
  std::vector<std::vector<int>> live;  // per lane, in allocation order
  std::vector<std::pair<loupe::MemoryShare, bool>> plans;  // (row, of a schedule)
  bool first = true;
  auto extend = [&](qint64 s, qint64 e) {
    d->start_ = first ? s : std::min(d->start_, s);
    d->end_ = first ? e : std::max(d->end_, e);
    first = false;
  };
  auto recordInUse = [&](MemoryLane& lane, qint64 t, qint64 bytes) {
    lane.inUse.push_back({t, bytes});  // several at one time keep their order: a peak between them is real
    if (bytes > lane.peakBytes) lane.peakBytes = bytes, lane.peakNs = t;
  };

  for (const loupe::TraceEvent* e : order) {
    const QString device = QString::fromStdString(e->device);
    if (e->kind == "alloc") {
      auto l = laneOf.constFind(device);
      if (l == laneOf.constEnd()) {
        l = laneOf.insert(device, int(d->lanes_.size()));
        d->lanes_.push_back({device, {}, {}, 0, 0});
        live.emplace_back();
      }
      MemoryLane& lane = d->lanes_[size_t(*l)];
      const qint64 top = lane.inUse.empty() ? 0 : lane.inUse.back().second;
      MemoryBuffer b;
      b.id = e->buffer;
      b.device = device;
      b.what = QString::fromStdString(e->name);
      b.bytes = e->bytes;
      b.startNs = b.endNs = e->start_ns;
      b.lane = *l;
      b.offsets.push_back({e->start_ns, top});
      const int index = int(d->buffers_.size());
      bufferOf.insert(b.id, index);
      d->buffers_.push_back(std::move(b));
      lane.buffers.push_back(index);
      live[size_t(*l)].push_back(index);
      recordInUse(lane, e->start_ns, top + e->bytes);
      extend(e->start_ns, e->start_ns);
    } else if (e->kind == "free") {
      const int index = bufferOf.value(e->buffer, -1);
      if (index < 0 || d->buffers_[size_t(index)].freed) continue;  // allocated before the trace began
      MemoryBuffer& b = d->buffers_[size_t(index)];
      b.freed = true;
      b.endNs = e->start_ns;
      std::vector<int>& stack = live[size_t(b.lane)];
      auto at = std::find(stack.begin(), stack.end(), index);
      for (auto above = std::next(at); above != stack.end(); ++above) {  // the buffers above move down
        MemoryBuffer& m = d->buffers_[size_t(*above)];
        const qint64 now = m.offsets.back().second - b.bytes;
        if (m.offsets.back().first == e->start_ns) m.offsets.back().second = now;
        else m.offsets.push_back({e->start_ns, now});
      }
      stack.erase(at);
      MemoryLane& lane = d->lanes_[size_t(b.lane)];
      recordInUse(lane, e->start_ns, lane.inUse.back().second - b.bytes);
      extend(e->start_ns, e->start_ns);
    } else if (e->kind == "kernel") {
      const int run = int(d->runs_.size());
      d->runs_.push_back({e->id, e->kernel_id, QString::fromStdString(e->name), device, e->start_ns, e->duration_ns});
      for (int64_t id : e->writes)
        if (int i = bufferOf.value(id, -1); i >= 0) d->buffers_[size_t(i)].writers.push_back(run);
      for (int64_t id : e->reads)
        if (int i = bufferOf.value(id, -1); i >= 0) d->buffers_[size_t(i)].readers.push_back(run);
      extend(e->start_ns, e->start_ns + std::max<qint64>(0, e->duration_ns));
    } else if (e->kind == "jit_capture" || e->kind == "jit_replay") {
      JitCall s;
      s.capture = e->kind == "jit_capture";
      s.name = QString::fromStdString(e->name);
      s.device = device;
      s.startNs = e->start_ns;
      s.durationNs = std::max<qint64>(0, e->duration_ns);
      s.kernels = e->args;
      if (s.capture) s.unplannedBytes = e->mem, s.plannedBytes = e->lds;
      d->spans_.push_back(s);
      extend(s.startNs, s.startNs + s.durationNs);
      for (const loupe::MemoryShare& m : e->plan) plans.push_back({m, false});
    } else if (e->kind == "memory_plan") {  // a schedule's sharing
      for (const loupe::MemoryShare& m : e->plan) plans.push_back({m, true});
    }
  }
  // After the loop: a capture's span starts before the buffers it planned were allocated.
  for (const auto& [m, ofSchedule] : plans) {
    const int shared = bufferOf.value(m.shared, -1);
    if (shared < 0) continue;
    MemoryBuffer& s = d->buffers_[size_t(shared)];
    s.serves.push_back({m.buffer, int(m.first_kernel), int(m.last_kernel), ofSchedule});
    const int planned = bufferOf.value(m.buffer, -1);  // a captured step's buffers had their own
    if (planned < 0) continue;
    MemoryBuffer& p = d->buffers_[size_t(planned)];
    p.sharedAllocation = m.shared;
    p.firstKernel = int(m.first_kernel);
    p.lastKernel = int(m.last_kernel);
  }
  for (MemoryBuffer& b : d->buffers_)
    if (!b.freed) b.endNs = d->end_;
  d->byId_.reserve(d->buffers_.size());
  for (size_t i = 0; i < d->buffers_.size(); ++i) d->byId_.push_back({d->buffers_[i].id, int(i)});
  std::sort(d->byId_.begin(), d->byId_.end());
  return d;
}

int MemoryData::bufferIndex(qint64 bufferId) const {
  auto it = std::lower_bound(byId_.begin(), byId_.end(), std::pair<qint64, int>{bufferId, -1});
  return it != byId_.end() && it->first == bufferId ? it->second : -1;
}

int MemoryData::bufferAt(int lane, qint64 t, double bytes) const {
  if (lane < 0 || lane >= int(lanes_.size()) || bytes < 0) return -1;
  for (int i : lanes_[size_t(lane)].buffers) {
    const MemoryBuffer& b = buffers_[size_t(i)];
    if (t < b.startNs || (b.freed ? t >= b.endNs : t > b.endNs)) continue;  // freed at t: gone at t
    const double off = double(b.offsetAt(t));
    if (bytes >= off && bytes < off + double(b.bytes)) return i;
  }
  return -1;
}

qint64 MemoryData::inUseAt(int lane, qint64 t) const {
  if (lane < 0 || lane >= int(lanes_.size())) return 0;
  const auto& v = lanes_[size_t(lane)].inUse;
  auto it = std::upper_bound(v.begin(), v.end(), t, [](qint64 x, const auto& s) { return x < s.first; });
  return it == v.begin() ? 0 : std::prev(it)->second;
}

} // namespace loupe::views
