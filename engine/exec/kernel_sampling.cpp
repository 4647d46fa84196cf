#include "exec/kernel_sampling.h"

#include <mutex>
#include <unistd.h>

#include "runtime/cpu/thread_pool.h"
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

void add_to_sums(const RenderedKernel& k, const KernelSamples& samples) {
  SampledSums& s = sums();
  std::lock_guard lock(s.mutex);
  for (SampledKernel& known : s.kernels)
    if (known.name == k.name && known.device == k.device && known.source == k.source) {
      known.samples += samples;
      return;
    }
  s.kernels.push_back({k.name, k.device, k.source, samples});
}

} // namespace

SampledLaunch::SampledLaunch(const Program& program) : program_(program) {
  if (!options().hotspots || program.code_map().empty()) return;
  std::vector<int> threads = cpu_thread_pool()->worker_thread_ids();
  threads.push_back(static_cast<int>(gettid()));
  HotspotSampler::instance().begin(threads);
  sampling_ = true;
}

SampledLaunch::~SampledLaunch() {
  if (sampling_) HotspotSampler::instance().end();
}

std::optional<KernelSamples> SampledLaunch::finish() {
  if (!sampling_) return std::nullopt;
  sampling_ = false;
  HotspotSampler& sampler = HotspotSampler::instance();
  KernelSamples samples = attribute_samples(sampler.end(), program_.code_map(), sampler.clock(), sampler.period());
  add_to_sums(program_.kernel(), samples);
  return samples;
}

std::vector<SampledKernel> take_sampled_kernels() {
  SampledSums& s = sums();
  std::lock_guard lock(s.mutex);
  return std::exchange(s.kernels, {});
}

} // namespace loupe
