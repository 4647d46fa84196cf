#include "rewrite/listener.h"

#include <algorithm>

namespace loupe {

namespace {
thread_local std::vector<RewriteListener*> listeners;
thread_local int attempt_listeners = 0;
} // namespace

ListenerScope::ListenerScope(RewriteListener* l) : listener_(l) {
  listeners.push_back(l);
  if (l->wants_attempts()) attempt_listeners++;
}

ListenerScope::~ListenerScope() {
  auto it = std::find(listeners.rbegin(), listeners.rend(), listener_);
  if (it != listeners.rend()) listeners.erase(std::next(it).base());
  if (listener_->wants_attempts()) attempt_listeners--;
}

ListenersPaused::ListenersPaused() : saved_(std::move(listeners)), saved_attempts_(attempt_listeners) {
  listeners.clear();
  attempt_listeners = 0;
}

ListenersPaused::~ListenersPaused() {
  listeners = std::move(saved_);
  attempt_listeners = saved_attempts_;
}

const std::vector<RewriteListener*>& active_listeners() { return listeners; }
bool any_listener() { return !listeners.empty(); }
bool any_attempt_listener() { return attempt_listeners > 0; }

} // namespace loupe
