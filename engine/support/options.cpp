#include "support/options.h"

#include <cstdint>
#include <cstdlib>

namespace loupe {

namespace {
int64_t env_int64(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoll(v, nullptr, 10);
}
int env_int(const char* name, int fallback) { return static_cast<int>(env_int64(name, fallback)); }
std::string env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
} // namespace

Options Options::from_env() {
  Options o;
  o.debug = env_int("DEBUG", 0);
  o.noopt = env_int("NOOPT", 0) != 0;
  o.beam = env_int("BEAM", 0);
  o.device = env_str("DEVICE");
  o.viz = env_int("VIZ", 0) != 0;
  o.trace_path = env_str("LOUPE_TRACE");
  o.threads = env_int("THREADS", 0);
  o.compare_noopt = env_int("COMPARE_NOOPT", 0) != 0;
  o.hotspots = env_int("HOTSPOTS", 0) != 0;
  o.gpu_metrics = env_int("GPU_METRICS", 0) != 0;
  o.training = env_int("TRAINING", 0) != 0;
  o.trace_inputs = env_int("TRACE_INPUTS", o.trace_inputs);
  o.trace_input_digests = env_int64("TRACE_INPUT_DIGESTS", o.trace_input_digests);
  o.trace_inputs_of = env_str("TRACE_INPUTS_OF");
  o.no_memory_planner = env_int("NO_MEMORY_PLANNER", 0) != 0;
  o.jit = env_int("JIT", 1);
  o.schedule_cache = env_int("SCACHE", 1) != 0;
  o.layout_memo = env_int("LAYOUT_MEMO", 1) != 0;
  return o;
}

Options& options() {
  static Options opts = Options::from_env();
  return opts;
}

} // namespace loupe
