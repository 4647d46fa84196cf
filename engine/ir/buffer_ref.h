// The arg of a tensor-level BUFFER node: which buffer (a process-unique id), on which device, of
// which dtype and size. The node owns the runtime storage, so a buffer lives exactly as long as some
// graph refers to it. Literal data (Tensor([1, 2, 3])) waits here until the buffer is allocated.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/arg.h"
#include "ir/dtype.h"

namespace loupe {

class Buffer;  // runtime storage (engine/runtime/buffer.h)

class BufferRef : public ArgObject {
public:
  BufferRef(int64_t id, std::string device, DType dtype, int64_t size)
      : id(id), device(std::move(device)), dtype(dtype), size(size) {}
  static std::shared_ptr<const BufferRef> make_new(const std::string& device, DType dtype, int64_t size);

  const int64_t id;
  const std::string device;
  const DType dtype;
  const int64_t size;

  // Runtime state, filled in when the buffer is first used (the arg itself stays immutable in identity).
  struct State {
    std::mutex mutex;
    std::shared_ptr<Buffer> storage;
    std::vector<uint8_t> pending_host_data;  // copied in at allocation
    bool written = false;                     // some kernel or copy has filled it
    // Makes the host data again, drawing anew (random tensors): a TinyJit replay refills the buffer with
    // it, so the numbers advance per call as they would without the JIT. Empty for other host data.
    std::function<std::vector<uint8_t>()> refill;
  };
  std::shared_ptr<State> state = std::make_shared<State>();

  const char* kind() const override { return "buffer"; }
  void hash(StableHasher& h) const override { h.i64(id); }
  bool equals(const ArgObject& o) const override { return static_cast<const BufferRef&>(o).id == id; }
  std::string str() const override;
  std::string encode() const override;
};

// Registers the "buffer" arg decoder (also done by a static initializer in buffer_ref.cpp; a program
// that only reads traces calls it so the static library's object is linked in).
void register_buffer_ref_arg();

} // namespace loupe
