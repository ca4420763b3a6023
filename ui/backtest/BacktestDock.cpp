#include "ui/backtest/BacktestDock.h"

#include "backtest/ReportWriter.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/SvgChart.h"
#include "ui/backtest/BacktestReportCharts.h"
#include "ui/backtest/BacktestRunner.h"
#include "ui/backtest/BacktestSummaryModel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace tessera::ui {

BacktestDock::BacktestDock(QWidget* parent)
    : QWidget(parent),
      history_(new QLineEdit(this)),
      strategy_(new QComboBox(this)),
      params_(new QPlainTextEdit(this)),
      latency_(new QSpinBox(this)),
      runButton_(new QPushButton(tr("Run"), this)),
      cancelButton_(new QPushButton(tr("Cancel"), this)),
      saveButton_(new QPushButton(tr("Save report..."), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      summaryView_(new QTableView(this)),
      summary_(new BacktestSummaryModel(this)),
      charts_(new QTabWidget(this)),
      runner_(new BacktestRunner(this)) {
  setObjectName("backtestDock");
  history_->setObjectName("backtestHistory");
  history_->setPlaceholderText(tr("history.db (tessera-backtest generate --out history.db)"));
  auto* browse = new QPushButton(tr("Browse..."), this);
  connect(browse, &QPushButton::clicked, this, &BacktestDock::chooseHistory);
  auto* historyRow = new QHBoxLayout;
  historyRow->addWidget(history_, 1);
  historyRow->addWidget(browse);

  strategy_->setObjectName("backtestStrategy");
  for (const auto& s : backtest::builtInStrategies()) {
    strategy_->addItem(QString::fromStdString(s.name));
    strategy_->setItemData(strategy_->count() - 1, QString::fromStdString(s.summary), Qt::ToolTipRole);
  }
  connect(strategy_, &QComboBox::currentTextChanged, this, [this](const QString& name) { setStrategy(name); });

  params_->setObjectName("backtestParams");
  params_->setTabChangesFocus(true);
  params_->setMaximumHeight(120);
  QFont mono("monospace");
  mono.setStyleHint(QFont::Monospace);
  params_->setFont(mono);

  latency_->setObjectName("backtestLatency");
  latency_->setRange(0, 60'000'000);
  latency_->setSingleStep(100);
  latency_->setSuffix(tr(" µs"));
  latency_->setToolTip(tr("Delay between a strategy's decision and its order reaching the engine"));

  auto* form = new QFormLayout;
  form->addRow(tr("History"), historyRow);
  form->addRow(tr("Strategy"), strategy_);
  form->addRow(tr("Parameters"), params_);
  form->addRow(tr("Order latency"), latency_);

  runButton_->setObjectName("backtestRun");
  cancelButton_->setObjectName("backtestCancel");
  saveButton_->setObjectName("backtestSave");
  runButton_->setToolTip(tr("Run the backtest (Ctrl+Shift+B)"));
  cancelButton_->setToolTip(tr("Stop the running backtest (Esc)"));
  progress_->setObjectName("backtestProgress");
  progress_->setRange(0, 1000);
  progress_->setTextVisible(true);
  progress_->setFormat("%p%");
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(runButton_);
  buttons->addWidget(cancelButton_);
  buttons->addWidget(progress_, 1);
  buttons->addWidget(saveButton_);
  connect(runButton_, &QPushButton::clicked, this, &BacktestDock::run);
  connect(cancelButton_, &QPushButton::clicked, this, &BacktestDock::cancel);
  connect(saveButton_, &QPushButton::clicked, this, &BacktestDock::chooseReportDir);
  auto* runKey = new QShortcut(QKeySequence(tr("Ctrl+Shift+B")), this, this, &BacktestDock::run);
  runKey->setContext(Qt::WidgetWithChildrenShortcut);
  auto* cancelKey = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, &BacktestDock::cancel);
  cancelKey->setContext(Qt::WidgetWithChildrenShortcut);

  status_->setObjectName("backtestStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  summaryView_->setObjectName("backtestSummary");
  summaryView_->setModel(summary_);
  summaryView_->verticalHeader()->hide();
  summaryView_->horizontalHeader()->setStretchLastSection(true);
  summaryView_->verticalHeader()->setDefaultSectionSize(20);
  summaryView_->setSelectionBehavior(QAbstractItemView::SelectRows);

  const char* tabNames[] = {"Equity", "Price paid vs market", "Drawdown"};
  for (int i = 0; i < 3; ++i) {
    plots_[i] = new QCustomPlot(charts_);
    plots_[i]->setObjectName(QString("backtestChart%1").arg(i));
    plots_[i]->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plots_[i]->setMinimumHeight(180);
    charts_->addTab(plots_[i], tr(tabNames[i]));
  }
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(summaryView_);
  split->addWidget(charts_);
  split->setStretchFactor(1, 3);
  split->setSizes({380, 620});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  connect(runner_, &BacktestRunner::progress, this,
          [this](double f) { progress_->setValue(static_cast<int>(f * 1000)); });
  connect(runner_, &BacktestRunner::finished, this, &BacktestDock::onFinished);
  connect(runner_, &BacktestRunner::failed, this, [this](const QString& m) {
    onEnded(tr("Failed: %1").arg(m));
    emit runFailed(m);
  });
  connect(runner_, &BacktestRunner::cancelled, this, [this] {
    onEnded(tr("Cancelled."));
    emit runCancelled();
  });

  QSettings settings;
  history_->setText(settings.value("backtest/history").toString());
  const QString name = settings.value("backtest/strategy", "standing-bid").toString();
  const QString savedParams = settings.value("backtest/params").toString();
  latency_->setValue(settings.value("backtest/latencyUs", 0).toInt());
  setStrategy(name);
  if (!savedParams.isEmpty()) params_->setPlainText(savedParams);
  setRunning(false);
  saveButton_->setEnabled(false);
  status_->setText(tr("Choose a history and a strategy, then Run."));
}

BacktestDock::~BacktestDock() = default;

void BacktestDock::setHistoryPath(const QString& path) { history_->setText(path); }
QString BacktestDock::historyPath() const { return history_->text(); }
bool BacktestDock::isRunning() const { return runner_->running(); }

void BacktestDock::setStrategy(const QString& name) {
  const int i = strategy_->findText(name);
  if (i < 0) return;
  if (strategy_->currentIndex() != i) {
    strategy_->setCurrentIndex(i);  // re-enters through currentTextChanged
    return;
  }
  for (const auto& s : backtest::builtInStrategies())
    if (QString::fromStdString(s.name) == name) params_->setPlainText(QString::fromStdString(s.exampleParams.dump(2)));
}

void BacktestDock::setParameters(const QString& json) { params_->setPlainText(json); }

void BacktestDock::setRunning(bool running) {
  runButton_->setEnabled(!running);
  cancelButton_->setEnabled(running);
  history_->setEnabled(!running);
  strategy_->setEnabled(!running);
  params_->setReadOnly(running);
  latency_->setEnabled(!running);
}

void BacktestDock::run() {
  if (runner_->running()) return;
  if (history_->text().trimmed().isEmpty()) {
    status_->setText(tr("Choose a history file first."));
    return;
  }
  BacktestRequest req{history_->text().trimmed(), strategy_->currentText(), params_->toPlainText(), latency_->value()};
  if (!runner_->start(req)) return;
  saveSettings();
  progress_->setValue(0);
  setRunning(true);
  status_->setText(tr("Running %1 on %2...").arg(req.strategy, req.history));
}

void BacktestDock::cancel() {
  if (!runner_->running()) return;
  runner_->cancel();
  status_->setText(tr("Cancelling..."));
}

void BacktestDock::onEnded(const QString& status) {
  setRunning(false);
  status_->setText(status);
}

void BacktestDock::onFinished(std::shared_ptr<BacktestOutcome> outcome) {
  last_ = std::move(outcome);
  progress_->setValue(1000);
  summary_->setResult(last_->result, last_->seconds);
  summaryView_->resizeColumnsToContents();
  const auto specs = backtest::reportCharts(last_->result);
  for (int i = 0; i < 3 && i < static_cast<int>(specs.size()); ++i)
    drawChart(*plots_[i], specs[static_cast<std::size_t>(i)]);
  saveButton_->setEnabled(true);
  onEnded(tr("Done: %1 inputs replayed in %2 s, %3 fills.")
              .arg(last_->result.inputs)
              .arg(last_->seconds, 0, 'f', 2)
              .arg(last_->result.summary.fills));
  emit runFinished();
}

QString BacktestDock::saveReport(const QString& dir) {
  if (!last_) return tr("Nothing to save yet: run a backtest first.");
  if (auto e = backtest::writeReport(last_->result, last_->info, last_->accounts, dir.toStdString()))
    return QString::fromStdString(*e);
  return {};
}

void BacktestDock::chooseHistory() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Market history"), history_->text(),
                                                 tr("Market histories (*.db *.sqlite);;All files (*)"));
  if (!f.isEmpty()) history_->setText(f);
}

void BacktestDock::chooseReportDir() {
  const QString d = QFileDialog::getExistingDirectory(this, tr("Save the report into"));
  if (d.isEmpty()) return;
  const QString e = saveReport(d);
  status_->setText(e.isEmpty() ? tr("Report saved: %1/report.html").arg(d) : e);
}

void BacktestDock::saveSettings() const {
  QSettings settings;
  settings.setValue("backtest/history", history_->text());
  settings.setValue("backtest/strategy", strategy_->currentText());
  settings.setValue("backtest/params", params_->toPlainText());
  settings.setValue("backtest/latencyUs", latency_->value());
}

}  // namespace tessera::ui
