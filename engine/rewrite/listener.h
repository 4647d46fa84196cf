// Observing rewrites. graph_rewrite reports every pass and every match to the listeners attached to
// the current thread; with none attached it checks one pointer and does nothing else.
#pragma once
#include <source_location>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "rewrite/rule.h"

namespace loupe {

struct PassInfo {
  std::string name;
  std::source_location location;  // where graph_rewrite was called
  bool bottom_up = false;
  int depth = 0;                  // nesting: a rewrite started from inside a rule of another
};

class RewriteListener {
public:
  virtual ~RewriteListener() = default;
  virtual void pass_begin(const PassInfo& pass, const UOpPtr& root) {}
  virtual void match(const UOpPtr& before, const UOpPtr& after, const Rule& rule, double seconds) {}
  virtual void pass_end(const PassInfo& pass, const UOpPtr& result) {}
  // Listeners that count every attempt (matched or not) say so; the matcher then times each one.
  virtual bool wants_attempts() const { return false; }
  virtual void attempt(const Rule& rule, bool matched, double seconds) {}
};

// Attaches a listener to this thread for the scope's lifetime.
class ListenerScope {
public:
  explicit ListenerScope(RewriteListener* l);
  ~ListenerScope();
  ListenerScope(const ListenerScope&) = delete;
  ListenerScope& operator=(const ListenerScope&) = delete;

private:
  RewriteListener* listener_;
};

// Detaches every listener of this thread for the scope's lifetime (for work whose rewrites are
// repeated, and recorded, elsewhere).
class ListenersPaused {
public:
  ListenersPaused();
  ~ListenersPaused();
  ListenersPaused(const ListenersPaused&) = delete;
  ListenersPaused& operator=(const ListenersPaused&) = delete;

private:
  std::vector<RewriteListener*> saved_;
  int saved_attempts_ = 0;
};

const std::vector<RewriteListener*>& active_listeners();
bool any_listener();
bool any_attempt_listener();

} // namespace loupe
