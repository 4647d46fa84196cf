// Naming a window's sampled instruction pointers: each inside the kernel's code as (function, offset),
// each outside it by the symbol the dynamic loader knows at that address.
#pragma once
#include <string>

#include "observe/kernel_samples.h"
#include "runtime/profile/code_map.h"
#include "runtime/profile/hotspot_sampler.h"

namespace loupe {

// One window's samples attributed to a kernel's code.
KernelSamples attribute_samples(const RawSamples& raw, const CodeMap& code, const std::string& clock, int64_t period);

} // namespace loupe
