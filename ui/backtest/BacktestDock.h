#pragma once
// The backtest panel of the terminal (the content of its "Backtest" dock): choose a history,
// a strategy and its JSON parameters, run it off the GUI thread with a progress bar and a
// cancel button, then see the figures and the equity, price and drawdown charts, and save the
// full report (HTML + PNG + CSV/JSON). Ctrl+Shift+B runs, Esc cancels. The last choices persist
// in QSettings under "backtest/".
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QCustomPlot;

namespace tessera::ui {

class BacktestRunner;
class BacktestSummaryModel;
struct BacktestOutcome;

class BacktestDock : public QWidget {
  Q_OBJECT
 public:
  explicit BacktestDock(QWidget* parent = nullptr);
  ~BacktestDock() override;

  void setHistoryPath(const QString& path);
  QString historyPath() const;
  void setStrategy(const QString& name);  // also loads its example parameters
  void setParameters(const QString& json);
  bool isRunning() const;
  // The last completed run, or null.
  const BacktestOutcome* lastOutcome() const { return last_.get(); }

 public slots:
  void run();
  void cancel();
  // Writes the last run's report into `dir`; returns an error message or an empty string.
  QString saveReport(const QString& dir);

 signals:
  void runFinished();  // a run completed and the charts show it
  void runFailed(QString message);
  void runCancelled();

 private:
  void chooseHistory();
  void chooseReportDir();
  void onFinished(std::shared_ptr<BacktestOutcome> outcome);
  void onEnded(const QString& status);
  void setRunning(bool running);
  void saveSettings() const;

  QLineEdit* history_;
  QComboBox* strategy_;
  QPlainTextEdit* params_;
  QSpinBox* latency_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QPushButton* saveButton_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableView* summaryView_;
  BacktestSummaryModel* summary_;
  QTabWidget* charts_;
  QCustomPlot* plots_[3];
  BacktestRunner* runner_;
  std::shared_ptr<BacktestOutcome> last_;
};

}  // namespace tessera::ui
