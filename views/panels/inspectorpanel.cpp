#include "panels/inspectorpanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "ir/print.h"
#include "session/inspectormodel.h"
#include "session/session.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

InspectorPanel::InspectorPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new InspectorModel(this)) {
  title_ = widthFromLayout(new QLabel(this));
  title_->setObjectName(QStringLiteral("inspectorTitle"));
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tree_ = new QTreeView(this);
  tree_->setModel(model_);
  tree_->setAlternatingRowColors(true);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(InspectorModel::PropertyColumn, QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  showSt_ = new QPushButton(tr("Show in ShapeTracker panel"), this);
  showSt_->setVisible(false);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(6, 6, 6, 4);
  lay->setSpacing(4);
  lay->addWidget(title_);
  lay->addWidget(tree_, 1);
  lay->addWidget(showSt_, 0, Qt::AlignLeft);
  connect(tree_, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
    const QVariant id = i.siblingAtColumn(0).data(InspectorModel::NodeIdRole);
    if (id.isValid()) session_->selectNodeById(id.toULongLong());
  });
  connect(showSt_, &QPushButton::clicked, this, [this] { Q_EMIT showShapeTrackerRequested(shownNode()); });
  connect(session_, &Session::nodeChanged, this, &InspectorPanel::refresh);
  connect(session_, &Session::stepReady, this, &InspectorPanel::refresh);
  connect(session_, &Session::closed, this, &InspectorPanel::refresh);
  connect(session_, &Session::kernelChanged, this, &InspectorPanel::refresh);
  refresh();
}

loupe::UOpPtr InspectorPanel::shownNode() const { return model_->node(); }

void InspectorPanel::refresh() {
  const StepInfo& st = session_->currentStep();
  loupe::UOpPtr node = session_->selectedNode();
  QString why;
  if (!node) {
    node = st.match ? st.changes.after : st.graph;
    why = st.match ? tr("the replacement of this step") : tr("the root of the graph");
  }
  const std::optional<loupe::TraceKernel> kernel = session_->kernelDetails(session_->selection().kernel);
  model_->setNode(node, st.graph, kernel ? kernel->provenance : std::vector<loupe::Metadata>{});
  tree_->expand(model_->findRow(QStringLiteral("sources")));
  tree_->expand(model_->findRow(tr("from your code")));
  tree_->expand(model_->findRow(QStringLiteral("ShapeTracker")));
  if (!node) {
    title_->setText(tr("<b>No node</b><br>Click a node in the graph to inspect it."));
  } else {
    title_->setText(QStringLiteral("<b><tt>%1</tt></b>%2")
                        .arg(QString::fromStdString(loupe::uop_label(*node, 40)).toHtmlEscaped(),
                             why.isEmpty() ? QString() : QStringLiteral(" <span style=\"color:gray\">— %1</span>").arg(why)));
  }
  showSt_->setVisible(node && nodeShapeTracker(node));
}

} // namespace loupe::views
