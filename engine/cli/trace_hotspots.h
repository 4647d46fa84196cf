// loupe-cli trace FILE --hotspots [--kernel NAME|ID] [--json]: where sampled kernels spent their time
// (a trace recorded with `loupe-cli run --hotspots`). Without a kernel: the sampled kernels, most samples
// first, each with its hottest source line. With one: its source annotated as `perf annotate` does,
// each hot line followed by the UOps it computes and the user's Python lines they came from.
#pragma once
#include <string>

#include "trace/trace_reader.h"

namespace loupe::cli {

struct HotspotsRequest {
  std::string kernel;  // name or id; empty: every sampled kernel
  bool json = false;
};

int trace_hotspots(TraceReader& reader, const HotspotsRequest& req);

} // namespace loupe::cli
