// How many times Ctrl-C has stopped work in this process (check_interrupt threw). Only the thread that
// may ask Python about signals sees the Ctrl-C itself; work on other threads (a compile on the CPU pool)
// stops when this count moves past the value it started with.
#pragma once
#include <cstdint>

namespace loupe {

uint64_t interrupt_epoch();
void note_interrupt();  // called where an interruption is raised

} // namespace loupe
