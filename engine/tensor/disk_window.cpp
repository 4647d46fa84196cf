#include "tensor/disk_window.h"

#include <mutex>
#include <numeric>

#include "exec/realize.h"
#include "ir/buffer_ref.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/disk/disk_device.h"
#include "shape/sint_arg.h"
#include "support/error.h"

namespace loupe {

namespace {
Error not_a_window(const std::string& device, const std::string& what) {
  return NotImplementedError(cat(device, ": ", what, " of a DISK tensor: a DISK tensor takes only views that stay one contiguous "
                                 "byte range (reshape, slices of whole rows, bitcast) and copies; copy it to a device first, e.g. t.to('CPU')"));
}

const BufferRef& ref_of(const UOpPtr& buffer) { return static_cast<const BufferRef&>(buffer->arg.as_object()); }

// The tensor of a BUFFER node, shaped `shape` (a reshape of it unless flat).
Tensor shaped(const UOpPtr& buffer, const Shape& shape) {
  if (shape == Shape{ref_of(buffer).size}) return Tensor::from_uop(buffer, shape);
  return Tensor::from_uop(UOp::make(Ops::RESHAPE, buffer->dtype, {buffer}, Arg::ints(shape)), shape);
}

// A new BUFFER node for `count` elements of `dtype` on `device`, whose value is already there (the file's
// bytes): with `storage`, a view of existing memory; without, mapped at first use.
UOpPtr window_buffer(const std::string& device, DType dtype, int64_t count, std::shared_ptr<Buffer> storage) {
  auto ref = BufferRef::make_new(device, dtype, count);
  {
    std::lock_guard lock(ref->state->mutex);
    ref->state->storage = std::move(storage);
    ref->state->written = true;
  }
  return UOp::make(Ops::BUFFER, dtype, {}, Arg(std::static_pointer_cast<const ArgObject>(ref)));
}

// A window of `count` elements of `dtype` from byte `offset` of the window `buffer`'s bytes, shaped `shape`.
Tensor sub_window(const UOpPtr& buffer, size_t offset, DType dtype, int64_t count, const Shape& shape) {
  std::shared_ptr<Buffer> base = buffer_storage(buffer);  // maps the file (made or grown to the buffer's size)
  return shaped(window_buffer(ref_of(buffer).device, dtype, count, std::make_shared<Buffer>(base, offset, dtype, count)), shape);
}

Shape concrete(const sints& shape, const std::string& device) {
  Shape out;
  for (const sint& s : shape) {
    if (!s.is_int()) throw not_a_window(device, "a symbolic shape");
    out.push_back(s.as_int());
  }
  return out;
}
} // namespace

Tensor disk_empty(const std::string& device, const Shape& shape, DType dtype) {
  int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  return shaped(window_buffer(canonical_device_name(device), dtypes::strong(dtype), count, nullptr), shape);
}

UOpPtr disk_window_buffer(const Tensor& t) {
  UOpPtr u = t.uop();
  if (u->op == Ops::RESHAPE && !u->src.empty()) u = u->src[0];
  if (u->op != Ops::BUFFER || !is_disk_device(ref_of(u).device)) return nullptr;
  return u;
}

Tensor disk_view(const Tensor& window, Ops op, const Arg& arg, const sints& shape) {
  UOpPtr buffer = disk_window_buffer(window);
  const std::string& device = ref_of(buffer).device;
  Shape out = concrete(shape, device);
  if (op == Ops::RESHAPE) return shaped(buffer, out);
  if (op != Ops::SHRINK) throw not_a_window(device, std::string(op_name(op)));
  const Shape& in = window.shape();
  Ranges ranges = ranges_from_arg(arg, "shrink");
  int64_t count = std::accumulate(out.begin(), out.end(), int64_t(1), std::multiplies<>());
  // one byte range: whole dimensions at the end, then one partial dimension, then single indices
  size_t split = in.size();
  while (split > 0 && ranges[split - 1].first.as_int() == 0 && ranges[split - 1].second.as_int() == in[split - 1]) split--;
  for (size_t d = 0; count > 0 && split > 0 && d + 1 < split; d++)
    if (ranges[d].second.as_int() - ranges[d].first.as_int() != 1)
      throw not_a_window(device, cat("the slice ", arg.str(), " of shape ", shape_str(in), " (not one byte range)"));
  int64_t offset = 0, stride = 1;
  for (size_t d = in.size(); d-- > 0;) {
    offset += ranges[d].first.as_int() * stride;
    stride *= in[d];
  }
  return sub_window(buffer, static_cast<size_t>(offset) * window.dtype().itemsize(), window.dtype(), count, out);
}

Tensor disk_bitcast(const Tensor& window, DType dtype) {
  UOpPtr buffer = disk_window_buffer(window);
  int64_t from = window.dtype().itemsize(), to = dtype.itemsize();
  Shape shape = window.shape();
  if (from != to) {
    if (shape.empty() || (shape.back() * from) % to != 0)
      throw RuntimeError(cat("bitcast from ", window.dtype().short_name(), " to ", dtype.short_name(), ": the last dimension of ",
                             shape_str(shape), " holds ", shape.empty() ? from : shape.back() * from, " bytes, not a multiple of ", to));
    shape.back() = shape.back() * from / to;
  }
  int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  return sub_window(buffer, 0, dtype, count, shape);
}

void disk_write(const Tensor& window, const Tensor& value) {
  UOpPtr dst = disk_window_buffer(window);
  UOpPtr src = disk_window_buffer(value);
  Tensor staged = value;
  if (!src) {  // the value laid out in a buffer of its own device
    staged = value.contiguous();
    Tensor::realize_in_buffers({&staged});
    src = realized_buffer(staged.uop());
    LOUPE_ASSERT(src, "a realized value has no buffer");
  }
  if (src == dst) return;
  buffer_storage(dst)->copy_from(*buffer_storage(src));
}

} // namespace loupe
