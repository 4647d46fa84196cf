#include "runtime/program.h"

#include "ir/eval.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "support/error.h"

namespace loupe {

void Program::check_args(size_t nbufs, const std::vector<int64_t>& vars) const {
  if (nbufs != kernel_.buffers.size())
    throw Error(cat("kernel ", kernel_.name, " takes ", kernel_.buffers.size(), " buffers, got ", nbufs));
  if (vars.size() != kernel_.vars.size())
    throw Error(cat("kernel ", kernel_.name, " takes ", kernel_.vars.size(), " variables, got ", vars.size()));
  for (size_t i = 0; i < vars.size(); i++) {
    const VarParam& v = kernel_.vars[i];
    if (vars[i] < v.min || vars[i] > v.max)
      throw Error(cat("kernel ", kernel_.name, ": variable ", v.name, " = ", vars[i], " is outside [", v.min, ", ",
                      v.max, "]"));
  }
}

LaunchDims Program::launch_global(const std::vector<int64_t>& vars) const {
  LaunchDims g = kernel_.global;
  if (!kernel_.global_sym[0] && !kernel_.global_sym[1] && !kernel_.global_sym[2]) return g;
  check_args(kernel_.buffers.size(), vars);
  VarValues values;
  for (size_t i = 0; i < vars.size(); i++) values[kernel_.vars[i].name] = vars[i];
  for (size_t d = 0; d < 3; d++)
    if (kernel_.global_sym[d]) g[d] = eval_int(kernel_.global_sym[d], values);
  return g;
}

double Program::run(const std::vector<Buffer*>& bufs, const std::vector<int64_t>& vars, bool wait) {
  check_args(bufs.size(), vars);
  std::vector<void*> handles;
  for (size_t i = 0; i < bufs.size(); i++) {
    const BufferParam& p = kernel_.buffers[i];
    Buffer* b = bufs[i];
    if (!b) throw Error(cat("kernel ", kernel_.name, ": buffer ", i, " is null"));
    if (b->device().name() != kernel_.device)
      throw Error(cat("kernel ", kernel_.name, " runs on ", kernel_.device, ", buffer ", i, " is on ", b->device().name()));
    if (b->dtype() != p.dtype.base().scalar())
      throw Error(cat("kernel ", kernel_.name, ": buffer ", i, " is ", b->dtype().short_name(), ", the kernel expects ",
                      p.dtype.base().scalar().short_name()));
    if (p.dtype.ptr_size >= 0 && b->size() < p.dtype.ptr_size)
      throw Error(cat("kernel ", kernel_.name, ": buffer ", i, " has ", b->size(), " elements, the kernel accesses ",
                      p.dtype.ptr_size));
    handles.push_back(b->handle());
    if (p.is_mutable) b->wrote();
  }
  return run(handles, vars, launch_global(vars), kernel_.local, wait);
}

} // namespace loupe
