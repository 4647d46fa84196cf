// Benchmark of the app on the bundled example's trace (prints one JSON object; no timed assertions):
// opening the trace in the main window until it is loaded and painted, and stepping through matches
// with the keyboard's Right key: the time until the step's graph is replayed and painted (the coarse
// picture) and until its layout is final. Wall-clock and this process's CPU milliseconds. Then the
// biggest passes, opened and stepped, with the longest wait of input posted meanwhile.
// LOUPE_BENCH_TRACE names another trace to measure on (one with big graphs, say).
#include <QTimer>
#include <QtTest>

#if __has_include("app/mainwindow.h")
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>

#include "graph/graphpanel.h"
#include "graph/graphscene.h"
#include "graph/graphview.h"
#include "app/mainwindow.h"
#include "panels/comparepanel.h"
#include "session/session.h"

using namespace loupe::views;

namespace {

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Stopwatch {
  QElapsedTimer wall;
  double cpu0 = cpuMs();
  Stopwatch() { wall.start(); }
  QJsonObject read() const {
    return {{"wall_ms", double(wall.nsecsElapsed()) * 1e-6}, {"cpu_ms", cpuMs() - cpu0}};
  }
};

// How long input waits: a thread posts a stamped event to the GUI thread every 2 ms, as the window
// system queues a user's input; the longest wait from posting to delivery is the stall a user feels.
// (A timer would overstate it: Qt's GLib loop runs timers only once no posted event is pending.)
class InputLatencyProbe : public QObject {
public:
  InputLatencyProbe() {
    clock_.start();
    poster_ = std::thread([this] {
      while (!stop_.load()) {
        QCoreApplication::postEvent(this, new Stamped(clock_.nsecsElapsed()));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~InputLatencyProbe() override {
    stop_.store(true);
    if (poster_.joinable()) poster_.join();
    QCoreApplication::removePostedEvents(this);
  }
  // Delivers what is still queued first: the last events' waits count too.
  double longestMs() {
    stop_.store(true);
    if (poster_.joinable()) poster_.join();
    QCoreApplication::sendPostedEvents(this, kType);
    return longest_;
  }

protected:
  void customEvent(QEvent* e) override {
    if (e->type() == kType)
      longest_ = std::max(longest_, (clock_.nsecsElapsed() - static_cast<Stamped*>(e)->posted) * 1e-6);
  }

private:
  static constexpr QEvent::Type kType = QEvent::Type(QEvent::User + 71);
  struct Stamped : QEvent {
    explicit Stamped(qint64 at) : QEvent(kType), posted(at) {}
    qint64 posted;
  };
  QElapsedTimer clock_;
  std::atomic<bool> stop_{false};
  std::thread poster_;
  double longest_ = 0;
};

// The longest the event loop went without running timers: the time until the app is idle again
// (Qt's GLib loop holds timers back while posted events are pending), an upper bound on input's wait.
class IdleProbe {
public:
  IdleProbe() {
    timer_.setInterval(2);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      longest_ = std::max(longest_, since_.nsecsElapsed() * 1e-6);
      since_.restart();
    });
    since_.start();
    timer_.start();
  }
  double longestMs() { return std::max(longest_, since_.nsecsElapsed() * 1e-6); }

private:
  QTimer timer_;
  QElapsedTimer since_;
  double longest_ = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

class BenchApp : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_, example_;

private Q_SLOTS:
  void initTestCase() {
    if (qEnvironmentVariableIsEmpty("LOUPE_CLI") || qEnvironmentVariableIsEmpty("LOUPE_SOURCE_DIR"))
      QSKIP("needs LOUPE_CLI and LOUPE_SOURCE_DIR (run it through ctest)");
    QSettings().clear();  // the default layout, not whatever an earlier run left (a visible Compare tab, say)
    // LOUPE_BENCH_TRACE: measure on this trace instead (e.g. of a program with big graphs)
    if (const QString given = qEnvironmentVariable("LOUPE_BENCH_TRACE"); !given.isEmpty()) {
      QVERIFY2(QFile::exists(given), qPrintable(given));
      trace_ = example_ = given;
      return;
    }
    const QDir src(qEnvironmentVariable("LOUPE_SOURCE_DIR"));
    // the richest bundled example there is
    for (const char* name : {"resources/examples/train_cnn.py", "resources/examples/mlp_forward.py"})
      if (QFile::exists(src.filePath(QString::fromLatin1(name)))) {
        example_ = src.filePath(QString::fromLatin1(name));
        break;
      }
    trace_ = dir_.filePath(QStringLiteral("bundled.loupe"));
    QProcess p;
    p.start(qEnvironmentVariable("LOUPE_CLI"), {QStringLiteral("run"), example_, QStringLiteral("--trace"), trace_,
                                                   QStringLiteral("--compare-noopt")});
    QVERIFY(p.waitForFinished(1200000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  }

  void openAndStep() {
    QJsonObject out;
    out.insert(QStringLiteral("example"), QFileInfo(example_).fileName());
    out.insert(QStringLiteral("trace_bytes"), double(QFileInfo(trace_).size()));
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    Stopwatch open;
    w.openFile(trace_);
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isLoading() && w.session()->hasTrace(), 60000);
    QJsonObject loaded = open.read();
    w.repaint();
    QJsonObject painted = open.read();
    out.insert(QStringLiteral("open_to_loaded"), loaded);
    out.insert(QStringLiteral("open_to_painted"), painted);
    const auto& t = w.session()->trace();
    out.insert(QStringLiteral("kernels"), int(t.kernels.size()));
    out.insert(QStringLiteral("passes"), int(t.passes.size()));

    // Step through matches as a user does (Right), each until painted, then until the layout is final.
    w.graphPanel()->view()->setFocus();
    std::vector<double> toPaint, toFinal;
    int maxNodes = 0;
    for (int i = 0; i < 40; i++) {
      Stopwatch step;
      QTest::keyClick(w.graphPanel()->view(), Qt::Key_Right);
      QVERIFY(w.session()->waitForStep());  // replayed off the GUI thread
      QCoreApplication::processEvents();
      w.graphPanel()->view()->viewport()->repaint();
      toPaint.push_back(step.read()[QStringLiteral("wall_ms")].toDouble());
      QTRY_VERIFY_WITH_TIMEOUT(w.graphPanel()->layoutState() == GraphPanel::LayoutState::Final ||
                                   w.graphPanel()->layoutState() == GraphPanel::LayoutState::Empty,
                               60000);
      toFinal.push_back(step.read()[QStringLiteral("wall_ms")].toDouble());
      maxNodes = std::max(maxNodes, int(w.graphPanel()->scene()->graph().nodes.size()));
    }
    out.insert(QStringLiteral("steps"), 40);
    out.insert(QStringLiteral("largest_step_graph_boxes"), maxNodes);
    out.insert(QStringLiteral("median_step_to_painted_wall_ms"), median(toPaint));
    out.insert(QStringLiteral("max_step_to_painted_wall_ms"), *std::max_element(toPaint.begin(), toPaint.end()));
    out.insert(QStringLiteral("median_step_to_final_layout_wall_ms"), median(toFinal));
    out.insert(QStringLiteral("max_step_to_final_layout_wall_ms"), *std::max_element(toFinal.begin(), toFinal.end()));

    // The biggest graphs: the five passes with the most matches (on a whole model, the schedule's),
    // opened at step 0 and then stepped once: replayed, drawn at a readable scale, painted.
    std::vector<const loupe::TracePass*> big;
    for (const loupe::TracePass& p : t.passes) big.push_back(&p);
    std::sort(big.begin(), big.end(), [](auto* a, auto* b) { return a->match_count > b->match_count; });
    big.resize(std::min<size_t>(big.size(), 5));
    // LOUPE_BENCH_PASSES: pass ids to measure as well (e.g. the ones with the biggest graphs)
    for (const QString& id : qEnvironmentVariable("LOUPE_BENCH_PASSES").split(u',', Qt::SkipEmptyParts))
      if (const loupe::TracePass* p = t.pass(id.toLongLong())) big.push_back(p);
    QJsonArray bigRows;
    for (const loupe::TracePass* p : big) {
      QJsonObject row{{QStringLiteral("pass"), QString::fromStdString(p->name)}, {QStringLiteral("matches"), double(p->match_count)}};
      for (int64_t stepTo : {int64_t(0), std::min<int64_t>(1, p->match_count)}) {
        Stopwatch sw;
        InputLatencyProbe input;
        IdleProbe idle;
        w.session()->selectPass(p->id, stepTo);
        // the event loop runs as it would for a user: the step replayed, a big picture drawn off the GUI thread
        while (w.session()->isStepPending() || w.graphPanel()->layoutState() == GraphPanel::LayoutState::Drawing)
          QTest::qWait(1);
        QCoreApplication::processEvents();
        w.graphPanel()->view()->viewport()->repaint();
        const QString key = stepTo == 0 ? QStringLiteral("open") : QStringLiteral("step");
        row.insert(key + QStringLiteral("_to_painted"), sw.read());
        row.insert(key + QStringLiteral("_longest_input_wait_ms"), input.longestMs());
        row.insert(key + QStringLiteral("_longest_timer_wait_ms"), idle.longestMs());
        row.insert(key + QStringLiteral("_boxes"), int(w.graphPanel()->scene()->graph().nodes.size()));
        if (const auto& m = w.graphPanel()->scene()->graph().model) row.insert(key + QStringLiteral("_nodes"), int(m->nodes.size()));
        // LOUPE_BENCH_SHOTS: a folder for the window as each big pass is shown (to look at)
        if (const QString shots = qEnvironmentVariable("LOUPE_BENCH_SHOTS"); !shots.isEmpty())
          w.grab().save(QDir(shots).filePath(QStringLiteral("pass%1-%2.png").arg(p->id).arg(key)));
      }
      row.insert(QStringLiteral("zoom"), w.graphPanel()->view()->zoom());
      bigRows.append(row);
    }
    out.insert(QStringLiteral("biggest_passes"), bigRows);
    // Idle: once the last layout is final, the app should use no CPU.
    QTRY_VERIFY_WITH_TIMEOUT(w.graphPanel()->layoutState() == GraphPanel::LayoutState::Final ||
                                 w.graphPanel()->layoutState() == GraphPanel::LayoutState::Empty,
                             120000);
    QTest::qWait(500);
    const double idle0 = cpuMs();
    QElapsedTimer idleWall;
    idleWall.start();
    QTest::qWait(3000);
    out.insert(QStringLiteral("idle_cpu_percent"), 100 * (cpuMs() - idle0) / (idleWall.nsecsElapsed() * 1e-6));
    out.insert(QStringLiteral("compare_tab_visible"), w.comparePanel()->isVisible());
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  }
};

QTEST_MAIN(BenchApp)
#else
// Built without the views (no Qt Widgets or Graphviz): the same test, skipped.
class BenchApp : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QSKIP("built without the views (Qt Widgets and Graphviz)"); }
  void openAndStep() {}
};
QTEST_APPLESS_MAIN(BenchApp)
#endif
#include "tst_bench_app.moc"
