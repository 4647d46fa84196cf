#include "ir/buffer_ref.h"

#include <atomic>
#include <sstream>

#include "support/error.h"

namespace loupe {

namespace {
std::atomic<int64_t> next_buffer_id{0};
}  // namespace
void register_buffer_ref_arg();
namespace {

std::shared_ptr<const ArgObject> decode_buffer_ref(const std::string& text) {
  std::istringstream in(text);
  int64_t id = 0, size = 0;
  std::string device, dtype;
  char c1 = 0, c2 = 0, c3 = 0;
  if (!(in >> id >> c1) || c1 != ',' || !std::getline(in, device, ',') || !std::getline(in, dtype, ',') ||
      !(in >> size))
    throw Error(loupe::cat("malformed buffer argument '", text, "'"));
  (void)c2;
  (void)c3;
  auto dt = dtypes::from_name(dtype);
  if (!dt) throw Error(loupe::cat("unknown dtype '", dtype, "' in buffer argument '", text, "'"));
  return std::make_shared<BufferRef>(id, device, *dt, size);
}

const bool registered = (register_buffer_ref_arg(), true);
} // namespace

void register_buffer_ref_arg() { register_arg_kind("buffer", decode_buffer_ref); }

std::shared_ptr<const BufferRef> BufferRef::make_new(const std::string& device, DType dtype, int64_t size) {
  return std::make_shared<BufferRef>(next_buffer_id++, device, dtype, size);
}

std::string BufferRef::str() const { return loupe::cat("buffer(", id, ", ", device, ", ", dtype.short_name(), ", ", size, ")"); }
std::string BufferRef::encode() const { return loupe::cat(id, ",", device, ",", dtype.short_name(), ",", size); }

} // namespace loupe
