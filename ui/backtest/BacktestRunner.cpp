#include "ui/backtest/BacktestRunner.h"

#include "backtest/History.h"
#include "backtest/StrategyRegistry.h"

#include <QThread>

#include <chrono>

namespace tessera::ui {

BacktestRunner::BacktestRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<tessera::ui::BacktestOutcome>>();
}

BacktestRunner::~BacktestRunner() {
  if (thread_) {
    cancel_->store(true);
    thread_->wait();
    delete thread_;
  }
}

void BacktestRunner::cancel() {
  if (cancel_) cancel_->store(true);
}

bool BacktestRunner::start(const BacktestRequest& request) {
  if (thread_) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto flag = cancel_;
  ending_ = std::make_shared<Ending>();
  auto ending = ending_;
  // Everything the worker touches is captured by value; it reports progress through queued
  // invocations and leaves its result in `ending`, which threadDone() reads once it has ended.
  thread_ = QThread::create([this, request, flag, ending] {
    auto fail = [&](QString m) { ending->error = std::move(m); };
    const auto params = nlohmann::json::parse(request.paramsJson.toStdString(), nullptr, false);
    if (params.is_discarded()) return fail(tr("The parameters are not valid JSON."));
    auto made = backtest::makeStrategy(request.strategy.toStdString(), params);
    if (auto* e = std::get_if<std::string>(&made)) return fail(QString::fromStdString(*e));
    auto opened = backtest::HistoryStream::open(request.history.toStdString());
    if (auto* e = std::get_if<store::StoreError>(&opened)) return fail(QString::fromStdString(e->message));
    const auto& history = std::get<backtest::HistoryStream>(opened);
    backtest::ReplayConfig cfg;
    cfg.latency.orderEntry = backtest::LatencyDistribution::fixed(request.latencyMicros);
    cfg.cancel = flag.get();
    const auto t0 = std::chrono::steady_clock::now();
    auto outcome = std::make_shared<BacktestOutcome>();
    auto streamed =
        backtest::runBacktest(history, *std::get<std::unique_ptr<backtest::Strategy>>(made), cfg, [this](double f) {
          QMetaObject::invokeMethod(
              this, [this, f] { emit progress(f); }, Qt::QueuedConnection);
        });
    if (auto* e = std::get_if<store::StoreError>(&streamed)) return fail(QString::fromStdString(e->message));
    outcome->result = std::move(std::get<backtest::BacktestResult>(streamed));
    outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (outcome->result.cancelled) return;  // neither outcome nor error: cancelled
    // Parameters the history refutes (a cluster it does not have): an error, not a run that
    // looks as if the market had failed.
    if (!outcome->result.setupError.empty()) return fail(QString::fromStdString(outcome->result.setupError));
    outcome->info = {request.history.toStdString(), request.strategy.toStdString(), params, cfg.latency};
    outcome->accounts = history.accounts();
    outcome->accounts.intern(outcome->result.accountName);
    ending->outcome = std::move(outcome);
  });
  connect(thread_, &QThread::finished, this, &BacktestRunner::threadDone, Qt::QueuedConnection);
  thread_->start(QThread::LowPriority);
  return true;
}

void BacktestRunner::threadDone() {
  if (!thread_) return;
  thread_->wait();
  thread_->deleteLater();
  thread_ = nullptr;
  const auto ending = std::move(ending_);
  if (ending->outcome)
    emit finished(ending->outcome);
  else if (!ending->error.isEmpty())
    emit failed(ending->error);
  else
    emit cancelled();
}

}  // namespace tessera::ui
