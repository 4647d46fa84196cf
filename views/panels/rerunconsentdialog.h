// Asking before a trace makes Loupe run anything. Stepping a kernel whose inputs the trace did not keep
// means running the program that recorded the trace again (inspect/kernel_rerun.h); for a trace this user
// did not record on this machine (trace/trace_trust.h) that program, its arguments, folder and settings
// were chosen by whoever made or edited the trace. The dialog shows exactly what would run, whether the
// file there is the script the trace recorded, and where the trace comes from; it offers the command
// line to copy and run by hand instead. Cancel is the default button.
#pragma once
#include <QDialog>

#include "inspect/kernel_rerun.h"

class QPlainTextEdit;

namespace loupe::views {

class RerunConsentDialog : public QDialog {
  Q_OBJECT
public:
  // `cli`: the loupe-cli that would run it (for the command line shown).
  RerunConsentDialog(const loupe::InputRerun& plan, const QString& cli, QWidget* parent = nullptr);

  QString commandLine() const { return command_; }
  QString text() const;  // everything the dialog says, as plain text (tests)

  // Shows the dialog modally; true when the user chose to run the program.
  static bool ask(const loupe::InputRerun& plan, const QString& cli, QWidget* parent);

private:
  QString command_;
  QString summary_;
};

} // namespace loupe::views
