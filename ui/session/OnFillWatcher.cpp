#include "ui/session/OnFillWatcher.h"

#include <QThread>

namespace tessera::ui {

OnFillWatcher::OnFillWatcher(TradingSession& session, QString statePath, QString account,
                             std::function<QString()> exchange, QObject* parent)
    : QObject(parent),
      session_(session),
      statePath_(std::move(statePath)),
      account_(account.toStdString()),
      exchange_(std::move(exchange)),
      state_(statePath_.toStdString()) {
  if (state_.error()) return;
  // The market names an order by its own number from the accept on (orderNumbered comes first).
  connect(&session_, &TradingSession::orderAccepted, this, [this](OrderId sent) {
    const auto it = pending_.find(sent);
    if (it == pending_.end()) return;
    const net::OnFillState::Watch watch = it->second;
    pending_.erase(it);
    if (!state_.markWatching(session_.shownId(sent), watch)) {
      emit commandExited(0, -1);
      return;
    }
    scan();
  });
  connect(&session_, &TradingSession::orderRejected, this, [this](OrderId sent) { pending_.erase(sent); });
  connect(&session_, &TradingSession::contractsChanged, this, &OnFillWatcher::scan);
  connect(&session_, &TradingSession::accountChanged, this, &OnFillWatcher::scan);
}

OnFillWatcher::~OnFillWatcher() {
  while (!runs_.empty()) {
    runs_.begin()->second.thread->wait();
    finishRun(runs_.begin()->first);
  }
}

QString OnFillWatcher::error() const { return state_.error() ? QString::fromStdString(*state_.error()) : QString(); }

bool OnFillWatcher::watch(OrderId sentId, const QString& clOrdId, const QString& command, QString* why) {
  const QString trimmed = command.trimmed();
  auto refuse = [&](const QString& reason) {
    if (why) *why = reason;
    return false;
  };
  if (state_.error()) return refuse(error());
  if (trimmed.isEmpty()) return refuse(tr("the command is empty"));
  if (trimmed.contains('\n') || trimmed.contains('\r')) return refuse(tr("the command must be one line"));
  pending_[sentId] = net::OnFillState::Watch{clOrdId.toStdString(), trimmed.toStdString()};
  return true;
}

QString OnFillWatcher::commandFor(OrderId order) const {
  const auto it = state_.watches().find(order);
  return it == state_.watches().end() ? QString() : QString::fromStdString(it->second.command);
}

QString OnFillWatcher::outcome(ContractId contract) const {
  if (runs_.count(contract)) return tr("running");
  if (const auto status = state_.exitStatus(contract)) {
    if (*status < 0) return tr("could not start");
    return tr("exited %1").arg(*status);
  }
  if (state_.started(contract)) return tr("started, exit not recorded");
  return QString();
}

void OnFillWatcher::scan() {
  if (state_.error() || state_.watches().empty()) return;
  const AccountId me = session_.account().id;
  for (const Contract& c : session_.contracts()) {
    if (c.buyer != me || c.buyOrder == 0 || state_.started(c.id)) continue;
    const auto w = state_.watches().find(c.buyOrder);
    if (w == state_.watches().end()) continue;
    // Written (and flushed) before the command starts: at most once, never twice.
    if (!state_.markStarted(c.id)) {
      emit commandExited(c.id, -1);
      continue;
    }
    const Cluster* cluster = session_.cluster(c.cluster);
    net::OnFillContract what{c, cluster ? cluster->name : std::to_string(c.cluster), w->second.clOrdId, account_,
                             exchange_ ? exchange_().toStdString() : std::string()};
    const std::string command = w->second.command;
    auto status = std::make_shared<int>(-1);
    QThread* thread = QThread::create([command, what, status] { *status = net::runOnFillCommand(command, what); });
    runs_[c.id] = Run{thread, status};
    const ContractId id = c.id;
    connect(thread, &QThread::finished, this, [this, id] { finishRun(id); });
    emit commandStarted(c.id, QString::fromStdString(command));
    thread->start();
  }
}

void OnFillWatcher::finishRun(ContractId contract) {
  const auto it = runs_.find(contract);
  if (it == runs_.end()) return;
  const int status = *it->second.status;
  it->second.thread->wait();
  delete it->second.thread;
  runs_.erase(it);
  state_.markExited(contract, status);
  emit commandExited(contract, status);
}

}  // namespace tessera::ui
