#include "ui/planner/PlannerPanel.h"

#include "core/cost/WorkloadJson.h"
#include "ui/planner/BandwidthSensitivityChart.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlacementTableModel.h"
#include "ui/planner/PlannerFormat.h"
#include "ui/planner/RegionMapView.h"
#include "ui/planner/TopologyMapView.h"
#include "ui/planner/WorkloadEditor.h"

#include <QComboBox>
#include <qcustomplot.h>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSpinBox>
#include <QToolButton>
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
      newWorkload_(new QPushButton(tr("New..."), this)),
      questionToggle_(new QToolButton(this)),
      questionRow_(new QWidget(this)),
      kinds_(new QToolButton(this)),
      earliest_(new QSpinBox(this)),
      latest_(new QSpinBox(this)),
      budget_(new QDoubleSpinBox(this)),
      rerank_(new QPushButton(tr("Re-rank"), this)),
      buy_(new QPushButton(tr("Buy this placement..."), this)),
      legend_(new QLabel(this)),
      placements_(new PlacementTableModel(this)),
      summary_(new QLabel(this)),
      capacityChoice_(new QLabel(this)),
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
  // The combo shrinks with the dock instead of widening it to its longest workload name.
  workloadBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  workloadBox_->setMinimumContentsLength(14);
  top->addWidget(workloadBox_, 1);
  top->addWidget(newWorkload_);
  newWorkload_->setObjectName("plannerNewWorkload");
  newWorkload_->setToolTip(tr("New workload: describe your own, starting from the current one"));
  newWorkload_->setVisible(false);
  connect(newWorkload_, &QPushButton::clicked, this, [this] { openWorkloadEditor(); });
  // The question's controls fold away so a short dock keeps its room for the table and chart;
  // the button's tooltip says what is asked. Until the user folds or unfolds them, they follow the
  // panel's height (folded when short).
  questionToggle_->setObjectName("plannerQuestionToggle");
  questionToggle_->setCheckable(true);
  questionToggle_->setChecked(true);
  questionToggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  questionToggle_->setVisible(false);
  top->addWidget(questionToggle_);
  connect(questionToggle_, &QToolButton::toggled, this, [this](bool shown) {
    if (!autoFolding_) {
      questionChosen_ = true;
      QSettings().setValue("planner/questionShown", shown);
    }
    updateQuestionToggle();
  });
  summary_->setWordWrap(true);
  summary_->setObjectName("plannerSummary");
  // One line, whatever its length (the whole of it in the tooltip).
  capacityChoice_->setWordWrap(false);
  capacityChoice_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  capacityChoice_->setObjectName("plannerCapacityChoice");
  capacityChoice_->setVisible(false);

  // The question: which kinds, when to start, how much at most.
  auto* kindsMenu = new QMenu(kinds_);
  for (Accelerator a : {Accelerator::H100, Accelerator::H200, Accelerator::B200, Accelerator::GB200,
                        Accelerator::MI300X, Accelerator::A100, Accelerator::L40S, Accelerator::RTX4090}) {
    QAction* act = kindsMenu->addAction(QString::fromUtf8(toString(a).data()));
    act->setCheckable(true);
    act->setData(static_cast<int>(a));
    connect(act, &QAction::toggled, this, [this] {
      setKinds(question() ? question()->kinds : std::vector<Accelerator>{});
      askQuestion(true);
    });
  }
  kinds_->setMenu(kindsMenu);
  kinds_->setPopupMode(QToolButton::InstantPopup);
  kinds_->setText(tr("any kind"));
  kinds_->setToolTip(tr("GPU kinds that will do (none ticked: any)"));
  earliest_->setRange(0, 60);
  latest_->setRange(0, 60);
  earliest_->setValue(1);
  latest_->setValue(7);
  earliest_->setSuffix(tr(" d"));
  latest_->setSuffix(tr(" d"));
  earliest_->setToolTip(tr("Earliest start, in days from now"));
  latest_->setToolTip(tr("Latest start, in days from now"));
  budget_->setRange(0, 1000);
  budget_->setDecimals(2);
  budget_->setPrefix("$");
  budget_->setSuffix("M");
  budget_->setSpecialValueText(tr("no budget"));
  budget_->setToolTip(tr("Most the completed work may cost (effective cost), in millions of dollars"));
  // Two short rows rather than one long one, so the question fits a narrow dock (1366 x 768).
  auto* q = new QVBoxLayout(questionRow_);
  q->setContentsMargins(0, 0, 0, 0);
  auto* q1 = new QHBoxLayout;
  q1->addWidget(new QLabel(tr("Kinds:"), this));
  q1->addWidget(kinds_);
  q1->addSpacing(8);
  q1->addWidget(new QLabel(tr("budget:"), this));
  q1->addWidget(budget_);
  q1->addStretch(1);
  auto* q2 = new QHBoxLayout;
  q2->addWidget(new QLabel(tr("Start in"), this));
  q2->addWidget(earliest_);
  q2->addWidget(new QLabel(tr("to"), this));
  q2->addWidget(latest_);
  q2->addWidget(new QLabel(tr("from now"), this));
  q2->addStretch(1);
  q->addLayout(q1);
  q->addLayout(q2);
  rerank_->setToolTip(tr("Sort the rows by the current effective cost (rows keep their places while prices update)"));
  buy_->setToolTip(tr("Open an order ticket with an all-or-none bid for the selected placement"));
  questionRow_->setVisible(false);
  legend_->setWordWrap(true);
  legend_->setVisible(false);
  legend_->setText(tr("▲▼ moved · grey: cannot serve"));
  legend_->setToolTip(
      tr("Rows keep their places while prices update: ▲ ▼ mark effective costs that moved since "
         "ranked; Re-rank sorts again. Grey rows cannot serve: the last column says why."));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(3);
  layout->addLayout(top);
  layout->addWidget(questionRow_);
  layout->addWidget(summary_);
  layout->addWidget(capacityChoice_);
  layout->addWidget(splitter_, 1);

  table_->setModel(model_);
  table_->setObjectName("plannerTable");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* tableBox = new QWidget(this);
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->setSpacing(2);
  tableLayout->addWidget(table_, 1);
  // The legend and the actions share one row under the table.
  auto* below = new QHBoxLayout;
  below->addWidget(legend_, 1);
  below->addWidget(rerank_);
  below->addWidget(buy_);
  tableLayout->addLayout(below);
  rerank_->setVisible(false);
  buy_->setVisible(false);
  // The table keeps at least a header and a row, the views a chart; the splitter
  // gives a quarter to the table and the rest to the views, and neither can be collapsed away.
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           table_->verticalHeader()->defaultSectionSize() +
                           table_->horizontalScrollBar()->sizeHint().height() + 2 * table_->frameWidth());
  splitter_->addWidget(tableBox);
  tabs_->addTab(costChart_, "Effective cost");
  tabs_->addTab(bandwidthChart_, "Bandwidth sensitivity");
  tabs_->addTab(topologyMap_, "Topology");
  tabs_->addTab(regionMap_, "Regions");
  tabs_->setMinimumHeight(130);
  splitter_->addWidget(tabs_);
  splitter_->setChildrenCollapsible(false);
  splitter_->setStretchFactor(0, 1);
  splitter_->setStretchFactor(1, 3);
  splitter_->setSizes({140, 420});

  connect(workloadBox_, &QComboBox::currentIndexChanged, this, [this](int) { recompute(); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current, const QModelIndex&) {
            topologyPinned_ = false;
            showSelected(current.row());
          });
  for (QSpinBox* box : {earliest_, latest_})
    connect(box, &QSpinBox::valueChanged, this, [this](int) { askQuestion(true); });
  connect(budget_, &QDoubleSpinBox::valueChanged, this, [this](double) { askQuestion(true); });
  connect(rerank_, &QPushButton::clicked, this, [this] {
    placements_->rerank();
    updateButtons();
  });
  connect(buy_, &QPushButton::clicked, this, [this] {
    const auto* p = placements_->placementAt(table_->currentIndex().row());
    const int index = workloadBox_->currentIndex();
    if (p && index >= 0 && index < static_cast<int>(workloads_.size()))
      emit buyPlacementRequested(*p, QString::fromStdString(workloads_[static_cast<std::size_t>(index)].name));
  });
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

void PlannerPanel::addWorkload(const cost::WorkloadProfile& w, bool select) {
  auto same = std::find_if(workloads_.begin(), workloads_.end(), [&](const auto& k) { return k.name == w.name; });
  const int current = workloadBox_->currentIndex();
  int index = 0;
  if (same != workloads_.end()) {
    *same = w;
    index = static_cast<int>(same - workloads_.begin());
  } else {
    workloads_.push_back(w);
    index = static_cast<int>(workloads_.size()) - 1;
  }
  {
    const QSignalBlocker block(workloadBox_);
    workloadBox_->clear();
    for (const auto& k : workloads_)
      workloadBox_->addItem(QString("%1  (%2, %3 GPUs)")
                                .arg(QString::fromStdString(k.name), QString::fromUtf8(cost::toString(k.kind).data()))
                                .arg(k.gpus()));
    workloadBox_->setCurrentIndex(select ? index : std::max(0, current));
  }
  recompute();
}

void PlannerPanel::setWorkloadFolder(const QString& folder) {
  workloadFolder_ = folder;
  newWorkload_->setVisible(!folder.isEmpty());
}

WorkloadEditor* PlannerPanel::openWorkloadEditor() {
  auto* editor = new WorkloadEditor(workloadFolder_, this);
  editor->setAttribute(Qt::WA_DeleteOnClose);
  if (const auto q = question()) {
    cost::WorkloadProfile start = q->workload;
    start.name += "-mine";
    editor->load(start);
  }
  connect(editor, &WorkloadEditor::saved, this,
          [this](const QString&, const cost::WorkloadProfile& w) { addWorkload(w, true); });
  editor->show();
  return editor;
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
  runner_ = nullptr;
  candidates_ = std::move(candidates);
  recompute();
}

void PlannerPanel::setCandidateSource(CandidateSource source) {
  source_ = std::move(source);
  runner_ = nullptr;
  recompute();
}

void PlannerPanel::refresh() {
  if (planMode())
    askQuestion(false);
  else
    recompute();
}

void PlannerPanel::setPlanRunner(PlanRunner runner) {
  runner_ = std::move(runner);
  source_ = nullptr;
  if (table_->model() != placements_) {
    table_->setModel(placements_);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current, const QModelIndex&) {
              topologyPinned_ = false;
              showSelected(current.row());
            });
  }
  questionToggle_->setVisible(true);
  updateQuestionToggle();
  legend_->setVisible(true);
  rerank_->setVisible(true);
  buy_->setVisible(true);
  askQuestion(true);
}

std::optional<PlannerPanel::PlanQuestion> PlannerPanel::question() const {
  const int index = workloadBox_->currentIndex();
  if (index < 0 || index >= static_cast<int>(workloads_.size())) return std::nullopt;
  PlanQuestion q;
  q.workload = workloads_[static_cast<std::size_t>(index)];
  for (QAction* a : kinds_->menu()->actions())
    if (a->isChecked()) q.kinds.push_back(static_cast<Accelerator>(a->data().toInt()));
  q.earliestAhead = static_cast<Hour>(earliest_->value()) * kHoursPerDay;
  q.latestAhead = static_cast<Hour>(latest_->value()) * kHoursPerDay;
  if (budget_->value() > 0) q.budgetDollars = budget_->value() * 1e6;
  return q;
}

void PlannerPanel::setStartRange(int earliestDays, int latestDays) {
  const QSignalBlocker a(earliest_), b(latest_);
  earliest_->setValue(earliestDays);
  latest_->setValue(latestDays);
  askQuestion(true);
}

void PlannerPanel::setBudget(std::optional<double> dollars) {
  const QSignalBlocker block(budget_);
  budget_->setValue(dollars ? *dollars / 1e6 : 0.0);
  askQuestion(true);
}

void PlannerPanel::setKinds(const std::vector<Accelerator>& kinds) {
  QStringList names;
  for (QAction* a : kinds_->menu()->actions()) {
    const bool on = std::find(kinds.begin(), kinds.end(), static_cast<Accelerator>(a->data().toInt())) != kinds.end();
    const QSignalBlocker block(a);
    a->setChecked(on);
    if (on) names << a->text();
  }
  kinds_->setText(names.isEmpty() ? tr("any kind") : names.join(", "));
}

void PlannerPanel::setCapacityChoice(const QString& text) {
  capacityChoice_->setText(text);
  capacityChoice_->setToolTip(text);
  updateQuestionToggle();
}

void PlannerPanel::setWaitingForMarket(bool waiting) {
  if (waiting == waitingForMarket_) return;
  waitingForMarket_ = waiting;
  askQuestion(false);  // an empty table is ranked afresh by the answer
}

void PlannerPanel::showWaiting(const QString& workload, int gpus) {
  placements_->setPlan({});
  costChart_->setOffers({}, workload, tr("Waiting for the market…"));
  summary_->setText(
      tr("Waiting for the market… %1 (%2 GPUs) is ranked as soon as the market has loaded.").arg(workload).arg(gpus));
  updateButtons();
}

void PlannerPanel::updateQuestionToggle() {
  const bool shown = questionToggle_->isChecked();
  questionRow_->setVisible(planMode() && shown);
  // The firm-or-interruptible line folds with the question: a short dock keeps its room for the
  // table and the charts (the line is then in the toggle's tooltip).
  capacityChoice_->setVisible(planMode() && shown && !capacityChoice_->text().isEmpty());
  questionToggle_->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
  QString text = kinds_->text() + tr(", start in %1–%2 days").arg(earliest_->value()).arg(latest_->value());
  text += budget_->value() > 0 ? tr(", budget %1").arg(moneyText(budget_->value() * 1e6)) : tr(", no budget");
  questionToggle_->setText(tr("Question"));
  questionToggle_->setToolTip(tr("Show or hide the question (%1)").arg(text) +
                              (capacityChoice_->text().isEmpty() ? QString() : "\n" + capacityChoice_->text()));
}

void PlannerPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Short: fold the question (unless the user has chosen).
  if (!questionChosen_ && planMode()) {
    autoFolding_ = true;
    questionToggle_->setChecked(height() >= 560);
    autoFolding_ = false;
  }
}

void PlannerPanel::askQuestion(bool newQuestion) {
  updateQuestionToggle();
  if (!planMode()) return;
  if (newQuestion) ++questionGeneration_;
  const auto q = question();
  if (!q) {
    summary_->setText(tr("No workload loaded."));
    return;
  }
  if (newQuestion && waitingForMarket_) {
    showWaiting(QString::fromStdString(q->workload.name), q->workload.gpus());
  } else if (newQuestion) {
    placements_->setPlan({});
    summary_->setText(tr("Pricing %1 (%2 GPUs) on the live book...")
                          .arg(QString::fromStdString(q->workload.name))
                          .arg(q->workload.gpus()));
  }
  const quint64 generation = questionGeneration_;
  QPointer<PlannerPanel> self(this);
  // An answer asked before the market had loaded is judged as such even if it arrives after.
  const bool beforeMarket = waitingForMarket_;
  runner_(*q, [self, generation, beforeMarket](const cost::PlanRequest& asked, cost::PlanResult result) {
    if (!self || generation != self->questionGeneration_) return;  // a question since replaced
    // A new question, or a table with no placement to keep the user on (e.g. asked before the
    // book arrived), is ranked afresh; otherwise the rows keep their places.
    const bool fresh = self->shownGeneration_ != generation || self->placements_->plan().placements.empty();
    self->shownGeneration_ = generation;
    self->showPlan(asked, std::move(result), fresh, beforeMarket);
  });
}

void PlannerPanel::showPlan(const cost::PlanRequest& asked, cost::PlanResult result, bool newQuestion,
                            bool beforeMarket) {
  const QString name = QString::fromStdString(asked.workload.name);
  // Before the market has loaded, "nothing fits" would describe a half-listed book: say so.
  if (beforeMarket && result.placements.empty() && result.problem.empty()) {
    showWaiting(name, asked.workload.gpus());
    return;
  }
  const QString range = tr("starting %1 – %2").arg(hourText(asked.earliestStart), hourText(asked.latestStart));
  std::vector<Cluster> clusters;
  for (const auto& p : result.placements) clusters.push_back(p.cluster);
  for (const auto& u : result.unfit) clusters.push_back(u.cluster);
  regionMap_->setClusters(clusters);
  if (!result.problem.empty()) {
    summary_->setText(tr("The question cannot be answered: %1.").arg(QString::fromStdString(result.problem)));
  } else if (clusters.empty()) {
    // No cluster is listed at all: the market has not loaded (or lists nothing), which says
    // nothing about whether the workload fits.
    summary_->setText(tr("Waiting for the market… no cluster is listed yet."));
  } else if (result.placements.empty()) {
    QString earliest = result.earliestFeasible ? tr("The earliest feasible start is %1 on %2.")
                                                     .arg(hourText(result.earliestFeasible->start),
                                                          QString::fromStdString(result.earliestFeasible->cluster.name))
                                               : tr("No cluster has the supply within %1 days after the latest start.")
                                                     .arg(asked.lookAheadHours / kHoursPerDay);
    summary_->setText(tr("No cluster can place %1 (%2 GPUs) %3: each cluster's reason is in the table. %4")
                          .arg(name)
                          .arg(asked.workload.gpus())
                          .arg(range, earliest));
  } else {
    // Short enough for two lines of a narrow dock: the workload and its GPUs are in the combo box.
    QString text = tr("%1 of %2 clusters can place it %3, ranked by effective cost of the completed work.")
                       .arg(result.placements.size())
                       .arg(clusters.size())
                       .arg(range);
    if (result.earliestFeasible)
      text += tr(" Earliest start: %1 on %2.")
                  .arg(hourText(result.earliestFeasible->start),
                       QString::fromStdString(result.earliestFeasible->cluster.name));
    summary_->setText(text);
  }
  const ClusterId selected = placements_->clusterAt(table_->currentIndex().row());
  std::vector<ChartOffer> offers;
  for (std::size_t i = 0; i < result.placements.size() && i < 8; ++i)
    offers.push_back({result.placements[i].cluster.name, cost::CostResult{result.placements[i].cost}});
  if (newQuestion) {
    placements_->setPlan(std::move(result));
    table_->resizeColumnsToContents();
    if (placements_->rowCount() > 0) selectOffer(0);
  } else {
    placements_->updatePlan(std::move(result));
    // The selection stays on its row (the rows did not move); its views follow the new prices.
    if (selected != 0 && !topologyPinned_) showSelected(placements_->rowOf(selected));
  }
  costChart_->setOffers(offers, name,
                        clusters.empty()
                            ? tr("Waiting for the market…")
                            : tr("No cluster can place %1 in the range asked: the table says why.").arg(name));
  updateButtons();
}

void PlannerPanel::updateButtons() {
  buy_->setEnabled(planMode() && placements_->placementAt(table_->currentIndex().row()) != nullptr);
  rerank_->setEnabled(planMode() && placements_->orderIsStale());
}

void PlannerPanel::setPlotStyle(const std::function<void(QCustomPlot*)>& style) {
  costChart_->setPlotStyle(style);
  style(bandwidthChart_->plot());
  bandwidthChart_->plot()->replot();
}

void PlannerPanel::showClusterTopology(const Cluster& cluster) {
  if (planMode()) {
    const int row = placements_->rowOf(cluster.id);
    if (row >= 0) {
      selectOffer(row);
      showView(View::Topology);
      return;
    }
  }
  topologyMap_->setTopology(cost::deriveTopology(cluster));
  topologyPinned_ = true;
  showView(View::Topology);
}

void PlannerPanel::showContractTopology(const Cluster& cluster, GpuCount gpus, const QString& caption) {
  const cost::Topology t = cost::deriveTopology(cluster);
  topologyMap_->setTopology(t);
  if (const auto p = cost::packPlacement(t, gpus)) topologyMap_->setPlacement(*p);
  topologyMap_->setPlacementCaption(caption);
  topologyPinned_ = true;
  showView(View::Topology);
}

void PlannerPanel::selectWorkload(int index) { workloadBox_->setCurrentIndex(index); }

void PlannerPanel::selectOffer(int row) {
  QAbstractItemModel* m = table_->model();
  if (row < 0 || row >= m->rowCount()) return;
  table_->selectionModel()->setCurrentIndex(m->index(row, 0),
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void PlannerPanel::showView(View v) { tabs_->setCurrentIndex(static_cast<int>(v)); }

void PlannerPanel::recompute() {
  if (planMode()) {
    askQuestion(true);
    return;
  }
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
  summary_->setText(
      QString("%1 of %2 offers can serve %3; ranked by effective cost (the hourly rate is only one term).")
          .arg(served)
          .arg(model_->rowCount())
          .arg(QString::fromStdString(w.name)));
  if (model_->rowCount() > 0) selectOffer(0);
}

void PlannerPanel::showPlacementRow(int row) {
  updateButtons();
  const auto* p = placements_->placementAt(row);
  const auto* u = placements_->unfitAt(row);
  if (!p && !u) return;
  const cost::Topology t = p ? p->topology : cost::deriveTopology(u->cluster);
  if (!(topologyMap_->topology() == t)) topologyMap_->setTopology(t);
  if (p) {
    topologyMap_->setPlacement(p->placement);
    if (const auto q = question()) bandwidthChart_->setScenario(q->workload, p->topology, p->offer);
  } else {
    topologyMap_->setPlacement({});
  }
}

void PlannerPanel::showSelected(int row) {
  if (planMode()) {
    showPlacementRow(row);
    return;
  }
  if (row < 0 || row >= model_->rowCount()) return;
  const auto& c = model_->candidateAt(row);
  topologyMap_->setTopology(c.topology);
  const int index = workloadBox_->currentIndex();
  if (index < 0 || index >= static_cast<int>(workloads_.size())) return;
  const cost::WorkloadProfile& w = workloads_[index];
  if (c.placement)
    topologyMap_->setPlacement(*c.placement);
  else if (auto p = cost::packPlacement(c.topology, w.gpus()))
    topologyMap_->setPlacement(*p);
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
  if (settings.contains("planner/questionShown")) {
    questionToggle_->setChecked(settings.value("planner/questionShown").toBool());
    questionChosen_ = true;
  }
}

}  // namespace tessera::planner
