#include "exec/kernel_sampling.h"

#include <mutex>
#include <unistd.h>

#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/cuda_profiling.h"
#include "runtime/device.h"
#include "runtime/profile/hotspot_sampler.h"
#include "runtime/profile/sample_attribution.h"
#include "runtime/program.h"
#include "support/options.h"

namespace loupe {

namespace {

struct SampledSums {
  std::mutex mutex;
  std::vector<SampledKernel> kernels;  // few: one per distinct kernel sampled
};

SampledSums& sums() {
  static SampledSums s;
  return s;
}

void add_to_sums(const RenderedKernel& k, const Program::DeviceProfile& profile) {
  SampledSums& s = sums();
  std::lock_guard lock(s.mutex);
  auto add = [&](SampledKernel& known) {
    if (profile.samples) known.samples += *profile.samples;
    if (profile.metrics && !known.metrics) known.metrics = profile.metrics;
  };
  for (SampledKernel& known : s.kernels)
    if (known.name == k.name && known.device == k.device && known.source == k.source) return add(known);
  add(s.kernels.emplace_back(SampledKernel{k.name, k.device, k.source, {}, std::nullopt}));
}

} // namespace

SampledLaunch::SampledLaunch(Program& program) : program_(program) {
  if (!options().hotspots || program.code_map().empty()) return;
  std::vector<int> threads = cpu_thread_pool()->worker_thread_ids();
  threads.push_back(static_cast<int>(gettid()));
  HotspotSampler::instance().begin(threads);
  sampling_ = true;
}

SampledLaunch::~SampledLaunch() {
  if (sampling_) HotspotSampler::instance().end();
}

Program::DeviceProfile SampledLaunch::finish() {
  Program::DeviceProfile profile;
  if (sampling_) {
    sampling_ = false;
    HotspotSampler& sampler = HotspotSampler::instance();
    profile.samples = attribute_samples(sampler.end(), program_.code_map(), sampler.clock(), sampler.period());
  } else {
    profile = program_.take_device_profile();
  }
  if (profile.samples || profile.metrics) add_to_sums(program_.kernel(), profile);
  return profile;
}

bool is_cuda_device(const std::string& device) {
  const std::string d = device.empty() ? options().device : device;
  if (d.empty()) return false;  // the default device: the CPU unless DEVICE names another
  const std::string canonical = canonical_device_name(d);
  return canonical.substr(0, canonical.find(':')) == "CUDA";
}

std::optional<std::string> hotspots_unavailable(const std::string& device) {
  return is_cuda_device(device) ? cuda_profiling_unavailable() : hotspot_sampling_unavailable();
}

std::vector<SampledKernel> take_sampled_kernels() {
  SampledSums& s = sums();
  std::lock_guard lock(s.mutex);
  return std::exchange(s.kernels, {});
}

} // namespace loupe
