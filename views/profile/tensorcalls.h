// The user's Tensor calls on the timeline (ProfileInput::tensorCalls): the bars of the "Python" row,
// so the time a program spends in its own calls shows beside the compiler's and the kernels', and what
// hovering one says. Most calls are lazy and take microseconds; the ones that realize (numpy, item,
// backward, an optimizer's step) span the compiling and the kernels they caused.
#pragma once
#include <QString>

#include <span>
#include <vector>

#include "profile/profiledata.h"
#include "profile/spanrow.h"

namespace loupe::views {

std::vector<SpanBar> tensorCallBars(std::span<const TensorCallSpan> calls, bool dark);
// Rich text: the op, the line that called it, how long it took and when (relative to traceStartNs).
QString tensorCallTooltip(const TensorCallSpan& call, qint64 traceStartNs);

} // namespace loupe::views
