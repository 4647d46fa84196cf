#include "runtime/device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/cpu/cpu_device.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/disk/disk_device.h"
#include "runtime/interp/interp_device.h"
#if LOUPE_HAVE_LLVM
#include "runtime/llvm/llvm_device.h"
#endif
#include "runtime/opencl/opencl_device.h"
#include "support/error.h"

namespace loupe {

namespace {
// Every kind this build has, in preference order. Backends are listed here explicitly (not through
// static registrars, which a static library would drop).
const std::vector<DeviceKind>& kinds() {
  static const std::vector<DeviceKind> table = {
      DeviceKind{"CPU", 7, [] { return cpu_unavailable_reason(); },
                 [](const std::string& canonical) -> std::unique_ptr<Device> { return make_cpu_device(canonical); }},
      DeviceKind{"OPENCL", 0, [] { return opencl_unavailable_reason(); },
                 [](const std::string& canonical) -> std::unique_ptr<Device> { return make_opencl_device(canonical); }},
      DeviceKind{"CUDA", 7, [] { return cuda_unavailable_reason(); },
                 [](const std::string& canonical) -> std::unique_ptr<Device> { return make_cuda_device(canonical); }},
#if LOUPE_HAVE_LLVM
      DeviceKind{"LLVM", 0, [] { return llvm_unavailable_reason(); },
                 [](const std::string& canonical) -> std::unique_ptr<Device> { return make_llvm_device(canonical); }},
#else
      DeviceKind{"LLVM", 0, [] { return std::optional<std::string>("LLVM: built without LLVM 15"); },
                 [](const std::string&) -> std::unique_ptr<Device> { return nullptr; }},
#endif
      // last: the default device only where no compiler exists
      DeviceKind{"INTERP", 0, [] { return std::optional<std::string>(); },
                 [](const std::string& canonical) -> std::unique_ptr<Device> { return make_interp_device(canonical); }},
  };
  return table;
}

const DeviceKind* find_kind(const std::string& base) {
  for (const DeviceKind& k : kinds())
    if (k.name == base) return &k;
  return nullptr;
}

std::string known_list() {
  std::string s;
  for (const DeviceKind& k : kinds()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

// Splits a canonical name into kind and index.
std::pair<std::string, int> split_name(const std::string& canonical) {
  auto colon = canonical.find(':');
  if (colon == std::string::npos) return {canonical, 0};
  return {canonical.substr(0, colon), std::stoi(canonical.substr(colon + 1))};
}
} // namespace

std::string canonical_device_name(const std::string& name) {
  auto colon = name.find(':');
  std::string base = name.substr(0, colon);
  if (base.empty() || !std::all_of(base.begin(), base.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; }))
    throw Error(cat("bad device name '", name, "' (known devices: ", known_list(), ")"));
  std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return std::toupper(c); });
  if (base == "DISK") {  // DISK:<path>, the path as given
    if (colon == std::string::npos || colon + 1 == name.size()) throw Error(cat("bad device name '", name, "': DISK needs a file, DISK:<path>"));
    return "DISK:" + name.substr(colon + 1);
  }
  // tinygrad's names for the same devices (v0.10.2 calls the C backend CLANG, OpenCL GPU, and its
  // interpreted device PYTHON: Loupe's is INTERP)
  if (base == "CLANG") base = "CPU";
  else if (base == "GPU") base = "OPENCL";
  else if (base == "PYTHON") base = "INTERP";
  if (colon == std::string::npos) return base;
  std::string idx = name.substr(colon + 1);
  if (idx.empty() || idx.size() > 4 || !std::all_of(idx.begin(), idx.end(), [](char c) { return std::isdigit((unsigned char)c); }))
    throw Error(cat("bad device index in '", name, "': expected NAME or NAME:N"));
  int n = std::stoi(idx);
  return n == 0 ? base : base + ":" + std::to_string(n);
}

bool runs_on_host_cores(const std::string& device) {
  const std::string canonical = canonical_device_name(device);
  const std::string kind = canonical.substr(0, canonical.find(':'));
  return kind == "CPU" || kind == "LLVM";
}

std::vector<std::string> known_devices() {
  std::vector<std::string> out;
  for (const DeviceKind& k : kinds()) out.push_back(k.name);
  return out;
}

DeviceStatus device_status(const std::string& name) {
  DeviceStatus st;
  try {
    st.name = canonical_device_name(name);
  } catch (const Error& e) {
    st.name = name;
    st.reason = e.what();
    return st;
  }
  if (is_disk_device(st.name)) {  // a file: available; whether it opens is found when a buffer maps it
    st.available = true;
    return st;
  }
  auto [base, index] = split_name(st.name);
  const DeviceKind* k = find_kind(base);
  if (!k) {
    st.reason = cat("unknown device '", name, "' (known devices: ", known_list(), ")");
    return st;
  }
  if (index > k->max_index) {
    st.reason = cat(base, ": no device ", index, " (", base, " has ", k->max_index + 1, ")");
    return st;
  }
  if (auto why = k->unavailable()) {
    st.reason = *why;
    return st;
  }
  st.available = true;
  return st;
}

void prepare_process_environment() {
  // PoCL's own value (it turns hwloc's plugins off); a value the user set is kept
  setenv("HWLOC_PLUGINS_PATH", "/dev/null", 0);
}

std::vector<DeviceStatus> list_devices() {
  std::vector<DeviceStatus> out;
  for (const DeviceKind& k : kinds()) out.push_back(device_status(k.name));
  return out;
}

Device& get_device(const std::string& name) {
  static std::mutex mutex;
  // Devices live until the process ends (never destroyed: buffers freed during static destruction may
  // still return memory to them).
  static auto* open = new std::map<std::string, Device*>();
  std::string canonical = canonical_device_name(name);
  std::lock_guard lock(mutex);
  auto it = open->find(canonical);
  if (it != open->end()) return *it->second;
  DeviceStatus st = device_status(name);
  if (!st.available) throw Error(st.reason);
  Device* d = is_disk_device(canonical) ? new DiskDevice(canonical) : find_kind(split_name(canonical).first)->open(canonical).release();
  (*open)[canonical] = d;
  return *d;
}

std::string default_device() {
  if (const char* env = std::getenv("DEVICE"); env && *env) {
    DeviceStatus st = device_status(env);
    if (!st.available) throw Error(cat("DEVICE=", env, ": ", st.reason));
    return st.name;
  }
  for (const DeviceKind& k : kinds())
    if (!k.unavailable()) return k.name;
  std::string why;
  for (const DeviceStatus& s : list_devices()) why += "\n  " + s.reason;
  throw Error("no device can start here:" + why);
}

} // namespace loupe
