// The BEAM panel on a trace recorded with BEAM=2: the selected kernel's candidates as rows (round,
// best run, speed-up over the kernel without opts, build time, opts, status), the chosen one marked
// and the fastest timed; sorting by time puts it first; a kernel without a search says how to get one.
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "panels/beampanel.h"
#include "screenshots.h"
#include "session/session.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "trace/trace_session.h"

using namespace loupe::views;

class TestBeamPanel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString beamTrace_, plainTrace_;

  static void record(const QString& path, int beam) {
    using namespace loupe;
    options().beam = beam;
    TraceSession::start(path.toStdString());
    Tensor a = Tensor::arange(24 * 40).reshape({24, 40}).cast(dtypes::float32) * 0.01;
    Tensor b = Tensor::arange(40 * 16).reshape({40, 16}).cast(dtypes::float32) * 0.02;
    (void)a.matmul(b).to_vector();
    TraceSession::finish();
    options().beam = 0;
  }

private Q_SLOTS:
  void initTestCase() {
    qputenv("DISABLE_COMPILER_CACHE", "1");  // BEAM searches instead of reading an earlier choice
    beamTrace_ = dir_.filePath(QStringLiteral("beam.loupe"));
    plainTrace_ = dir_.filePath(QStringLiteral("plain.loupe"));
    record(beamTrace_, 2);
    record(plainTrace_, 0);
  }

  void candidatesOfTheSelectedKernel() {
    Session s;
    QVERIFY(s.openNow(beamTrace_));
    BeamPanel panel(&s);
    panel.resize(1100, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    s.selectKernel(s.trace().kernels.front().id);
    QTableWidget* t = panel.table();
    QVERIFY2(t->rowCount() > 2, qPrintable(panel.headerText()));
    int chosen = -1;
    double fastest = 1e300;
    for (int r = 0; r < t->rowCount(); r++) {
      const double us = t->item(r, BeamPanel::Time)->data(Qt::UserRole).toDouble();
      if (t->item(r, BeamPanel::Status)->text() == QStringLiteral("timed")) fastest = std::min(fastest, us);
      if (t->item(r, BeamPanel::Chosen)->text() == QStringLiteral("★")) {
        QCOMPARE(chosen, -1);
        chosen = r;
      }
    }
    QVERIFY(chosen >= 0);
    QCOMPARE(t->item(chosen, BeamPanel::Time)->data(Qt::UserRole).toDouble(), fastest);
    QVERIFY2(panel.headerText().contains(QStringLiteral("BEAM tried")) && panel.headerText().contains(QStringLiteral("chosen")),
             qPrintable(panel.headerText()));
    t->sortItems(BeamPanel::Time, Qt::AscendingOrder);
    QCOMPARE(t->item(0, BeamPanel::Time)->data(Qt::UserRole).toDouble(), fastest);
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/beam_panel.png")));
  }

  void aKernelWithoutSearchSaysHow() {
    Session s;
    QVERIFY(s.openNow(plainTrace_));
    BeamPanel panel(&s);
    s.selectKernel(s.trace().kernels.front().id);
    QCOMPARE(panel.table()->rowCount(), 0);
    QVERIFY2(panel.headerText().contains(QStringLiteral("BEAM=2")), qPrintable(panel.headerText()));
  }
};

QTEST_MAIN(TestBeamPanel)
#include "tst_beam_panel.moc"
