#include "profile/profiledata.h"

#include <QColor>
#include <QHash>
#include <QStringList>

#include <algorithm>

namespace loupe::views {

std::shared_ptr<const ProfileData> ProfileData::build(ProfileInput input) {
  auto d = std::make_shared<ProfileData>();
  d->input_ = std::move(input);
  const QList<ProfileRun>& runs = d->input_.runs;
  QHash<qint64, int> byId;
  QHash<QString, int> byNameDevice; // for kernels without an id
  QHash<QString, int> laneOf;
  std::vector<VariableRanges> ranges;  // per kernel
  d->runLane_.resize(size_t(runs.size()));
  d->runKernel_.resize(size_t(runs.size()));
  for (int i = 0; i < runs.size(); ++i) {
    const ProfileRun& r = runs[i];
    auto lane = laneOf.constFind(r.device);
    if (lane == laneOf.constEnd()) {
      lane = laneOf.insert(r.device, int(d->devices_.size()));
      d->devices_ << r.device;
      d->laneRuns_.emplace_back();
      d->laneMaxDuration_.push_back(0);
    }
    d->runLane_[size_t(i)] = *lane;
    d->laneRuns_[size_t(*lane)].push_back(i);
    d->laneMaxDuration_[size_t(*lane)] = std::max(d->laneMaxDuration_[size_t(*lane)], r.durationNs);

    int k;
    if (r.kernelId >= 0) {
      auto it = byId.constFind(r.kernelId);
      k = it != byId.constEnd() ? *it : -1;
      if (k < 0) byId.insert(r.kernelId, k = int(d->kernels_.size()));
    } else {
      const QString key = r.device + u'\n' + r.name;
      auto it = byNameDevice.constFind(key);
      k = it != byNameDevice.constEnd() ? *it : -1;
      if (k < 0) byNameDevice.insert(key, k = int(d->kernels_.size()));
    }
    if (k == int(d->kernels_.size())) {
      KernelStats s;
      s.kernelId = r.kernelId;
      s.name = r.name;
      s.device = r.device;
      s.opts = r.opts;
      d->kernels_.push_back(s);
    }
    KernelStats& s = d->kernels_[size_t(k)];
    ranges.resize(d->kernels_.size());
    for (const auto& [name, value] : r.vars) ranges[size_t(k)].add(name, value);
    ++s.runs;
    s.totalNs += std::max<qint64>(0, r.durationNs);
    s.flops += r.flops;
    s.bytes += r.bytes;
    d->runKernel_[size_t(i)] = k;
    d->total_ += std::max<qint64>(0, r.durationNs);
    const qint64 end = r.startNs + std::max<qint64>(0, r.durationNs);
    d->start_ = i == 0 ? r.startNs : std::min(d->start_, r.startNs);
    d->end_ = i == 0 ? end : std::max(d->end_, end);
  }
  bool any = !runs.isEmpty();
  auto cover = [&](qint64 start, qint64 duration) {  // the time span covers TinyJit calls and compiles too
    d->start_ = any ? std::min(d->start_, start) : start;
    d->end_ = any ? std::max(d->end_, start + duration) : start + duration;
    any = true;
  };
  for (const JitCall& j : d->input_.jitCalls) cover(j.startNs, j.durationNs);
  for (const CompileSpan& c : d->input_.compileSpans) cover(c.startNs, c.durationNs);
  for (const TensorCallSpan& c : d->input_.tensorCalls) cover(c.startNs, c.durationNs);
  for (KernelStats& s : d->kernels_) s.share = d->total_ > 0 ? double(s.totalNs) / double(d->total_) : 0;
  for (size_t k = 0; k < d->kernels_.size() && k < ranges.size(); k++) d->kernels_[k].variables = ranges[k].text();
  for (auto& lane : d->laneRuns_)
    std::stable_sort(lane.begin(), lane.end(), [&](int a, int b) { return runs[a].startNs < runs[b].startNs; });
  return d;
}

int ProfileData::kernelIndexForId(qint64 kernelId) const {
  if (kernelId < 0) return -1;
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i].kernelId == kernelId) return int(i);
  return -1;
}

int ProfileData::kernelIndexForName(const QString& name, const QString& device) const {
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i].name == name && (device.isEmpty() || kernels_[i].device == device)) return int(i);
  return -1;
}

const DevicePeak* ProfileData::peakFor(const QString& device) const {
  for (const DevicePeak& p : input_.peaks)
    if (p.device == device) return &p;
  return nullptr;
}

QColor kernelColour(const QString& name, bool dark) {
  // FNV-1a over the name: the same kernel gets the same colour in every run of the app.
  quint32 h = 2166136261u;
  for (QChar c : name) h = (h ^ c.unicode()) * 16777619u;
  const int hue = int(h % 360);
  return dark ? QColor::fromHsl(hue, 120, 105) : QColor::fromHsl(hue, 150, 178);
}

QColor deviceColour(int index, bool dark) {
  static const QRgb light[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd, 0xff7f0e, 0x8c564b};
  static const QRgb darkish[] = {0x6cb4ff, 0xff7b72, 0x7ee787, 0xd2a8ff, 0xffa657, 0xe3b341};
  const int n = int(std::size(light));
  return QColor(dark ? darkish[index % n] : light[index % n]);
}

QColor jitCallColour(bool capture, bool dark) {
  if (capture) return dark ? QColor(0xff, 0xa6, 0x57) : QColor(0xf0, 0x8a, 0x24);
  return dark ? QColor(0x7e, 0xe7, 0x87) : QColor(0x3f, 0xa3, 0x4d);
}

QString formatRunVars(const QList<QPair<QString, qint64>>& vars) {
  QStringList parts;
  for (const auto& [name, value] : vars) parts << QStringLiteral("%1=%2").arg(name).arg(value);
  return parts.join(QStringLiteral(", "));
}

void VariableRanges::add(const QString& name, qint64 value) {
  for (auto& [n, range] : ranges_)
    if (n == name) {
      range = {std::min(range.first, value), std::max(range.second, value)};
      return;
    }
  ranges_.append({name, {value, value}});
}

QString VariableRanges::text() const {
  QStringList parts;
  for (const auto& [name, range] : ranges_)
    parts << (range.first == range.second ? QStringLiteral("%1=%2").arg(name).arg(range.first)
                                          : QStringLiteral("%1 %2..%3").arg(name).arg(range.first).arg(range.second));
  return parts.join(QStringLiteral(", "));
}

} // namespace loupe::views
