#include "panels/rerunconsentdialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFont>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "support/terminal_text.h"

namespace loupe::views {

namespace {

// A recorded string as the dialog shows it: control characters visible, HTML escaped.
QString shown(const std::string& s) { return QString::fromStdString(loupe::escape_for_terminal(s)).toHtmlEscaped(); }

QLabel* valueLabel(const QString& html, QWidget* parent, bool mono = true) {
  auto* l = new QLabel(html, parent);
  l->setTextFormat(Qt::RichText);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  if (mono) l->setFont(QFont(QStringLiteral("monospace")));
  return l;
}

} // namespace

RerunConsentDialog::RerunConsentDialog(const loupe::InputRerun& plan, const QString& cli, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Run a program from this trace?"));
  setMinimumWidth(720);
  auto* lay = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("The trace kept no inputs of <b>%1</b> (they were larger than TRACE_INPUTS). To step it, Loupe can run "
                              "the program that recorded the trace again, until that kernel's first run, and take its inputs from there.")
                               .arg(shown(plan.kernel)),
                           this);
  intro->setWordWrap(true);
  lay->addWidget(intro);

  auto* warning = new QLabel(this);
  warning->setWordWrap(true);
  warning->setObjectName(QStringLiteral("rerunOrigin"));
  warning->setStyleSheet(QStringLiteral("QLabel { background: #fff4e5; color: #663c00; border: 1px solid #f0b45a; padding: 8px; }"));
  warning->setText(tr("<b>This runs code on this computer, as you.</b> This trace is not known to be yours: %1. Whoever made or "
                      "edited it chose the program, its arguments, its folder and its settings. Run it only if you trust "
                      "where the trace came from.")
                       .arg(QString::fromStdString(plan.trust.reason).toHtmlEscaped()));
  lay->addWidget(warning);

  auto* form = new QFormLayout;
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
  QString args;
  for (const std::string& a : plan.program_args) args += (args.isEmpty() ? QString() : QStringLiteral("<br>")) + shown(a);
  QString settings;
  for (const auto& [k, v] : plan.settings) settings += (settings.isEmpty() ? QString() : QStringLiteral("&nbsp;&nbsp;")) + shown(k + "=" + v);
  form->addRow(tr("Program:"), valueLabel(shown(plan.program_file), this));
  // not green when it matches: a match says the file is what the trace names, not that it is safe
  const bool checked = !plan.recorded_sha256.empty() || plan.script_check.rfind("matches", 0) == 0;
  const QString check = QString::fromStdString(plan.script_check).toHtmlEscaped();
  form->addRow(tr("Script:"), valueLabel(checked ? check : QStringLiteral("<span style=\"color:#b35c00\">%1</span>").arg(check), this, false));
  form->addRow(tr("Arguments:"), valueLabel(args.isEmpty() ? tr("<i>none</i>") : args, this));
  form->addRow(tr("Working folder:"), valueLabel(plan.cwd.empty() ? tr("<i>not recorded: Loupe's own</i>") : shown(plan.cwd), this));
  form->addRow(tr("Settings:"), valueLabel(settings.isEmpty() ? tr("<i>none</i>") : settings, this));
  lay->addLayout(form);

  command_ = QString::fromStdString(plan.shell_command(cli.toStdString(), "rerun.loupe"));
  auto* commandTitle = new QLabel(tr("Or run it yourself, in a terminal (it writes <tt>rerun.loupe</tt> in that folder):"), this);
  lay->addWidget(commandTitle);
  auto* command = new QPlainTextEdit(QString::fromStdString(loupe::escape_for_terminal(command_.toStdString())), this);
  command->setReadOnly(true);
  command->setFont(QFont(QStringLiteral("monospace")));
  command->setMaximumHeight(command->fontMetrics().lineSpacing() * 4 + 12);
  auto* copy = new QPushButton(tr("Copy command"), this);
  connect(copy, &QPushButton::clicked, this, [this, copy] {
    QApplication::clipboard()->setText(command_);
    copy->setText(tr("Copied"));
  });
  auto* commandRow = new QHBoxLayout;
  commandRow->addWidget(command, 1);
  commandRow->addWidget(copy, 0, Qt::AlignTop);
  lay->addLayout(commandRow);

  auto* buttons = new QDialogButtonBox(this);
  QPushButton* run = buttons->addButton(tr("Run program"), QDialogButtonBox::AcceptRole);
  QPushButton* cancel = buttons->addButton(QDialogButtonBox::Cancel);
  run->setAutoDefault(false);
  run->setDefault(false);
  cancel->setDefault(true);
  cancel->setFocus();
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  lay->addWidget(buttons);

  auto plain = [](const QString& html) { return QTextDocumentFragment::fromHtml(html).toPlainText(); };
  summary_ = QStringLiteral("%1\n%2\n%3command: %4")
                 .arg(plain(intro->text()), plain(warning->text()), QString::fromStdString(plan.details()), command_);
}

QString RerunConsentDialog::text() const { return summary_; }

bool RerunConsentDialog::ask(const loupe::InputRerun& plan, const QString& cli, QWidget* parent) {
  RerunConsentDialog d(plan, cli, parent);
  return d.exec() == QDialog::Accepted;
}

} // namespace loupe::views
