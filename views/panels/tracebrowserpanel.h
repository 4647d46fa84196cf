// The Trace browser panel: contexts (kernel names in axis colours, with the decoder's tooltip) ->
// passes with match counts -> rewrite steps, a filter box and a switch that hides passes without
// matches. It follows the Session's selection and selects in it when the user clicks.
#pragma once
#include <QSet>
#include <QWidget>

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

Q_SIGNALS:
  void hideEmptyPassesChanged(bool hide);

protected:
  void changeEvent(QEvent* event) override;

private:
  void rebuild(bool keepExpansion);
  void followSelection();
  void onCurrentChanged(const QModelIndex& current);
  void updateSummary();

  Session* session_;
  TraceBrowserModel* model_;
  TraceFilterProxy* proxy_;
  QTreeView* tree_;
  QLineEdit* filter_;
  QToolButton* hideEmpty_;
  QLabel* summary_;
  bool syncing_ = false;
};

} // namespace loupe::views
