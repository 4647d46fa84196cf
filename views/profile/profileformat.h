// Text for times and rates, shared by the profile and compare panels: three significant digits
// with a unit that fits ("21.0 µs", "1.25 ms", "25.3 GFLOPS", "1.20 TB/s"); "—" for unknown values.
#pragma once
#include <QString>

namespace loupe::views {

QString formatDuration(double seconds);
QString formatGflops(double gflops);
QString formatGbs(double gbs);
QString formatPercent(double fraction); // 0.123 -> "12.3 %"
QString formatCount(double value);      // 1234567 -> "1.23 M"
QString formatBytes(double bytes);      // 1234567 -> "1.23 MB" (decimal units, as GB/s), 512 -> "512 B"
// Three significant digits, no unit; for axis labels and plain numbers.
QString formatSignificant(double value);
// A rate in the unit its column's header names (GFLOPS, GB/s), never switching unit: three
// significant digits however small (0.00523, 0.25, 25.3, 1234); "—" when unknown.
QString formatInColumnUnit(double value);

} // namespace loupe::views
