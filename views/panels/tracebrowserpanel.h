// The Trace browser panel: contexts (kernel names in axis colours, with the decoder's tooltip) ->
// passes with match counts -> rewrite steps, a filter box and a switch that hides passes without
// matches. It follows the Session's selection and selects in it when the user clicks.
//
// The filter applies a moment after typing stops (kFilterDelayMs), says so when nothing matches,
// and never moves the Session's selection by itself: only a click on a result, or Enter in the
// filter box (the first result), picks one, so typing starts no graph layouts.
#pragma once
#include <QSet>
#include <QWidget>

class QTimer;

class QLineEdit;
class QToolButton;
class QTreeView;
class QLabel;

namespace loupe::views {

class Session;
class TraceBrowserModel;
class TraceFilterProxy;

class TraceBrowserPanel : public QWidget {
  Q_OBJECT
public:
  explicit TraceBrowserPanel(Session* session, QWidget* parent = nullptr);

  QTreeView* tree() const { return tree_; }
  TraceBrowserModel* model() const { return model_; }
  TraceFilterProxy* proxy() const { return proxy_; }
  QLineEdit* filterEdit() const { return filter_; }
  void setHideEmptyPasses(bool hide);
  bool hidesEmptyPasses() const;
  static constexpr int kFilterDelayMs = 250;
  // Applies the typed filter now (the debounce timer does it after kFilterDelayMs).
  void applyFilter();
  // The first row the filter shows that can be selected (a step or pass before a context); invalid if none.
  QModelIndex firstResult() const;
  // "No match for “X”" while a filter hides everything, else empty.
  QString noMatchText() const;

Q_SIGNALS:
  void hideEmptyPassesChanged(bool hide);

protected:
  void changeEvent(QEvent* event) override;

private:
  void rebuild(bool keepExpansion);
  void followSelection();
  void onCurrentChanged(const QModelIndex& current);
  void updateSummary();
  void pickFirstResult();

  Session* session_;
  TraceBrowserModel* model_;
  TraceFilterProxy* proxy_;
  QTreeView* tree_;
  QLineEdit* filter_;
  QToolButton* hideEmpty_;
  QLabel* summary_;
  QLabel* noMatch_;
  QTimer* filterTimer_;
  bool syncing_ = false;
};

} // namespace loupe::views
