// Work the user does not wait for (dot refining a picture already shown, a kernel compiled again for
// its machine code, hot spots matched to a listing) runs on worker threads beside the GUI thread. On a
// machine with two busy cores such a thread took as much CPU as the GUI thread while a pass opened, and
// input waited 90-250 ms. Lowering the worker's priority leaves the GUI thread the core it needs.
#pragma once

namespace loupe::views {

// Lowers the calling thread's scheduling priority for good (Linux: nice +10 for this thread, which
// the processes it starts inherit; elsewhere QThread::LowPriority). Cheap to call at every job's start.
void lowerThreadPriority();

} // namespace loupe::views
