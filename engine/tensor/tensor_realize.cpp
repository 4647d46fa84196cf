// The frontend's way into execution: realizing tensors (schedule through the cache, run, rebind) and
// reading their bytes back.
#include <cstring>

#include "exec/realize.h"
#include "ir/print.h"
#include "observe/observer.h"
#include "runtime/buffer.h"
#include "schedule/folded_output.h"
#include "schedule/schedule_cache.h"
#include "support/deep_stack.h"
#include "support/error.h"
#include "tensor/host_data.h"
#include "tensor/tensor.h"

namespace loupe {

Tensor& Tensor::realize() {
  realize_all({this});
  return *this;
}

void Tensor::realize_all(std::vector<Tensor*> tensors) {
  // scheduling, lowering and rendering recurse as deep as the graph is (support/deep_stack.h)
  run_on_deep_stack([&] {
    std::vector<Tensor> assigned = pending_assigns(tensors);  // writes these read or made through a view happen now
    for (Tensor& t : assigned) tensors.push_back(&t);
    UOpList outs;
    for (Tensor* t : tensors) outs.push_back(t->uop());
    Schedule s;
    {
      ObservedContext ctx("schedule", "schedule");
      s = cached_schedule(outs, device_schedule_options());
      if (ExecutionObserver* o = execution_observer()) {
        std::vector<ScheduleRoot> roots;
        for (const ScheduleItem& item : s.items)
          if (item.root) roots.push_back({item.root, item.ast->op == Ops::COPY ? std::string() : item.ast->key().hex()});
        if (!roots.empty()) o->record_schedule_roots(roots);
      }
    }
    run_schedule(s);
    for (size_t i = 0; i < tensors.size(); i++) {
      tensors[i]->set_uop(s.outputs[i]);
      tensors[i]->s_->realized_constant = is_folded_constant(s.outputs[i]);
    }
  });
}

namespace {
// A tensor that stayed a constant when realized, stored by a kernel of its own.
Tensor stored_copy(const Tensor& t) { return t.cast(dtypes::strong(t.dtype())).contiguous(); }
} // namespace

void Tensor::realize_in_buffers(std::vector<Tensor*> tensors) {
  realize_all(tensors);
  std::vector<Tensor> stored;
  std::vector<Tensor*> targets;
  for (Tensor* t : tensors)
    if (!realized_buffer(t->uop())) {
      stored.push_back(stored_copy(*t));
      targets.push_back(t);
    }
  if (stored.empty()) return;
  std::vector<Tensor*> ptrs;
  for (Tensor& t : stored) ptrs.push_back(&t);
  realize_all(ptrs);
  for (size_t i = 0; i < targets.size(); i++) targets[i]->set_uop(stored[i].uop());
}

void Tensor::store_realized_constants() {
  std::vector<Tensor> constants;
  for (Tensor& t : live())
    if (t.s_->realized_constant) constants.push_back(t);
  std::vector<Tensor*> ptrs;
  for (Tensor& t : constants) ptrs.push_back(&t);
  if (!ptrs.empty()) realize_in_buffers(ptrs);
}

namespace {

std::vector<uint8_t> read_bytes(Tensor& t) {
  t.realize();
  if (t.numel() == 0) return {};
  UOpPtr buf = realized_buffer(t.uop());
  if (!buf) {  // a constant: its bytes are stored for this read alone (the tensor stays a constant)
    Tensor stored = stored_copy(t);
    stored.realize();
    buf = realized_buffer(stored.uop());
  }
  LOUPE_ASSERT(buf, "a realized tensor is not a view of a buffer: ", op_name(t.uop()->op));
  std::shared_ptr<Buffer> storage = buffer_storage(buf);
  std::vector<uint8_t> bytes(storage->nbytes());
  storage->copyout(bytes.data(), bytes.size());
  return bytes;
}
} // namespace

std::vector<double> Tensor::to_vector() {
  std::vector<uint8_t> bytes = read_bytes(*this);
  DType d = dtypes::strong(dtype());
  std::vector<double> out;
  for (size_t i = 0; i + d.itemsize() <= bytes.size(); i += d.itemsize()) out.push_back(unpack_double(d, bytes.data() + i));
  return out;
}

std::vector<uint8_t> Tensor::to_bytes() { return read_bytes(*this); }

std::vector<int64_t> Tensor::to_int_vector() {
  std::vector<uint8_t> bytes = read_bytes(*this);
  DType d = dtypes::strong(dtype());
  std::vector<int64_t> out;
  for (size_t i = 0; i + d.itemsize() <= bytes.size(); i += d.itemsize()) out.push_back(unpack_int(d, bytes.data() + i));
  return out;
}

} // namespace loupe
