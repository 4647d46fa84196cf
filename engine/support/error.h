// Two kinds of failure: a user's mistake (Error: bad input, named precisely) and an internal bug
// (InternalError, raised by LOUPE_ASSERT with file and line). Both are exceptions so a CLI batch or
// the app can report them and go on.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace loupe {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

[[noreturn]] void raise_internal(const char* file, int line, const std::string& what);

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest> void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
} // namespace detail

// Builds a message from pieces: cat("reshape ", shape, " to ", other).
template <typename... Args> std::string cat(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

} // namespace loupe

#define LOUPE_ASSERT(cond, ...)                                                                                        \
  do {                                                                                                                 \
    if (!(cond)) ::loupe::raise_internal(__FILE__, __LINE__, ::loupe::cat("assertion failed: " #cond " ", ##__VA_ARGS__)); \
  } while (0)
