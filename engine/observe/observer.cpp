#include "observe/observer.h"

#include <atomic>
#include <cstring>

namespace loupe {

namespace {
std::atomic<ExecutionObserver*> current{nullptr};
} // namespace

ExecutionObserver* execution_observer() { return current.load(std::memory_order_acquire); }

void attach_execution_observer(ExecutionObserver* observer) { current.store(observer, std::memory_order_release); }

ObservedContext::ObservedContext(std::string_view kind, std::string_view name) : observer_(execution_observer()) {
  if (observer_) id_ = observer_->begin_context(kind, name);
}

ObservedContext::~ObservedContext() {
  if (observer_ && execution_observer() == observer_) observer_->end_context();
}

void InputDigest::add(const std::string& buffer) {
  static constexpr uint64_t kMul[4] = {0x9FB21C651E98DF25ull, 0xD6E8FEB86659FD93ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull};
  const char* p = buffer.data();
  const size_t n = buffer.size();
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      uint64_t v;
      std::memcpy(&v, p + i + 8 * static_cast<size_t>(k), 8);
      lanes_[k] = fold_multiply(lanes_[k] ^ v, kMul[k]);
    }
  uint64_t tail[4] = {0, 0, 0, 0};
  std::memcpy(tail, p + i, n - i);
  for (int k = 0; k < 4; k++) lanes_[k] = fold_multiply(lanes_[k] ^ tail[k] ^ n, kMul[k]);  // the size ends each buffer
  bytes_ += n;
}

std::string InputDigest::hex() const {
  StableHasher h;
  for (uint64_t l : lanes_) h.u64(l);
  h.u64(bytes_);
  return h.finish().hex();
}

} // namespace loupe
