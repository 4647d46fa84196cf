// Devices and their registry. A device bundles a renderer, an allocator and a compiler/runtime; it is
// found by name (`get_device("cpu")`, "CPU", "cpu:0" are the same device). A device kind that cannot
// start here says why ("CUDA: libcuda.so.1 not found") instead of failing later.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "runtime/allocator.h"
#include "runtime/launch_graph.h"
#include "runtime/program.h"

namespace loupe {

class Device {
public:
  explicit Device(std::string name) : name_(std::move(name)) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& name() const { return name_; }  // canonical: "CPU", "CUDA", "CUDA:1"
  virtual const Renderer& renderer() const = 0;
  virtual Allocator& allocator() = 0;
  // Compiles a kernel rendered by this device's renderer, or finds it in the memory and disk caches.
  // A compiler failure raises loupe::Error with the compiler's message and the source.
  virtual std::shared_ptr<Program> compile(const RenderedKernel& kernel) = 0;
  // Whether compile() may run on several threads at once (the executor then compiles a schedule's
  // new kernels, and each BEAM round's candidates, on every core).
  virtual bool compiles_concurrently() const { return false; }
  // Waits for queued work (a no-op on synchronous devices).
  virtual void synchronize() {}
  // These launches as one graph, or null where the device has none (then `why`, if given, says why):
  // the caller launches them one by one instead.
  virtual std::unique_ptr<LaunchGraph> make_graph(const std::vector<GraphLaunch>& launches, std::string* why = nullptr) {
    (void)launches;
    if (why) *why = name_ + " has no launch graphs";
    return nullptr;
  }

private:
  std::string name_;
};

// "cpu" -> "CPU", "cuda:0" -> "CUDA", "gpu:1" -> "GPU:1". Throws loupe::Error for an empty or malformed name.
std::string canonical_device_name(const std::string& name);

// Whether a device's kernels run on this host's cores, in host memory: CPU (C) and LLVM, in any spelling.
// They share the host's peaks, register tiles and operand layouts.
bool runs_on_host_cores(const std::string& device);

// The device kinds this build knows, in preference order (the default device is the first available).
std::vector<std::string> known_devices();

struct DeviceStatus {
  std::string name;    // canonical
  bool available = false;
  std::string reason;  // why not, e.g. "CUDA: libcuda.so.1 not found"
};
// Whether a device can start here; never throws for a known or unknown name (unknown: not available).
DeviceStatus device_status(const std::string& name);
std::vector<DeviceStatus> list_devices();

// Call once on the main thread before any other thread probes devices (the app's device list does it in
// the background). PoCL adds HWLOC_PLUGINS_PATH to the environment with setenv while it initializes,
// on whichever thread first touches OpenCL; adding a variable reallocates the environment under any
// thread reading it (seen: a crash in Qt's getenv while a window was shown). With the variable defined
// first, PoCL's setenv replaces its value in place.
void prepare_process_environment();

// The device, started on first use and kept for the life of the process. loupe::Error for an unknown
// name (listing the known ones) or an unavailable device (with the reason).
Device& get_device(const std::string& name);

// DEVICE from the environment (validated), else the first available known device.
std::string default_device();

// How a device kind is found and started; kinds are listed in device.cpp.
struct DeviceKind {
  std::string name;  // "CPU"
  int max_index = 0; // highest N accepted in "NAME:N"
  std::function<std::optional<std::string>()> unavailable;  // null when it can start, else the reason
  std::function<std::unique_ptr<Device>(const std::string& canonical)> open;
};

} // namespace loupe
