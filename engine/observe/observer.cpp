#include "observe/observer.h"

#include <atomic>

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
  h_.u64(buffer.size());
  h_.bytes(buffer.data(), buffer.size());
}

std::string InputDigest::hex() const { return h_.finish().hex(); }

} // namespace loupe
