#include "runtime/profile/sample_attribution.h"

#include <cstdlib>
#include <cxxabi.h>
#include <dlfcn.h>
#include <filesystem>
#include <unordered_map>

namespace loupe {

KernelSamples attribute_samples(const RawSamples& raw, const CodeMap& code, const std::string& clock, int64_t period) {
  KernelSamples out;
  out.clock = clock;
  out.period = period;
  out.runs = 1;
  out.lost = raw.lost;
  out.counters = raw.counters;
  for (const CodeSymbol& s : code.symbols()) out.function_sizes[s.name] = static_cast<int64_t>(s.size);
  std::unordered_map<uint64_t, std::string> named;  // dladdr once per distinct address outside
  for (uint64_t ip : raw.ips) {
    if (const CodeSymbol* s = code.find(ip)) {
      out.in_code[{s->name, static_cast<int64_t>(ip - s->address)}]++;
      continue;
    }
    auto it = named.find(ip);
    if (it == named.end()) {
      Dl_info info{};
      std::string name = "?";
      if (dladdr(reinterpret_cast<void*>(ip), &info) && info.dli_sname) {
        int status = 0;
        char* readable = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
        name = status == 0 && readable ? readable : info.dli_sname;
        std::free(readable);
      }
      else if (info.dli_fname) name = "?(" + std::filesystem::path(info.dli_fname).filename().string() + ")";
      it = named.emplace(ip, std::move(name)).first;
    }
    out.outside[it->second]++;
  }
  return out;
}

} // namespace loupe
