// Tensors on a DISK device (runtime/disk): a window of a file's bytes, held as a BUFFER node (maybe
// reshaped) whose storage maps the file. The movements that keep it one contiguous byte range (reshape,
// a slice of whole rows, a bitcast) make a new window at once, a sub-buffer of the same mapping; writes
// into a window copy the value's bytes there at once. Anything that would compute on DISK stays lazy and
// is refused when it would run (DiskDevice::compile), as in tinygrad.
#pragma once
#include "ir/uop.h"
#include "tensor/tensor.h"

namespace loupe {

// A window of `shape` elements of `dtype` from the first byte of the device's file (tinygrad's
// Tensor.empty(..., device="disk:...")): mapped when first read or written, the file made or grown then.
Tensor disk_empty(const std::string& device, const Shape& shape, DType dtype);
// The BUFFER node of a DISK window, or null when t is not one (another device, or a computed value).
UOpPtr disk_window_buffer(const Tensor& t);
// A movement op of a window (tensor_views' Tensor::view): a new window, or NotImplementedError naming
// the op when the result would not be one byte range.
Tensor disk_view(const Tensor& window, Ops op, const Arg& arg, const sints& shape);
// The window's bytes read as `dtype` (the last dimension scaled by the size ratio).
Tensor disk_bitcast(const Tensor& window, DType dtype);
// Writes value (the window's shape and dtype, on any device) into the window's bytes now.
void disk_write(const Tensor& window, const Tensor& value);

} // namespace loupe
