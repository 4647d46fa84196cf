#include "panels/shortcutsheet.h"

#include <QAbstractButton>
#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QKeySequence>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

namespace loupe::views {

namespace {

// "&Find in Graph…\tCtrl+F" -> "Find in Graph…"
QString plainText(QString text) {
  text = text.section(QLatin1Char('\t'), 0, 0);
  text.replace(QLatin1String("&&"), QStringLiteral("\x01"));
  text.remove(QLatin1Char('&'));
  text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
  return text.trimmed();
}

// The dock (or titled widget) an object lives in; the window itself is "Anywhere".
QString whereOf(const QObject* o, const QWidget* window) {
  for (; o && o != window; o = o->parent())
    if (auto* w = qobject_cast<const QWidget*>(o); w && !w->windowTitle().isEmpty()) return w->windowTitle();
  return QObject::tr("Anywhere");
}

QString keysText(const QList<QKeySequence>& keys) {
  QStringList out;
  for (const QKeySequence& k : keys)
    if (!k.isEmpty()) out << k.toString(QKeySequence::NativeText);
  return out.join(QStringLiteral(", "));
}

} // namespace

QList<ShortcutEntry> collectShortcuts(const QWidget* window) {
  QList<ShortcutEntry> out;
  auto add = [&](const QString& keys, const QString& what, const QObject* owner) {
    if (keys.isEmpty() || what.isEmpty()) return;
    const ShortcutEntry e{keys, what, whereOf(owner, window)};
    if (!out.contains(e)) out << e;
  };
  for (const QAction* a : window->findChildren<QAction*>()) {
    QList<QKeySequence> keys = a->shortcuts();
    if (const QVariant v = a->property(kSteppingKeyProperty); v.isValid()) keys << v.value<QKeySequence>();
    add(keysText(keys), plainText(a->text().isEmpty() ? a->toolTip() : a->text()), a->parent());
  }
  for (const QAbstractButton* b : window->findChildren<QAbstractButton*>())
    if (!b->shortcut().isEmpty())
      add(keysText({b->shortcut()}), plainText(b->toolTip().isEmpty() ? b->text() : b->toolTip()).section(QLatin1String(" ("), 0, 0), b);
  std::sort(out.begin(), out.end(), [](const ShortcutEntry& a, const ShortcutEntry& b) {
    const bool aAny = a.where == QObject::tr("Anywhere"), bAny = b.where == QObject::tr("Anywhere");
    if (aAny != bAny) return aAny;
    return a.where != b.where ? a.where < b.where : a.what < b.what;
  });
  return out;
}

QString shortcutSheetHtml(const QList<ShortcutEntry>& entries) {
  QString html = QStringLiteral("<table cellspacing='0' cellpadding='3'>");
  QString where;
  for (const ShortcutEntry& e : entries) {
    if (e.where != where) {
      where = e.where;
      html += QStringLiteral("<tr><td colspan='2'><br><b>%1</b></td></tr>").arg(where.toHtmlEscaped());
    }
    html += QStringLiteral("<tr><td><tt>%1</tt>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(e.keys.toHtmlEscaped(), e.what.toHtmlEscaped());
  }
  html += QStringLiteral("</table><p style='color:gray'>%1</p>")
              .arg(QObject::tr("The stepping keys work wherever the focus is, except in text fields, editors, "
                               "spin boxes and combo boxes."));
  return html;
}

void showShortcutSheet(QWidget* window) {
  auto* d = new QDialog(window);
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->setObjectName(QStringLiteral("shortcutSheet"));
  d->setWindowTitle(QObject::tr("Keyboard Shortcuts"));
  auto* text = new QTextBrowser(d);
  text->setHtml(shortcutSheetHtml(collectShortcuts(window)));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
  QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::reject);
  auto* lay = new QVBoxLayout(d);
  lay->addWidget(text);
  lay->addWidget(buttons);
  d->resize(520, 620);
  d->open();
}

} // namespace loupe::views
