// Two kinds of failure: a user's mistake (Error: bad input, named precisely) and an internal bug
// (InternalError, raised by LOUPE_ASSERT with file and line). Both are exceptions so a CLI batch or
// the app can report them and go on. A user error also says which Python exception tinygrad raises
// for the same mistake (ErrorKind), so the Python module can raise that one.
#pragma once
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace loupe {

enum class ErrorKind : uint8_t { Runtime, Value, Type, Index, Assertion, NotImplemented, Attribute, Interrupt };

class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::Runtime)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

// The same error named by its Python class: throw ValueError(cat("negative dimension ", d)).
inline Error RuntimeError(const std::string& m) { return Error(m, ErrorKind::Runtime); }
inline Error ValueError(const std::string& m) { return Error(m, ErrorKind::Value); }
inline Error TypeError(const std::string& m) { return Error(m, ErrorKind::Type); }
inline Error IndexError(const std::string& m) { return Error(m, ErrorKind::Index); }
inline Error AssertionError(const std::string& m) { return Error(m, ErrorKind::Assertion); }
inline Error NotImplementedError(const std::string& m) { return Error(m, ErrorKind::NotImplemented); }
inline Error AttributeError(const std::string& m) { return Error(m, ErrorKind::Attribute); }

// Long work (realizing a schedule, compiling, a BEAM search) asks between steps whether the user
// asked to stop (Ctrl-C in Python); the host installs the question. An interruption is an Error of
// kind Interrupt, thrown from check_interrupt(), so everything already written stays consistent.
using InterruptCheck = bool (*)();
void set_interrupt_check(InterruptCheck check);  // null: never interrupted (the default)
void check_interrupt();

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
