#pragma once
// The terminal's side of `--on-fill` (docs/cli.md): a buy sent from the ticket with a command
// attached runs that command once for each contract the order fills, with the same environment
// variables as `tessera-cli buy --on-fill` (core/net runOnFillCommand), off the GUI thread.
//
// State (core/net OnFillState, one file per account): which orders are watched and with which
// command ("watch" lines, written once the exchange has numbered the order), and which
// contracts had their command ("started" before it runs, "exited" with its status after). A
// relaunched terminal reads it back, goes on watching, and never runs a command twice for one
// contract (a terminal that dies while a command runs leaves "started": it is not run again).
#include "core/net/OnFill.h"
#include "ui/session/TradingSession.h"

#include <QObject>
#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <vector>

class QThread;

namespace tessera::ui {

class OnFillWatcher : public QObject {
  Q_OBJECT
 public:
  // `statePath`: the state file; `account` and `exchange()` (HOST:PORT, asked when a command
  // starts: an embedded exchange's port is known once it runs) go to the command as
  // TESSERA_ACCOUNT and TESSERA_EXCHANGE.
  OnFillWatcher(TradingSession& session, QString statePath, QString account, std::function<QString()> exchange,
                QObject* parent = nullptr);
  // Waits for commands still running and records their exit status.
  ~OnFillWatcher() override;

  // Why the state file cannot be used (then nothing is watched), or empty.
  QString error() const;
  QString statePath() const { return statePath_; }
  // Attaches `command` to the order sent with session id `sentId` (client order id `clOrdId`,
  // the command's TESSERA_CL_ORD_ID); it is watched from the moment the market accepts the
  // order. False (with `why`) if the command cannot be kept.
  [[nodiscard]] bool watch(OrderId sentId, const QString& clOrdId, const QString& command, QString* why = nullptr);
  // The command attached to an order the exchange numbered `order`, if any.
  QString commandFor(OrderId order) const;
  // A contract's command: empty if it has none; else what became of it ("running", "exited 0").
  QString outcome(ContractId contract) const;
  // Commands running now.
  int running() const { return static_cast<int>(runs_.size()); }

 signals:
  void commandStarted(tessera::ContractId contract, const QString& command);
  // `status`: the exit status (128 + signal if a signal ended it; -1 if it could not start).
  void commandExited(tessera::ContractId contract, int status);

 private:
  void numberPending();
  void scan();
  struct Run {
    QThread* thread = nullptr;
    std::shared_ptr<int> status;
  };
  void finishRun(ContractId contract);

  TradingSession& session_;
  QString statePath_;
  std::string account_;
  std::function<QString()> exchange_;
  net::OnFillState state_;
  std::map<OrderId, net::OnFillState::Watch> pending_;  // by session id, until accepted
  std::map<ContractId, Run> runs_;
};

}  // namespace tessera::ui
