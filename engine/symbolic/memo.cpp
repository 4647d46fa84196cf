#include "symbolic/memo.h"

namespace loupe::sym {

namespace {
thread_local int depth = 0;
thread_local Memo* current = nullptr;
} // namespace

MemoScope::MemoScope() {
  if (depth++ == 0) current = new Memo();
}

MemoScope::~MemoScope() {
  if (--depth == 0) {
    delete current;
    current = nullptr;
  }
}

Memo* memo() { return current; }
bool in_scope() { return depth > 0; }

} // namespace loupe::sym
