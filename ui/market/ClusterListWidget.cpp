#include "ui/market/ClusterListWidget.h"

#include "ui/shell/DisplayFormat.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace tessera::ui {

ClusterListWidget::ClusterListWidget(QWidget* parent)
    : QWidget(parent), model_(new ClusterListModel(this)), filter_(new ClusterFilter(this)) {
  setObjectName("clusterList");
  filter_->setSourceModel(model_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* filters = new QGridLayout;
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search name or provider (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  filters->addWidget(search_, 0, 0, 1, 2);
  accelerator_ = new QComboBox(this);
  accelerator_->addItem(tr("any GPU"), -1);
  for (int a = 0; a <= static_cast<int>(Accelerator::RTX4090); ++a)
    accelerator_->addItem(toQString(toString(static_cast<Accelerator>(a))), a);
  region_ = new QComboBox(this);
  region_->addItem(tr("any region"), QString());
  fabric_ = new QComboBox(this);
  fabric_->addItem(tr("any fabric"), -1);
  fabric_->addItem(tr(">= RoCE"), static_cast<int>(FabricClass::RoCE));
  fabric_->addItem(tr("InfiniBand"), static_cast<int>(FabricClass::InfiniBand));
  maxAsk_ = new QDoubleSpinBox(this);
  maxAsk_->setPrefix(tr("ask <= $"));
  maxAsk_->setRange(0, 100);
  maxAsk_->setDecimals(2);
  maxAsk_->setSingleStep(0.25);
  maxAsk_->setSpecialValueText(tr("any price"));
  // Two filters a row: the dock stays narrow enough for a 1366-pixel-wide screen.
  filters->addWidget(accelerator_, 1, 0);
  filters->addWidget(region_, 1, 1);
  filters->addWidget(fabric_, 2, 0);
  filters->addWidget(maxAsk_, 2, 1);
  layout->addLayout(filters);

  view_ = new QTableView(this);
  view_->setObjectName("clusterView");
  view_->setModel(filter_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(ClusterListModel::Name, Qt::AscendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(20);
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->setAlternatingRowColors(true);
  layout->addWidget(view_);
  auto* hint = new QLabel(tr("Ctrl/Shift-click to show several clusters as one group."), this);
  hint->setEnabled(false);
  hint->setWordWrap(true);
  layout->addWidget(hint);

  connect(search_, &QLineEdit::textChanged, this, &ClusterListWidget::applyFilters);
  connect(accelerator_, &QComboBox::currentIndexChanged, this, &ClusterListWidget::applyFilters);
  connect(region_, &QComboBox::currentIndexChanged, this, &ClusterListWidget::applyFilters);
  connect(fabric_, &QComboBox::currentIndexChanged, this, &ClusterListWidget::applyFilters);
  connect(maxAsk_, &QDoubleSpinBox::valueChanged, this, &ClusterListWidget::applyFilters);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] { emit selectionChanged(selected()); });
}

void ClusterListWidget::applyFilters() {
  filter_->setText(search_->text());
  const int a = accelerator_->currentData().toInt();
  filter_->setAccelerator(a < 0 ? std::nullopt : std::optional(static_cast<Accelerator>(a)));
  filter_->setRegion(region_->currentData().toString());
  const int f = fabric_->currentData().toInt();
  filter_->setMinFabric(f < 0 ? std::nullopt : std::optional(static_cast<FabricClass>(f)));
  filter_->setMaxAsk(maxAsk_->value() > 0 ? std::optional(priceFromDollars(maxAsk_->value())) : std::nullopt);
}

void ClusterListWidget::setClusters(std::vector<Cluster> clusters) {
  const auto keep = selected();
  std::set<QString> regions;
  for (const Cluster& c : clusters) regions.insert(QString::fromStdString(c.region));
  {
    QSignalBlocker b(region_);
    const QString current = region_->currentData().toString();
    region_->clear();
    region_->addItem(tr("any region"), QString());
    for (const QString& r : regions) region_->addItem(r, r);
    region_->setCurrentIndex(std::max(0, region_->findData(current)));
  }
  model_->setClusters(std::move(clusters));
  view_->resizeColumnsToContents();
  select(keep);
}

void ClusterListWidget::setQuotes(const std::vector<ClusterQuote>& quotes) {
  model_->setQuotes(quotes);
  if (maxAsk_->value() > 0) filter_->invalidate();
}

void ClusterListWidget::select(const std::vector<ClusterId>& ids) {
  QItemSelection sel;
  for (ClusterId id : ids) {
    const int row = model_->rowOf(id);
    if (row < 0) continue;
    const QModelIndex i = filter_->mapFromSource(model_->index(row, 0));
    if (i.isValid()) sel.select(i, i.siblingAtColumn(ClusterListModel::ColumnCount - 1));
  }
  view_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!sel.isEmpty()) view_->scrollTo(sel.indexes().front());
}

std::vector<ClusterId> ClusterListWidget::selected() const {
  std::vector<ClusterId> ids;
  for (const QModelIndex& i : view_->selectionModel()->selectedRows())
    ids.push_back(static_cast<ClusterId>(i.data(ClusterListModel::ClusterIdRole).toUInt()));
  std::sort(ids.begin(), ids.end());
  return ids;
}

void ClusterListWidget::focusSearch() {
  search_->setFocus();
  search_->selectAll();
}

}  // namespace tessera::ui
