// A non-owning reference to a callable: what std::function costs (a heap block for any capture of
// more than two pointers) is paid on every step of a pattern match, and the callee never outlives
// the call. The referenced callable must stay alive while the FunctionRef is used.
#pragma once
#include <type_traits>
#include <utility>

namespace loupe {

template <typename Signature> class FunctionRef;

template <typename R, typename... Args> class FunctionRef<R(Args...)> {
public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f) noexcept  // NOLINT: implicit, like std::function
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... args) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...); }) {}

  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

private:
  void* obj_;
  R (*call_)(void*, Args...);
};

} // namespace loupe
