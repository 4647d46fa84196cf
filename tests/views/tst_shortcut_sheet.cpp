// Help › Keyboard Shortcuts (issue 24 #10a): the sheet lists exactly the keys the window registered,
// so a shortcut added anywhere appears in it, and the stepping keys it lists are the ones the key
// filter steps with.
#include <QAction>
#include <QDialog>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QtTest>

#include "app/mainwindow.h"
#include "panels/shortcutsheet.h"

using namespace loupe::views;

class TestShortcutSheet : public QObject {
  Q_OBJECT

  static const ShortcutEntry* find(const QList<ShortcutEntry>& entries, const QString& what) {
    for (const ShortcutEntry& e : entries)
      if (e.what == what) return &e;
    return nullptr;
  }

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoupeShortcutTest"));
  }

  void everyRegisteredShortcutIsListed() {
    MainWindow w;
    const QList<ShortcutEntry> entries = collectShortcuts(&w);
    for (const QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      const QString key = a->shortcut().toString(QKeySequence::NativeText);
      bool listed = false;
      for (const ShortcutEntry& e : entries) listed = listed || e.keys.split(QStringLiteral(", ")).contains(key);
      QVERIFY2(listed, qPrintable(a->text() + QLatin1Char(' ') + key));
    }
    // the stepping keys, which have no QAction shortcut, with the action they trigger
    const QList<std::pair<QString, int>> steps{{QStringLiteral("Next Match"), Qt::Key_Right},
                                               {QStringLiteral("Previous Match"), Qt::Key_Left},
                                               {QStringLiteral("Next Pass"), Qt::Key_Down},
                                               {QStringLiteral("Previous Pass"), Qt::Key_Up},
                                               {QStringLiteral("Next Kernel"), Qt::Key_PageDown},
                                               {QStringLiteral("Previous Kernel"), Qt::Key_PageUp}};
    for (const auto& [what, key] : steps) {
      const ShortcutEntry* e = find(entries, what);
      QVERIFY2(e, qPrintable(what));
      QCOMPARE(e->keys, QKeySequence(key).toString(QKeySequence::NativeText));
      QCOMPARE(e->where, QStringLiteral("Anywhere"));
      QVERIFY(w.handleNavigationKey(key));
    }
    QVERIFY(!w.handleNavigationKey(Qt::Key_Home));
    // a panel's own keys are listed under the panel
    const ShortcutEntry* relayout = find(entries, QStringLiteral("Re-layout"));
    QVERIFY(relayout);
    QCOMPARE(relayout->keys, QStringLiteral("R"));
    QCOMPARE(relayout->where, QStringLiteral("Graph"));
    const ShortcutEntry* fit = find(entries, QStringLiteral("Fit"));
    QVERIFY(fit);
    QCOMPARE(fit->keys, QStringLiteral("F, Space"));
    QCOMPARE(fit->where, QStringLiteral("Graph"));
    QVERIFY(find(entries, QStringLiteral("Next change")));  // the Compare panel's F7
    QCOMPARE(find(entries, QStringLiteral("Next change"))->where, QStringLiteral("Compare"));
  }

  void aNewShortcutAppearsWithoutEditingTheSheet() {
    MainWindow w;
    const int before = int(collectShortcuts(&w).size());
    auto* a = new QAction(QStringLiteral("&Frobnicate"), &w);
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    const QList<ShortcutEntry> after = collectShortcuts(&w);
    QCOMPARE(int(after.size()), before + 1);
    QVERIFY(after.contains(ShortcutEntry{QStringLiteral("Ctrl+Shift+J"), QStringLiteral("Frobnicate"), QStringLiteral("Anywhere")}));
  }

  void helpMenuOpensTheSheet() {
    MainWindow w;
    QAction* sheet = nullptr;
    for (QAction* m : w.menuBar()->actions())
      if (m->menu() && m->text() == QStringLiteral("&Help"))
        for (QAction* a : m->menu()->actions())
          if (a->text() == QStringLiteral("&Keyboard Shortcuts")) sheet = a;
    QVERIFY(sheet);
    sheet->trigger();
    auto* d = w.findChild<QDialog*>(QStringLiteral("shortcutSheet"));
    QVERIFY(d);
    const QString text = d->findChild<QTextBrowser*>()->toPlainText();
    QVERIFY(text.contains(QStringLiteral("Next Match")));
    QVERIFY(text.contains(QStringLiteral("Keyboard Shortcuts")));  // it lists itself (F1)
    d->close();
  }
};

QTEST_MAIN(TestShortcutSheet)
#include "tst_shortcut_sheet.moc"
