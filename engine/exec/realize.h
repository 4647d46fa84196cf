// Running a schedule: its memory plan, each kernel compiled (exec/kernel_compiler.h), its buffers
// allocated (literal data copied in on first use), launched and timed, counted, and reported (DEBUG
// lines, trace records).
#pragma once
#include <memory>
#include <string>

#include "schedule/schedule.h"
#include "exec/exec_item.h"  // debug_line, ExecListener

namespace loupe {

class Buffer;

void run_schedule(const Schedule& schedule);
// The scheduler's questions answered by the devices themselves (which run a thread per element).
ScheduleOptions device_schedule_options();

// The runtime storage behind a tensor-level BUFFER node, allocated (and filled with literal data) on
// first use.
std::shared_ptr<Buffer> buffer_storage(const UOpPtr& buffer_node);
// The BUFFER node a realized tensor's graph reads (through the reshapes that give it its shape), or
// null when the graph is not a realized buffer.
UOpPtr realized_buffer(const UOpPtr& u);


} // namespace loupe
