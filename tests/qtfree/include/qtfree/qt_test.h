// The part of Qt Test the engine's tests use, without Qt: a test class (QObject + Q_OBJECT + private
// slots, found by gen_slots.py instead of moc), data-driven functions (addColumn/newRow/QFETCH), the
// check macros with Qt's semantics (QCOMPARE's fuzzy float compare and Actual/Expected message,
// QVERIFY2, QSKIP, QFAIL) and a runner with Qt's order, command line, log lines and exit code.
#pragma once
#include <any>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "qtfree/qt_debug.h"
#include "qtfree/qt_string.h"

class QObject;

namespace qtfree {

// One test class's private slots in declaration order, as gen_slots.py writes them.
struct Slot {
  const char* name;
  void (*invoke)(QObject*);
};
struct SlotTable {
  const char* class_name;
  std::vector<Slot> functions;
};

int exec(QObject& test, int argc, char** argv);
std::string demangle(const char* mangled);

} // namespace qtfree

class QObject {
public:
  virtual ~QObject() = default;
  virtual const qtfree::SlotTable& qtfree_slots() const;  // none unless Q_OBJECT declares it
};

#define Q_OBJECT                                              \
public:                                                       \
  const ::qtfree::SlotTable& qtfree_slots() const override;   \
                                                              \
private:
#define slots
#define Q_SLOTS
#define signals public
#define Q_SIGNALS public
#define Q_DECLARE_METATYPE(...)

namespace qtfree {

// A row's cell: the value and the type it was given as (const char* is taken as QString, as Qt does).
struct Cell {
  std::any value;
  const std::type_info* type;
};

class TestData {
public:
  template <typename T>
  TestData& operator<<(const T& v) {
    return add(Cell{std::any(v), &typeid(T)});
  }
  TestData& operator<<(const char* s) { return *this << QString(s); }
  template <size_t N>
  TestData& operator<<(const char (&s)[N]) {
    return *this << QString(s);
  }
  TestData& add(Cell c);  // checks the type against the column's, as Qt asserts
};

void add_column(const char* name, const std::type_info& type);
const Cell& fetch_cell(const char* name, const std::type_info& type);
bool check(bool ok, const char* failure, const char* file, int line);  // records a failure; returns ok
void record_skip(const char* message, const char* file, int line);
void record_failure(const std::string& message, const char* file, int line);
// QVERIFY_THROWS_EXCEPTION got another exception than the one it expects (what: null when not a std::exception).
void caught_other(const char* expected_type, const char* what, const char* file, int line);
bool compare_failed(const char* message, const std::string* actual_value, const std::string* expected_value,
                    const char* actual, const char* expected, const char* file, int line);

template <typename T>
T fetch(const char* name) {
  return std::any_cast<T>(fetch_cell(name, typeid(T)).value);
}

template <typename T, typename = void>
struct Streamable : std::false_type {};
template <typename T>
struct Streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>> : std::true_type {};

std::string pretty_text(const std::string& s);  // quoted, escaped, cut at 256 characters like Qt's
std::string double_text(double d);              // Qt's %.12g
std::string float_text(float f);

// The value as QCOMPARE prints it; nullptr (printed "<null>") for a type that cannot be printed.
template <typename T>
std::unique_ptr<std::string> to_string(const T& v) {
  if constexpr (std::is_same_v<T, QString> || std::is_same_v<T, QByteArray>) {
    return std::make_unique<std::string>(pretty_text(v.str()));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::make_unique<std::string>(pretty_text(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::make_unique<std::string>(v ? "true" : "false");
  } else if constexpr (std::is_same_v<T, double>) {
    return std::make_unique<std::string>(double_text(v));
  } else if constexpr (std::is_same_v<T, float>) {
    return std::make_unique<std::string>(float_text(v));
  } else if constexpr (std::is_enum_v<T>) {
    return std::make_unique<std::string>(std::to_string(static_cast<long long>(v)));
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>) {
    return std::make_unique<std::string>(std::to_string(int(v)));
  } else if constexpr (Streamable<T>::value) {
    std::ostringstream os;
    os << v;
    return std::make_unique<std::string>(os.str());
  } else {
    return nullptr;
  }
}

bool fuzzy_equal(double actual, double expected);
bool fuzzy_equal(float actual, float expected);

} // namespace qtfree

namespace QTest {

template <typename T>
void addColumn(const char* name, T* = nullptr) {
  static_assert(!std::is_same_v<T, const char*>, "const char* is not allowed as a test data format.");
  ::qtfree::add_column(name, typeid(T));
}
::qtfree::TestData& newRow(const char* tag);
::qtfree::TestData& addRow(const char* format, ...) __attribute__((format(printf, 1, 2)));
void qWait(int ms);
bool currentTestFailed();
const char* currentTestFunction();
const char* currentDataTag();

template <typename T1, typename T2>
bool qCompare(const T1& t1, const T2& t2, const char* actual, const char* expected, const char* file, int line) {
  if (t1 == t2) return true;
  auto a = ::qtfree::to_string(t1);
  auto e = ::qtfree::to_string(t2);
  return ::qtfree::compare_failed("Compared values are not the same", a.get(), e.get(), actual, expected, file, line);
}
bool qCompare(double t1, double t2, const char* actual, const char* expected, const char* file, int line);
bool qCompare(float t1, float t2, const char* actual, const char* expected, const char* file, int line);
inline bool qCompare(double t1, float t2, const char* actual, const char* expected, const char* file, int line) {
  return qCompare(t1, double(t2), actual, expected, file, line);
}
inline bool qCompare(float t1, double t2, const char* actual, const char* expected, const char* file, int line) {
  return qCompare(double(t1), t2, actual, expected, file, line);
}
bool qCompare(const char* t1, const char* t2, const char* actual, const char* expected, const char* file, int line);
inline bool qCompare(char* t1, char* t2, const char* actual, const char* expected, const char* file, int line) {
  return qCompare(static_cast<const char*>(t1), static_cast<const char*>(t2), actual, expected, file, line);
}

bool qVerify(bool statement, const char* statementStr, const char* description, const char* file, int line);

} // namespace QTest

#define QVERIFY(statement)                                                                   \
  do {                                                                                       \
    if (!QTest::qVerify(static_cast<bool>(statement), #statement, "", __FILE__, __LINE__)) \
      return;                                                                                \
  } while (false)

#define QVERIFY2(statement, description)                                                                          \
  do {                                                                                                            \
    const bool qtfree_ok = static_cast<bool>(statement);                                                          \
    if (!QTest::qVerify(qtfree_ok, #statement, static_cast<const char*>(description), __FILE__, __LINE__)) return; \
  } while (false)

#define QCOMPARE(actual, expected)                                                   \
  do {                                                                               \
    if (!QTest::qCompare(actual, expected, #actual, #expected, __FILE__, __LINE__)) \
      return;                                                                        \
  } while (false)

#define QFAIL(message)                                                                     \
  do {                                                                                     \
    ::qtfree::record_failure(static_cast<const char*>(message), __FILE__, __LINE__); \
    return;                                                                                \
  } while (false)

#define QSKIP(statement, ...)                                                         \
  do {                                                                                \
    ::qtfree::record_skip(static_cast<const char*>(statement), __FILE__, __LINE__); \
    return;                                                                           \
  } while (false)

#define QVERIFY_THROWS_EXCEPTION(exceptiontype, ...)                                                      \
  do {                                                                                                     \
    try {                                                                                                  \
      try {                                                                                                \
        __VA_ARGS__;                                                                                       \
        ::qtfree::record_failure("Expected exception of type " #exceptiontype " to be thrown"              \
                                 " but no exception caught", __FILE__, __LINE__);                          \
        return;                                                                                            \
      } catch (const exceptiontype&) {                                                                     \
      }                                                                                                    \
    } catch (const std::exception& e) {                                                                    \
      ::qtfree::caught_other(#exceptiontype, e.what(), __FILE__, __LINE__);                               \
      return;                                                                                              \
    } catch (...) {                                                                                        \
      ::qtfree::caught_other(#exceptiontype, nullptr, __FILE__, __LINE__);                                 \
      throw;                                                                                               \
    }                                                                                                      \
  } while (false)

#define QFETCH(Type, name) Type name = ::qtfree::fetch<Type>(#name)

#define QTEST_APPLESS_MAIN(TestObject)    \
  int main(int argc, char** argv) {       \
    TestObject tc;                        \
    return ::qtfree::exec(tc, argc, argv); \
  }
#define QTEST_GUILESS_MAIN(TestObject) QTEST_APPLESS_MAIN(TestObject)
#define QTEST_MAIN(TestObject) QTEST_APPLESS_MAIN(TestObject)
