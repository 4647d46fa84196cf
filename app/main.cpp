// loupe [--panel TITLE] [TRACE.loupe | PROGRAM.py]: opens a trace, or opens a Python program in the Script panel and runs it.
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QTimer>

#include "panels/apppalette.h"
#include "app/mainwindow.h"
#include "runtime/device.h"

int main(int argc, char** argv) {
  loupe::prepare_process_environment();  // before any thread starts (see runtime/device.h)
  QGuiApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("Loupe"));
  QCoreApplication::setApplicationName(QStringLiteral("Loupe"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/loupe.svg")));
  loupe::views::applyAppPalette(false);

  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("Loupe: an interactive visual debugger for a tinygrad-like tensor compiler."));
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("a trace (*.loupe) to open, or a Python program (*.py) to run"),
                            QStringLiteral("[TRACE.loupe | PROGRAM.py]"));
  QCommandLineOption panel(QStringLiteral("panel"), QStringLiteral("show this panel at start (e.g. Memory, Profile, Code)"),
                           QStringLiteral("title"));
  cli.addOption(panel);
  cli.process(app);

  loupe::views::MainWindow window;
  window.show();
  if (cli.isSet(panel) && !window.showPanel(cli.value(panel))) {
    QStringList titles;
    for (QDockWidget* d : window.docks()) titles << d->windowTitle();
    qCritical("loupe: --panel: no panel called '%s' (panels: %s)", qPrintable(cli.value(panel)),
              qPrintable(titles.join(QStringLiteral(", "))));
    return 2;
  }
  const QStringList files = cli.positionalArguments();
  if (!files.isEmpty()) {
    const QString path = QFileInfo(files.first()).absoluteFilePath();
    QTimer::singleShot(0, &window, [&window, path] { window.openFile(path); });
  }
  return app.exec();
}
