// The BEAM panel: the search that chose the selected kernel's opts, as data - every candidate BEAM
// rendered and timed (its round, opts, best run, the time it took to build and time it, or why it was
// skipped or failed), sortable, the chosen one marked, with the speed-up over the kernel without opts.
// A kernel planned without BEAM (or whose opts came from BEAM's disk cache) says so.
#pragma once
#include <QWidget>

class QLabel;
class QTableWidget;

namespace loupe::views {

class Session;

class BeamPanel : public QWidget {
  Q_OBJECT
public:
  explicit BeamPanel(Session* session, QWidget* parent = nullptr);

  QString headerText() const;  // plain text
  QTableWidget* table() const { return table_; }
  enum Column { Chosen, Round, Time, Speedup, BuildTime, Opts, Status, ColumnCount };

private:
  void refresh();

  Session* session_;
  QLabel* header_;
  QTableWidget* table_;
};

} // namespace loupe::views
