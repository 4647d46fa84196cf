// TinyJit's calls (captures and replays) as a row above a time axis: painting, hit testing and the
// tooltip, shared by the Profile's timeline and the Memory chart so both show them alike.
#pragma once
#include <QPalette>
#include <QRectF>
#include <QString>

#include <span>

#include "profile/profiledata.h"
#include "profile/timelinemath.h"

class QPainter;

namespace loupe::views {

// The row's label sits in [row.left, labelWidth); the calls are drawn right of it.
void paintJitCallRow(QPainter& p, const QRectF& row, double labelWidth, const TimeLineMath& math,
                     std::span<const JitCall> calls, const QPalette& palette);
// The call drawn at x (within a few pixels), or -1.
int jitCallAtX(std::span<const JitCall> calls, const TimeLineMath& math, double x);
// Rich text: what the call did, how long it took, when (relative to traceStartNs).
QString jitCallTooltip(const JitCall& call, qint64 traceStartNs);

} // namespace loupe::views
