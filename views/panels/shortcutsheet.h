// Help › Keyboard Shortcuts: a sheet generated from the keys the window actually registered — every
// action with a shortcut (menus, toolbars, panels), the stepping keys the window's key filter
// handles (actions carrying kSteppingKeyProperty) and buttons with a shortcut. Nothing is listed by
// hand, so the sheet cannot drift from the keys.
#pragma once
#include <QList>
#include <QString>

class QAction;
class QWidget;

namespace loupe::views {

// The QKeySequence a stepping action answers to through the window's key filter (it has no
// QAction shortcut, so lists and editors keep their arrows).
inline constexpr const char* kSteppingKeyProperty = "loupeSteppingKey";

struct ShortcutEntry {
  QString keys;   // "Ctrl+F", "Right"
  QString what;   // the action's text without mnemonics and key hints: "Find in Graph…"
  QString where;  // "Anywhere", or the panel that owns it ("Graph", "Compare")
  bool operator==(const ShortcutEntry&) const = default;
};

// Every shortcut registered under window, sorted by where, then by what; duplicates (an action in
// a menu and a toolbar) once.
QList<ShortcutEntry> collectShortcuts(const QWidget* window);
// The sheet as an HTML table, grouped by where.
QString shortcutSheetHtml(const QList<ShortcutEntry>& entries);
// Shows the sheet in a dialog over window.
void showShortcutSheet(QWidget* window);

} // namespace loupe::views
