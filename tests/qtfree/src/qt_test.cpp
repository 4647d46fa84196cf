#include "qtfree/qt_test.h"

#include <cxxabi.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <exception>
#include <thread>

namespace qtfree {
namespace {

struct Column {
  std::string name;
  const std::type_info* type;
};
struct Row {
  std::string tag;
  std::vector<Cell> cells;
};

// The run's state: Qt Test keeps the same (current function, tag, data table, this row's outcome).
struct Run {
  std::string class_name, function, tag;
  std::vector<Column> columns;
  std::vector<Row> rows;
  const Row* row = nullptr;
  bool failed = false, skipped = false;  // this row (or initTestCase / cleanupTestCase)
  int passed = 0, failures = 0, skips = 0;
};
Run run;
char crash_prefix[512] = "";  // "C::f(tag)" for the signal handler, which must not allocate

std::string where() { return run.class_name + "::" + (run.function.empty() ? "UnknownTestFunc" : run.function) + "(" + run.tag + ")"; }

void print_location(const char* file, int line) {
  if (file && *file) std::printf("   Loc: [%s(%d)]\n", file, line);
}

void set_current(const std::string& function, const std::string& tag) {
  run.function = function, run.tag = tag;
  std::snprintf(crash_prefix, sizeof crash_prefix, "%s", where().c_str());
}

void on_fatal_signal(int sig) {
  char msg[700];
  int n = std::snprintf(msg, sizeof msg, "FAIL!  : %s Received signal %d (%s)\n", crash_prefix, sig, strsignal(sig));
  if (n > 0) (void)!write(1, msg, size_t(std::min<int>(n, int(sizeof msg) - 1)));
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string vformat(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(size_t(std::max(n, 0)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, format, args);
  return out;
}

const Slot* find_slot(const SlotTable& t, const std::string& name) {
  for (const Slot& s : t.functions)
    if (name == s.name) return &s;
  return nullptr;
}

bool is_special(const std::string& name) {
  return name == "initTestCase" || name == "cleanupTestCase" || name == "init" || name == "cleanup" ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, "_data") == 0);
}

// Calls a slot. An exception escaping it fails the current test and ends the run, as in Qt Test: exec
// prints the totals and lets it go on (the process terminates, saying what it was).
void invoke(const Slot* s, QObject& test) {
  if (!s) return;
  try {
    s->invoke(&test);
  } catch (...) {
    record_failure("Caught unhandled exception", "", 0);
    run.failures++;
    throw;
  }
}

void finish_row() {
  if (run.failed) run.failures++;
  else if (run.skipped) run.skips++;
  else run.passed++, std::printf("PASS   : %s\n", where().c_str());
  std::fflush(stdout);
}

void run_row(const SlotTable& t, QObject& test, const Slot& fn, const Row* row) {
  run.row = row, run.failed = false, run.skipped = false;
  set_current(fn.name, row ? row->tag : "");
  invoke(find_slot(t, "init"), test);
  if (!run.failed && !run.skipped) invoke(&fn, test);
  bool skipped = run.skipped;
  invoke(find_slot(t, "cleanup"), test);
  run.skipped = skipped;
  finish_row();
}

// One test function: its _data function fills the table, then each row (or the chosen tag) runs.
void run_function(const SlotTable& t, QObject& test, const Slot& fn, const std::string& only_tag) {
  run.columns.clear(), run.rows.clear(), run.row = nullptr;
  set_current(fn.name, "");
  if (const Slot* data = find_slot(t, std::string(fn.name) + "_data")) {
    run.failed = run.skipped = false;
    invoke(data, test);
    if (run.failed || run.skipped) {
      finish_row();
      return;
    }
  }
  if (run.rows.empty()) {
    run_row(t, test, fn, nullptr);
    return;
  }
  bool found = false;
  for (const Row& r : run.rows) {
    if (!only_tag.empty() && r.tag != only_tag) continue;
    found = true;
    run_row(t, test, fn, &r);
  }
  if (!found) {
    std::fprintf(stderr, "Unknown testdata for function %s(): '%s'\nAvailable test-specific data tags:\n", fn.name, only_tag.c_str());
    for (const Row& r : run.rows) std::fprintf(stderr, "\t%s\n", r.tag.c_str());
    run.failed = true;
    std::printf("FAIL!  : %s Data tag not found: %s\n", where().c_str(), only_tag.c_str());
    run.failures++;
  }
}

// initTestCase and cleanupTestCase: always reported, defined or not.
bool run_case_function(const SlotTable& t, QObject& test, const char* name) {
  run.failed = run.skipped = false, run.row = nullptr;
  run.columns.clear(), run.rows.clear();
  set_current(name, "");
  invoke(find_slot(t, name), test);
  bool ok = !run.failed && !run.skipped;
  finish_row();
  return ok;
}

int usage(const char* argv0, const char* problem) {
  if (problem) std::printf("%s\n", problem);
  std::printf("Usage: %s [options] [testfunction[:testdata]]...\n"
              "   By default, all test functions are run.\n"
              "   -functions : list the test functions\n"
              "   -datatags  : list the test functions' data tags\n"
              "   -help      : this text\n"
              "(the Qt-free harness, tests/qtfree: Qt Test's other options are not supported)\n",
              argv0);
  return problem ? 1 : 0;
}

} // namespace

std::string demangle(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : mangled;
  std::free(d);
  return out;
}

TestData& TestData::add(Cell c) {
  if (run.rows.empty()) {
    std::fprintf(stderr, "QTestData: data added before newRow() in %s\n", where().c_str());
    std::abort();
  }
  Row& r = run.rows.back();
  size_t i = r.cells.size();
  if (i >= run.columns.size() || *run.columns[i].type != *c.type) {
    std::fprintf(stderr, "QTestData: %s: row '%s', element %zu: expected data of type '%s', got '%s'\n", where().c_str(),
                 r.tag.c_str(), i, i < run.columns.size() ? demangle(run.columns[i].type->name()).c_str() : "(no such column)",
                 demangle(c.type->name()).c_str());
    std::abort();  // Qt asserts here too: a table that cannot be read is a broken test
  }
  r.cells.push_back(std::move(c));
  return *this;
}

void add_column(const char* name, const std::type_info& type) { run.columns.push_back({name, &type}); }

const Cell& fetch_cell(const char* name, const std::type_info& type) {
  for (size_t i = 0; i < run.columns.size(); i++) {
    if (run.columns[i].name != name) continue;
    if (!run.row || i >= run.row->cells.size()) {
      std::fprintf(stderr, "QFETCH: %s: no data in column '%s'\n", where().c_str(), name);
      std::abort();
    }
    if (*run.columns[i].type != type) {
      std::fprintf(stderr, "QFETCH: %s: column '%s' holds '%s', not the requested '%s'\n", where().c_str(), name,
                   demangle(run.columns[i].type->name()).c_str(), demangle(type.name()).c_str());
      std::abort();
    }
    return run.row->cells[i];
  }
  std::fprintf(stderr, "QFETCH: %s: no column named '%s'\n", where().c_str(), name);
  std::abort();
}

void record_failure(const std::string& message, const char* file, int line) {
  run.failed = true;
  std::printf("FAIL!  : %s %s\n", where().c_str(), message.c_str());
  print_location(file, line);
  std::fflush(stdout);
}

void caught_other(const char* expected_type, const char* what, const char* file, int line) {
  std::string got = what ? std::string("std::exception caught with message: ") + what : "unknown exception caught";
  record_failure(std::string("Expected exception of type ") + expected_type + " to be thrown but " + got, file, line);
}

void record_skip(const char* message, const char* file, int line) {
  run.skipped = true;
  std::printf("SKIP   : %s %s\n", where().c_str(), message ? message : "");
  print_location(file, line);
  std::fflush(stdout);
}

bool check(bool ok, const char* failure, const char* file, int line) {
  if (!ok) record_failure(failure, file, line);
  return ok;
}

bool compare_failed(const char* message, const std::string* actual_value, const std::string* expected_value,
                    const char* actual, const char* expected, const char* file, int line) {
  size_t la = std::strlen(actual), le = std::strlen(expected), w = std::max(la, le);
  std::string text = std::string(message) + "\n   Actual   (" + actual + ")" + std::string(w - la, ' ') + ": " +
                     (actual_value ? *actual_value : "<null>") + "\n   Expected (" + expected + ")" +
                     std::string(w - le, ' ') + ": " + (expected_value ? *expected_value : "<null>");
  record_failure(text, file, line);
  return false;
}

std::string pretty_text(const std::string& s) {
  std::string out = "\"";
  size_t n = 0;
  for (unsigned char c : s) {
    if (++n > 256) {
      out += "...";
      break;
    }
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

std::string double_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", d);
  return buf;
}

std::string float_text(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", double(f));
  return buf;
}

// Qt's rule: infinities and NaN match their own kind; an expected value near zero needs an actual near
// zero; otherwise the two agree to about 12 significant digits (5 for float).
bool fuzzy_equal(double a, double e) {
  if (std::isinf(e)) return std::isinf(a) && (a < 0) == (e < 0);
  if (std::isnan(e)) return std::isnan(a);
  if (std::fabs(e) <= 1e-12) return std::fabs(a) <= 1e-12;
  return std::fabs(a - e) * 1e12 <= std::min(std::fabs(a), std::fabs(e));
}

bool fuzzy_equal(float a, float e) {
  if (std::isinf(e)) return std::isinf(a) && (a < 0) == (e < 0);
  if (std::isnan(e)) return std::isnan(a);
  if (std::fabs(e) <= 0.00001f) return std::fabs(a) <= 0.00001f;
  return std::fabs(a - e) * 100000.f <= std::min(std::fabs(a), std::fabs(e));
}

void emit_message(MessageKind kind, const std::string& text) {
  const char* label = kind == MessageKind::Debug ? "QDEBUG " : kind == MessageKind::Info ? "QINFO  " : kind == MessageKind::Warning ? "QWARN  " : "QSYSTEM";
  std::printf("%s: %s %s\n", label, where().c_str(), text.c_str());
  std::fflush(stdout);
}

#define QTFREE_PRINTF_MESSAGE(method, kind)              \
  void MessageLogger::method(const char* format, ...) const { \
    va_list args;                                       \
    va_start(args, format);                             \
    std::string text = vformat(format, args);           \
    va_end(args);                                       \
    emit_message(kind, text);                           \
  }
QTFREE_PRINTF_MESSAGE(debug, MessageKind::Debug)
QTFREE_PRINTF_MESSAGE(info, MessageKind::Info)
QTFREE_PRINTF_MESSAGE(warning, MessageKind::Warning)
QTFREE_PRINTF_MESSAGE(critical, MessageKind::Critical)
#undef QTFREE_PRINTF_MESSAGE

int exec(QObject& test, int argc, char** argv) {
  const SlotTable& t = test.qtfree_slots();
  run = Run{};
  run.class_name = t.class_name;
  std::vector<std::pair<const Slot*, std::string>> chosen;  // function, tag ("" for all rows)
  std::string unknown;                                      // a function asked for that is not there
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-help" || a == "--help" || a == "-h") return usage(argv[0], nullptr);
    if (a == "-functions" || a == "-datatags") {
      for (const Slot& s : t.functions) {
        if (is_special(s.name)) continue;
        if (a == "-functions") {
          std::printf("%s()\n", s.name);
          continue;
        }
        run.columns.clear(), run.rows.clear();
        set_current(s.name, "");
        invoke(find_slot(t, std::string(s.name) + "_data"), test);
        if (run.rows.empty()) std::printf("%s %s\n", t.class_name, s.name);
        for (const Row& r : run.rows) std::printf("%s %s %s\n", t.class_name, s.name, r.tag.c_str());
      }
      return 0;
    }
    if (!a.empty() && a[0] == '-') return usage(argv[0], ("Unknown option: '" + a + "'").c_str());
    size_t colon = a.find(':');
    std::string name = a.substr(0, colon), tag = colon == std::string::npos ? "" : a.substr(colon + 1);
    const Slot* s = find_slot(t, name);
    if (!s || is_special(name)) {
      std::fprintf(stderr, "Unknown test function: '%s'. Available functions:\n", name.c_str());
      for (const Slot& x : t.functions)
        if (!is_special(x.name)) std::fprintf(stderr, "%s()\n", x.name);
      unknown = name;
      break;
    }
    chosen.push_back({s, tag});
  }
  if (chosen.empty())
    for (const Slot& s : t.functions)
      if (!is_special(s.name)) chosen.push_back({&s, ""});

  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) signal(sig, on_fatal_signal);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  auto t0 = std::chrono::steady_clock::now();
  auto totals = [&] {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    std::printf("Totals: %d passed, %d failed, %d skipped, 0 blacklisted, %lldms\n", run.passed, run.failures, run.skips,
                static_cast<long long>(ms));
    std::printf("********* Finished testing of %s *********\n", t.class_name);
    std::fflush(stdout);
  };
  std::printf("********* Start testing of %s *********\n", t.class_name);
  std::printf("Config: Using the Qt-free test harness (tests/qtfree), no Qt\n");
  if (!unknown.empty()) {  // Qt Test runs nothing then, not even initTestCase
    set_current(unknown, "");
    std::printf("FAIL!  : %s Function not found: %s\n", where().c_str(), unknown.c_str());
    run.failures++;
    totals();
    return 1;
  }
  try {
    if (run_case_function(t, test, "initTestCase"))
      for (const auto& [fn, tag] : chosen) run_function(t, test, *fn, tag);
    run_case_function(t, test, "cleanupTestCase");
  } catch (...) {
    totals();
    throw;
  }
  totals();
  return std::min(run.failures, 127);
}

} // namespace qtfree

const qtfree::SlotTable& QObject::qtfree_slots() const {
  static const qtfree::SlotTable none{"QObject", {}};
  return none;
}

namespace QTest {

qtfree::TestData& newRow(const char* tag) {
  static qtfree::TestData data;
  qtfree::run.rows.push_back({tag ? tag : "", {}});
  return data;
}

qtfree::TestData& addRow(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string tag = qtfree::vformat(format, args);
  va_end(args);
  return newRow(tag.c_str());
}

void qWait(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

bool currentTestFailed() { return qtfree::run.failed; }
const char* currentTestFunction() { return qtfree::run.function.c_str(); }
const char* currentDataTag() { return qtfree::run.row ? qtfree::run.row->tag.c_str() : nullptr; }

bool qCompare(double t1, double t2, const char* actual, const char* expected, const char* file, int line) {
  if (qtfree::fuzzy_equal(t1, t2)) return true;
  std::string a = qtfree::double_text(t1), e = qtfree::double_text(t2);
  return qtfree::compare_failed("Compared doubles are not the same (fuzzy compare)", &a, &e, actual, expected, file, line);
}

bool qCompare(float t1, float t2, const char* actual, const char* expected, const char* file, int line) {
  if (qtfree::fuzzy_equal(t1, t2)) return true;
  std::string a = qtfree::float_text(t1), e = qtfree::float_text(t2);
  return qtfree::compare_failed("Compared floats are not the same (fuzzy compare)", &a, &e, actual, expected, file, line);
}

bool qCompare(const char* t1, const char* t2, const char* actual, const char* expected, const char* file, int line) {
  if ((t1 && t2 && std::strcmp(t1, t2) == 0) || (!t1 && !t2)) return true;
  std::string a = t1 ? qtfree::pretty_text(t1) : "<null>", e = t2 ? qtfree::pretty_text(t2) : "<null>";
  return qtfree::compare_failed("Compared strings are not the same", &a, &e, actual, expected, file, line);
}

bool qVerify(bool statement, const char* statementStr, const char* description, const char* file, int line) {
  if (statement) return true;
  qtfree::record_failure(std::string("'") + statementStr + "' returned FALSE. (" + (description ? description : "") + ")", file, line);
  return false;
}

} // namespace QTest
