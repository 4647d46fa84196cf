// Runs one rendered CPU kernel on deterministic float inputs and returns its output buffer's bits:
// for differential tests that compare two plans of the same kernel bit for bit.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "render/renderer.h"
#include "runtime/device.h"

namespace loupe::test {

inline std::vector<uint32_t> run_bits(const RenderedKernel& rk, Device& cpu = get_device("CPU")) {
  auto prg = cpu.compile(rk);
  std::vector<std::vector<float>> bufs;
  std::vector<void*> ptrs;
  for (const BufferParam& b : rk.buffers) {
    std::vector<float> v(static_cast<size_t>(b.dtype.ptr_size));
    for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<float>((i * 331 + b.index * 17) % 1009) / 7.0f - 50.0f;
    bufs.push_back(std::move(v));
  }
  for (auto& v : bufs) ptrs.push_back(v.data());
  prg->run(ptrs, {}, rk.global, rk.local);
  std::vector<uint32_t> out(bufs[0].size());
  std::memcpy(out.data(), bufs[0].data(), out.size() * 4);
  return out;
}

} // namespace loupe::test
