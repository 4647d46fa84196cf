#include "runtime/counters.h"

namespace loupe {

GlobalCounters& global_counters() {
  static GlobalCounters counters;
  return counters;
}

} // namespace loupe
