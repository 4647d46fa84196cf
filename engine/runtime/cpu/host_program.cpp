#include "runtime/cpu/host_program.h"

namespace loupe {

HostProgram::HostProgram(RenderedKernel kernel, HostEntryFn entry, CodeMap code, std::shared_ptr<void> library)
    : Program(std::move(kernel)), library_(std::move(library)), entry_(entry) {
  set_code_map(std::move(code));
}

double HostProgram::run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
                        const LaunchDims&, bool) {
  check_args(bufs.size(), vars);
  std::vector<long long> v(vars.begin(), vars.end());
  void** b = const_cast<void**>(bufs.data());
  const long long* vp = v.data();
  HostEntryFn fn = entry_;
  return split_.launch(kernel(), global[0], [=](int64_t s, int64_t e) { fn(b, vp, s, e); });
}

} // namespace loupe
