#include "ui/planner/PlannerPanel.h"

#include "core/cost/WorkloadJson.h"
#include "ui/planner/BandwidthSensitivityChart.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/RegionMapView.h"
#include "ui/planner/TopologyMapView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::planner {

namespace {
Cluster clusterSummary(const cost::Topology& t) {
  Cluster c;
  c.name = t.name;
  c.provider = t.provider;
  c.region = t.region;
  c.accelerator = t.accelerator;
  c.gpuMemoryGb = t.gpuMemoryGb;
  c.gpusPerNode = t.gpusPerNode;
  c.nodeCount = t.nodeCount();
  c.intraNodeLink = t.intraNodeLink;
  c.intraNodeGBps = static_cast<int>(t.intraNodeGBpsPerGpu);
  c.fabric = t.fabric.fabricClass;
  c.fabricGbpsPerNode = static_cast<int>(t.fabric.railsPerNode * t.fabric.gbpsPerRail);
  return c;
}
}  // namespace

PlannerPanel::PlannerPanel(QWidget* parent)
    : QWidget(parent),
      workloadBox_(new QComboBox(this)),
      summary_(new QLabel(this)),
      splitter_(new QSplitter(Qt::Vertical, this)),
      table_(new QTableView(this)),
      tabs_(new QTabWidget(this)),
      model_(new OfferRankingModel(this)),
      costChart_(new EffectiveCostChart(this)),
      bandwidthChart_(new BandwidthSensitivityChart(this)),
      topologyMap_(new TopologyMapView(this)),
      regionMap_(new RegionMapView(this)) {
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("Workload:", this));
  top->addWidget(workloadBox_, 1);
  summary_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(summary_);
  layout->addWidget(splitter_, 1);

  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  splitter_->addWidget(table_);
  tabs_->addTab(costChart_, "Effective cost");
  tabs_->addTab(bandwidthChart_, "Bandwidth sensitivity");
  tabs_->addTab(topologyMap_, "Topology");
  tabs_->addTab(regionMap_, "Regions");
  splitter_->addWidget(tabs_);
  splitter_->setStretchFactor(1, 3);
  splitter_->setSizes({220, 640});

  connect(workloadBox_, &QComboBox::currentIndexChanged, this, [this](int) { recompute(); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current, const QModelIndex&) { showSelected(current.row()); });
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int) { saveLayout(); });
  connect(splitter_, &QSplitter::splitterMoved, this, [this](int, int) { saveLayout(); });
  for (int i = 0; i < 4; ++i) {
    auto* s = new QShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)), this);
    s->setContext(Qt::WidgetWithChildrenShortcut);
    connect(s, &QShortcut::activated, this, [this, i] { tabs_->setCurrentIndex(i); });
  }
  restoreLayout();
}

PlannerPanel::~PlannerPanel() = default;

void PlannerPanel::setWorkloads(std::vector<cost::WorkloadProfile> workloads) {
  workloads_ = std::move(workloads);
  const QSignalBlocker block(workloadBox_);
  workloadBox_->clear();
  for (const auto& w : workloads_)
    workloadBox_->addItem(QString("%1  (%2, %3 GPUs)")
                              .arg(QString::fromStdString(w.name), QString::fromUtf8(cost::toString(w.kind).data()))
                              .arg(w.gpus()));
  recompute();
}

std::vector<std::string> PlannerPanel::loadWorkloadDirectory(const std::filesystem::path& dir) {
  std::vector<std::string> problems;
  std::vector<cost::WorkloadProfile> loaded;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) problems.push_back(dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto r = cost::loadWorkloadFile(f);
    if (auto* w = std::get_if<cost::WorkloadProfile>(&r)) {
      if (w->name.empty()) w->name = f.stem().string();
      loaded.push_back(*w);
    } else {
      problems.push_back(std::get<cost::LoadError>(r).message);
    }
  }
  setWorkloads(std::move(loaded));
  return problems;
}

void PlannerPanel::setCandidates(std::vector<cost::CandidateOffer> candidates) {
  source_ = nullptr;
  candidates_ = std::move(candidates);
  recompute();
}

void PlannerPanel::setCandidateSource(CandidateSource source) {
  source_ = std::move(source);
  recompute();
}

void PlannerPanel::selectWorkload(int index) { workloadBox_->setCurrentIndex(index); }

void PlannerPanel::selectOffer(int row) {
  if (row < 0 || row >= model_->rowCount()) return;
  table_->selectionModel()->setCurrentIndex(model_->index(row, 0),
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void PlannerPanel::showView(View v) { tabs_->setCurrentIndex(static_cast<int>(v)); }

void PlannerPanel::recompute() {
  const int index = workloadBox_->currentIndex();
  if (index < 0 || index >= static_cast<int>(workloads_.size())) {
    std::vector<Cluster> clusters;
    for (const auto& c : candidates_) clusters.push_back(clusterSummary(c.topology));
    regionMap_->setClusters(clusters);
    model_->setScenario(cost::WorkloadProfile{}, {});
    costChart_->setOffers({});
    summary_->setText("No workload loaded.");
    return;
  }
  const cost::WorkloadProfile& w = workloads_[index];
  if (source_) candidates_ = source_(w);
  std::vector<Cluster> clusters;
  for (const auto& c : candidates_) clusters.push_back(clusterSummary(c.topology));
  regionMap_->setClusters(clusters);
  model_->setScenario(w, candidates_);
  std::vector<ChartOffer> offers;
  for (int row = 0; row < model_->rowCount(); ++row) {
    const auto& c = model_->candidateAt(row);
    offers.push_back({c.offer.label.empty() ? c.topology.name : c.offer.label, model_->resultAt(row)});
  }
  costChart_->setOffers(offers, QString::fromStdString(w.name));
  table_->resizeColumnsToContents();
  int served = 0;
  for (const auto& r : model_->ranked()) served += std::holds_alternative<cost::CostBreakdown>(r.result);
  summary_->setText(QString("%1 of %2 offers can serve %3; ranked by effective cost (the hourly rate is only one term).")
                        .arg(served).arg(model_->rowCount()).arg(QString::fromStdString(w.name)));
  if (model_->rowCount() > 0) selectOffer(0);
}

void PlannerPanel::showSelected(int row) {
  if (row < 0 || row >= model_->rowCount()) return;
  const auto& c = model_->candidateAt(row);
  topologyMap_->setTopology(c.topology);
  const int index = workloadBox_->currentIndex();
  if (index < 0 || index >= static_cast<int>(workloads_.size())) return;
  const cost::WorkloadProfile& w = workloads_[index];
  if (c.placement) topologyMap_->setPlacement(*c.placement);
  else if (auto p = cost::packPlacement(c.topology, w.gpus())) topologyMap_->setPlacement(*p);
  bandwidthChart_->setScenario(w, c.topology, c.offer);
}

void PlannerPanel::saveLayout() const {
  QSettings settings;
  settings.setValue("planner/tab", tabs_->currentIndex());
  settings.setValue("planner/splitter", splitter_->saveState());
}

void PlannerPanel::restoreLayout() {
  QSettings settings;
  tabs_->setCurrentIndex(settings.value("planner/tab", 0).toInt());
  const QByteArray state = settings.value("planner/splitter").toByteArray();
  if (!state.isEmpty()) splitter_->restoreState(state);
}

}  // namespace tessera::planner
