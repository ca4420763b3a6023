#pragma once
// Runs one backtest off the GUI thread: streams the history through the replay a chunk at a
// time (backtest::HistoryStream, so its size does not bound memory) with the strategy, and
// reports progress and the result back to the GUI thread through queued signals. Cancel stops
// the replay at the next input.
#include "backtest/BacktestResult.h"
#include "backtest/ReportWriter.h"
#include "core/domain/AccountDirectory.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>

class QThread;

namespace tessera::ui {

struct BacktestRequest {
  QString history;
  QString strategy;
  QString paramsJson;
  qint64 latencyMicros = 0;
};

// What a finished run hands to the GUI: the result and what is needed to write its report.
struct BacktestOutcome {
  backtest::BacktestResult result;
  backtest::RunInfo info;
  AccountDirectory accounts;
  double seconds = 0;
};

class BacktestRunner : public QObject {
  Q_OBJECT
 public:
  explicit BacktestRunner(QObject* parent = nullptr);
  ~BacktestRunner() override;  // cancels and waits for a running backtest

  bool running() const { return thread_ != nullptr; }
  // Returns false (and emits nothing) if a run is already going.
  bool start(const BacktestRequest& request);
  void cancel();

 signals:
  void progress(double fraction);
  void finished(std::shared_ptr<tessera::ui::BacktestOutcome> outcome);
  void failed(QString message);
  void cancelled();

 private:
  void threadDone();

  // Written by the worker before it ends, read by threadDone() on the GUI thread after it ended.
  struct Ending {
    std::shared_ptr<BacktestOutcome> outcome;
    QString error;
  };
  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::shared_ptr<Ending> ending_;
};

}  // namespace tessera::ui
