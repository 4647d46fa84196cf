// Export of a trace's timeline as Chrome trace-event JSON (opens in Perfetto and chrome://tracing):
// one process per device with a "compute" thread (kernel runs) and a "copy" thread (transfers), a
// memory counter per device from allocations, and a "compiler" process with every context and
// rewrite pass as nested spans. Times are microseconds on the trace's clock.
#pragma once
#include <string>

#include "support/json.h"
#include "trace/trace_reader.h"

namespace loupe {

json::Value chrome_trace(TraceReader& reader);
// Writes chrome_trace() to path; throws loupe::Error naming the path if it cannot be written.
void write_chrome_trace(TraceReader& reader, const std::string& path);

} // namespace loupe
