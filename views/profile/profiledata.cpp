#include "profile/profiledata.h"

#include <QColor>
#include <QHash>
#include <QStringList>

#include <algorithm>

std::shared_ptr<const ProfileData> ProfileData::build(ProfileInput input) {
  auto d = std::make_shared<ProfileData>();
  d->m_input = std::move(input);
  const QList<ProfileRun>& runs = d->m_input.runs;
  QHash<qint64, int> byId;
  QHash<QString, int> byNameDevice; // for kernels without an id
  QHash<QString, int> laneOf;
  std::vector<VariableRanges> ranges;  // per kernel
  d->m_runLane.resize(size_t(runs.size()));
  d->m_runKernel.resize(size_t(runs.size()));
  for (int i = 0; i < runs.size(); ++i) {
    const ProfileRun& r = runs[i];
    auto lane = laneOf.constFind(r.device);
    if (lane == laneOf.constEnd()) {
      lane = laneOf.insert(r.device, int(d->m_devices.size()));
      d->m_devices << r.device;
      d->m_laneRuns.emplace_back();
      d->m_laneMaxDuration.push_back(0);
    }
    d->m_runLane[size_t(i)] = *lane;
    d->m_laneRuns[size_t(*lane)].push_back(i);
    d->m_laneMaxDuration[size_t(*lane)] = std::max(d->m_laneMaxDuration[size_t(*lane)], r.durationNs);

    int k;
    if (r.kernelId >= 0) {
      auto it = byId.constFind(r.kernelId);
      k = it != byId.constEnd() ? *it : -1;
      if (k < 0) byId.insert(r.kernelId, k = int(d->m_kernels.size()));
    } else {
      const QString key = r.device + u'\n' + r.name;
      auto it = byNameDevice.constFind(key);
      k = it != byNameDevice.constEnd() ? *it : -1;
      if (k < 0) byNameDevice.insert(key, k = int(d->m_kernels.size()));
    }
    if (k == int(d->m_kernels.size())) {
      KernelStats s;
      s.kernelId = r.kernelId;
      s.name = r.name;
      s.device = r.device;
      s.opts = r.opts;
      d->m_kernels.push_back(s);
    }
    KernelStats& s = d->m_kernels[size_t(k)];
    ranges.resize(d->m_kernels.size());
    for (const auto& [name, value] : r.vars) ranges[size_t(k)].add(name, value);
    ++s.runs;
    s.totalNs += std::max<qint64>(0, r.durationNs);
    s.flops += r.flops;
    s.bytes += r.bytes;
    d->m_runKernel[size_t(i)] = k;
    d->m_total += std::max<qint64>(0, r.durationNs);
    const qint64 end = r.startNs + std::max<qint64>(0, r.durationNs);
    d->m_start = i == 0 ? r.startNs : std::min(d->m_start, r.startNs);
    d->m_end = i == 0 ? end : std::max(d->m_end, end);
  }
  bool any = !runs.isEmpty();
  auto cover = [&](qint64 start, qint64 duration) {  // the time span covers TinyJit calls and compiles too
    d->m_start = any ? std::min(d->m_start, start) : start;
    d->m_end = any ? std::max(d->m_end, start + duration) : start + duration;
    any = true;
  };
  for (const JitCall& j : d->m_input.jitCalls) cover(j.startNs, j.durationNs);
  for (const CompileSpan& c : d->m_input.compileSpans) cover(c.startNs, c.durationNs);
  for (const TensorCallSpan& c : d->m_input.tensorCalls) cover(c.startNs, c.durationNs);
  for (KernelStats& s : d->m_kernels) s.share = d->m_total > 0 ? double(s.totalNs) / double(d->m_total) : 0;
  for (size_t k = 0; k < d->m_kernels.size() && k < ranges.size(); k++) d->m_kernels[k].variables = ranges[k].text();
  for (auto& lane : d->m_laneRuns)
    std::stable_sort(lane.begin(), lane.end(), [&](int a, int b) { return runs[a].startNs < runs[b].startNs; });
  return d;
}

int ProfileData::kernelIndexForId(qint64 kernelId) const {
  if (kernelId < 0) return -1;
  for (size_t i = 0; i < m_kernels.size(); ++i)
    if (m_kernels[i].kernelId == kernelId) return int(i);
  return -1;
}

int ProfileData::kernelIndexForName(const QString& name, const QString& device) const {
  for (size_t i = 0; i < m_kernels.size(); ++i)
    if (m_kernels[i].name == name && (device.isEmpty() || m_kernels[i].device == device)) return int(i);
  return -1;
}

const DevicePeak* ProfileData::peakFor(const QString& device) const {
  for (const DevicePeak& p : m_input.peaks)
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
  for (auto& [n, range] : m_ranges)
    if (n == name) {
      range = {std::min(range.first, value), std::max(range.second, value)};
      return;
    }
  m_ranges.append({name, {value, value}});
}

QString VariableRanges::text() const {
  QStringList parts;
  for (const auto& [name, range] : m_ranges)
    parts << (range.first == range.second ? QStringLiteral("%1=%2").arg(name).arg(range.first)
                                          : QStringLiteral("%1 %2..%3").arg(name).arg(range.first).arg(range.second));
  return parts.join(QStringLiteral(", "));
}
