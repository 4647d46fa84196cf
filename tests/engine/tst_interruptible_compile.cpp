// Ctrl-C stops a compile that runs inside a library (support/isolate.h run_interruptible): the work runs in
// a forked child that is killed when the calling thread sees the interruption (check_interrupt) or when
// another thread raised one since it started (interrupt_epoch); forks wait for in-process compiles
// (ForkGuard). A compile that is not stopped returns its result.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "support/error.h"
#include "support/interrupt_epoch.h"
#include "support/isolate.h"

using namespace loupe;

namespace {
std::atomic<bool> ctrl_c{false};
bool ctrl_c_pending() { return ctrl_c.exchange(false); }

// The body of a compile that would take `seconds` (sleeping in the child), returning "object".
std::string slow_compile(int seconds) {
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  return "object";
}

// The kind of the Error that f throws; Runtime with "no error" when it returns.
std::pair<ErrorKind, std::string> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  return {ErrorKind::Runtime, "no error"};
}
} // namespace

class TestInterruptibleCompile : public QObject {
  Q_OBJECT
private slots:
  void cleanup() { set_interrupt_check(nullptr); }

  void a_compile_not_stopped_returns_its_result() {
    QCOMPARE(run_interruptible([] { return std::string("object bytes"); }, "compile"), std::string("object bytes"));
    auto [kind, what] = error_of([] { run_interruptible([]() -> std::string { throw Error("bad source"); }, "compile"); });
    QCOMPARE(kind, ErrorKind::Runtime);
    QVERIFY2(what == "bad source", what.c_str());
  }

  void ctrl_c_on_the_waiting_thread_kills_the_child() {
    set_interrupt_check(&ctrl_c_pending);
    const uint64_t before = interrupt_epoch();
    std::thread press([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ctrl_c = true;
    });
    auto [kind, what] = error_of([] { run_interruptible([] { return slow_compile(30); }, "compile"); });
    press.join();
    QCOMPARE(kind, ErrorKind::Interrupt);  // not the child's "object" after 30 s
    QVERIFY(interrupt_epoch() > before);    // the other threads' compiles hear of it
  }

  void an_interruption_raised_on_another_thread_kills_the_child() {
    // a compile on the CPU pool: the Ctrl-C is seen by the launching thread, which counts it
    std::thread other([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      note_interrupt();
    });
    auto [kind, what] = error_of([] { run_interruptible([] { return slow_compile(30); }, "compile"); });
    other.join();
    QCOMPARE(kind, ErrorKind::Interrupt);
    // and the next compile is not stopped by that old interruption
    QCOMPARE(run_interruptible([] { return std::string("next"); }, "compile"), std::string("next"));
  }

  void a_fork_waits_for_compiles_in_this_process() {
    std::atomic<bool> held{false}, released{false};
    std::thread in_process([&] {
      ForkGuard inside;
      held = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      released = true;
    });
    while (!held) std::this_thread::yield();
    // the child is forked only once the guard is given back
    std::string seen = run_interruptible([&] { return std::string(released ? "after" : "during"); }, "compile");
    in_process.join();
    QCOMPARE(seen, std::string("after"));
  }
};

QTEST_APPLESS_MAIN(TestInterruptibleCompile)
#include "tst_interruptible_compile.moc"
