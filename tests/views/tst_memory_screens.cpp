// The Memory panel on a real trace: a small training loop (two linear layers, SGD with momentum) run
// eight steps through TinyJit under a trace session. The panel shows the CPU's buffers, the capture
// and the replays; a click in the chart selects the buffer drawn there; the planner's shared
// allocation lists the buffers it serves; a kernel in the details is a link to a kernel of the trace.
// Light and dark grabs go to $LOUPE_SCREENSHOT_DIR (default <tmp>/loupe-screens).
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleFactory>
#include <QTextBrowser>
#include <QtTest>

#include "jit/jit.h"
#include "memory/memorychart.h"
#include "memory/memorypanel.h"
#include "nn/layers.h"
#include "nn/optim.h"
#include "panels/apppalette.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"
#include "screenshots.h"

using namespace loupe::views;

using namespace loupe;

class TestMemoryScreens : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::vector<TraceEvent> events_;
  std::vector<int64_t> kernelIds_;

private Q_SLOTS:
  void initTestCase() {
    useFusionStyle();
    const std::string path = dir_.filePath(QStringLiteral("jit.loupe")).toStdString();
    TraceSession::start(path);
    {
      nn::Linear l1(64, 128), l2(128, 10);
      std::vector<Tensor*> params{&l1.weight, &*l1.bias, &l2.weight, &*l2.bias};
      nn::LARS opt = nn::SGD(params, 0.01, 0.9);
      TinyJit step([&](const std::vector<Tensor>& in) {
        opt.zero_grad();
        Tensor loss = l2(l1(in[0]).relu()).sparse_categorical_crossentropy(in[1]);
        loss.backward();
        opt.step();
        return std::vector<Tensor>{loss};
      });
      for (int i = 0; i < 8; i++) {
        Tensor x = Tensor::rand({32, 64});
        Tensor y = (Tensor::arange(32) + Tensor(int64_t(i))).mod(Tensor(int64_t(10)));
        (void)step({x, y})[0].to_vector();
      }
    }
    TraceSession::finish();
    TraceReader r(path);
    events_ = r.profile();
    for (const TraceKernel& k : r.kernels()) kernelIds_.push_back(k.id);
  }

  void panelShowsTheLoop_data() {
    addLightDarkRows();
  }
  void panelShowsTheLoop() {
    QFETCH(bool, dark);
    usePaletteOfRow(dark);
    MemoryPanel panel;
    panel.resize(1500, 520);
    panel.setData(MemoryData::build(events_));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const MemoryData& d = *panel.data();
    QCOMPARE(int(d.lanes().size()), 1);
    QCOMPARE(d.spans().size(), size_t(7));  // one capture (call 2), six replays
    QVERIFY(panel.summary()->text().contains(QStringLiteral("with the planner")));

    // The planner's shared allocation with the most buffers: its details list them as links.
    int shared = -1;
    auto stepServes = [&](int i) {  // how many buffers of the captured step it serves
      int n = 0;
      for (const MemoryBuffer::Served& s : d.buffers()[size_t(i)].serves) n += s.inSchedule ? 0 : 1;
      return n;
    };
    for (int i = 0; i < int(d.buffers().size()); ++i)
      if (stepServes(i) > 1 && (shared < 0 || stepServes(i) > stepServes(shared))) shared = i;
    QVERIFY2(shared >= 0, "no allocation serves two buffers");
    const QPointF at = panel.chart()->bufferPoint(shared);
    QVERIFY(!at.isNull());
    QSignalSpy clicked(panel.chart(), &MemoryChart::bufferClicked);
    QTest::mouseClick(panel.chart(), Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(panel.selectedBuffer(), shared);
    const QString html = panel.details()->toHtml();
    QVERIFY(html.contains(QStringLiteral("Memory planner")));
    qint64 planned = -1;  // a buffer of the step that lives in it
    for (const MemoryBuffer::Served& s : d.buffers()[size_t(shared)].serves)
      if (!s.inSchedule) planned = s.buffer;
    QVERIFY(html.contains(QStringLiteral("buffer:%1").arg(planned)));
    QVERIFY(html.contains(QStringLiteral("run:")));
    saveChecked(panel.grab().toImage(), QStringLiteral("memory-jit-") + (dark ? "dark" : "light"));
    // The replays, zoomed in: the step's buffers come and go in the shared allocations.
    const JitCall& first = d.spans()[1];
    panel.chart()->showRange(double(first.startNs), double(d.spans().back().startNs + d.spans().back().durationNs));
    saveChecked(panel.grab().toImage(), QStringLiteral("memory-jit-replays-") + (dark ? "dark" : "light"));

    // A kernel link names a kernel of the trace.
    QSignalSpy kernel(&panel, &MemoryPanel::kernelActivated);
    const MemoryBuffer& b = d.buffers()[size_t(shared)];
    const int run = !b.writers.empty() ? b.writers.front() : b.readers.front();
    Q_EMIT panel.details()->anchorClicked(QUrl(QStringLiteral("run:%1").arg(run)));
    QCOMPARE(kernel.count(), 1);
    const qint64 id = kernel.first().at(0).toLongLong();
    QVERIFY(std::find(kernelIds_.begin(), kernelIds_.end(), id) != kernelIds_.end());
    // A buffer link selects that buffer.
    Q_EMIT panel.details()->anchorClicked(QUrl(QStringLiteral("buffer:%1").arg(planned)));
    QVERIFY(d.bufferIndex(planned) >= 0);
    QCOMPARE(panel.selectedBuffer(), d.bufferIndex(planned));
  }

  void emptyPanelSaysSo() {
    MemoryPanel panel;
    panel.setData(MemoryData::build({}));
    QVERIFY(panel.summary()->text().contains(QStringLiteral("No buffer allocations")));
    QCOMPARE(panel.chart()->bufferAtPos({300, 100}), -1);
  }
};

QTEST_MAIN(TestMemoryScreens)
#include "tst_memory_screens.moc"
