// loupe-cli devices: every device kind this build knows, whether it can start here and, when it
// cannot, why ("CUDA: libcuda.so.1 not found (no NVIDIA driver)"). The default device (DEVICE, else
// the first available) is marked. --json prints [{"name","available","reason","default"}].
#include <iostream>

#include "cli/command.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/json.h"

namespace loupe::cli {

namespace {

int devices_main(const Args& args) {
  for (const std::string& a : args)
    if (a != "--json") {
      std::cerr << "loupe-cli devices: unknown option '" << a << "' (accepted: --json)\n";
      return 2;
    }
  std::string def;
  try {
    def = default_device();
  } catch (const Error& e) {
    std::cerr << "loupe-cli devices: " << e.what() << "\n";  // still list them, with their reasons
  }
  std::vector<DeviceStatus> all = list_devices();
  if (has_flag(args, "--json")) {
    json::Array out;
    for (const DeviceStatus& d : all)
      out.push_back(json::Object{{"name", d.name}, {"available", d.available}, {"reason", d.reason}, {"default", d.name == def}});
    std::cout << json::Value(std::move(out)).dump() << "\n";
    return 0;
  }
  for (const DeviceStatus& d : all)
    std::cout << (d.name == def ? "* " : "  ") << d.name << std::string(d.name.size() < 8 ? 8 - d.name.size() : 1, ' ')
              << (d.available ? "available" : "unavailable: " + d.reason) << "\n";
  return 0;
}

const Registrar reg("devices", "the devices this build knows, and why any of them cannot start here (--json)", devices_main);

} // namespace

} // namespace loupe::cli
