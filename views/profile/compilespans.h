// The compiler's work on the timeline (ProfileInput::compileSpans): the bars of the "Compile" row and
// what hovering one says.
#pragma once
#include <QString>

#include <span>
#include <vector>

#include "profile/profiledata.h"
#include "profile/spanrow.h"

namespace loupe::views {

std::vector<SpanBar> compileSpanBars(std::span<const CompileSpan> spans, bool dark);
// Rich text: what was compiled, how long it took, when (relative to traceStartNs), its passes.
QString compileSpanTooltip(const CompileSpan& span, qint64 traceStartNs);

} // namespace loupe::views
