#include "profile/profileformat.h"

#include <algorithm>
#include <cmath>

namespace loupe::views {

namespace {

const QString kUnknown = QStringLiteral("—");

// Three significant digits: 1.23, 12.3, 123.
QString sig3(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 2;
  return QString::number(v, 'f', decimals);
}

QString scaled(double v, const char* const units[], int count) {
  if (!std::isfinite(v)) return kUnknown;
  int u = 0;
  // Round first so 999.96 shows as "1.00 k" rather than "1000".
  while (u + 1 < count && std::fabs(v) >= 999.5) v /= 1000, ++u;
  return sig3(v) + u' ' + QLatin1String(units[u]);
}

} // namespace

QString formatSignificant(double value) { return std::isfinite(value) ? sig3(value) : kUnknown; }

QString formatInColumnUnit(double value) {
  if (!std::isfinite(value)) return kUnknown;
  const double a = std::fabs(value);
  if (a == 0 || a >= 1) return sig3(value);
  // below 1: as many decimals as three significant digits need (0.00523), at most 9
  const int decimals = std::min(9, 2 - int(std::floor(std::log10(a))));
  return QString::number(value, 'f', decimals);
}

QString formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return kUnknown;
  if (seconds == 0) return QStringLiteral("0 s");
  static const char* const units[] = {"ns", "µs", "ms", "s"};
  double v = seconds * 1e9;
  int u = 0;
  while (u < 3 && v >= 999.5) v /= 1000, ++u;
  return sig3(v) + u' ' + QString::fromUtf8(units[u]);
}

QString formatGflops(double gflops) {
  static const char* const units[] = {"GFLOPS", "TFLOPS", "PFLOPS"};
  if (std::isfinite(gflops) && gflops > 0 && gflops < 0.01)
    return QString::number(gflops * 1000, 'f', 2) + QStringLiteral(" MFLOPS");
  return scaled(gflops, units, 3);
}

QString formatGbs(double gbs) {
  static const char* const units[] = {"GB/s", "TB/s", "PB/s"};
  if (std::isfinite(gbs) && gbs > 0 && gbs < 0.01) return QString::number(gbs * 1000, 'f', 2) + QStringLiteral(" MB/s");
  return scaled(gbs, units, 3);
}

QString formatPercent(double fraction) {
  if (!std::isfinite(fraction)) return kUnknown;
  return QString::number(fraction * 100, 'f', 1) + QStringLiteral(" %");
}

QString formatCount(double value) {
  static const char* const units[] = {"", "k", "M", "G", "T", "P"};
  if (!std::isfinite(value)) return kUnknown;
  if (std::fabs(value) < 999.5) return QString::number(value, 'f', 0);
  return scaled(value, units, 6);
}

QString formatBytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  if (!std::isfinite(bytes) || bytes < 0) return kUnknown;
  if (bytes < 999.5) return QString::number(bytes, 'f', 0) + QStringLiteral(" B");
  return scaled(bytes, units, 5);
}

} // namespace loupe::views
