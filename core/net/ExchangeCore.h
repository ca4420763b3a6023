#pragma once
// What the exchange adds around the matching engine, all on the one matching thread: sessions
// and logon, order-id assignment, cash balances and reservations, per-account limits, the
// journal, and market data (book cells, trades, clock) with sequence numbers.
// It never touches a socket: it turns requests into lines in an Outbox, which the server sends
// only after the batch's journal commit (group commit).
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/Journal.h"
#include "core/store/HistoryRecorder.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::net {

using SessionId = std::uint64_t;

struct Outbox {
  std::unordered_map<SessionId, std::string> toSession;
  std::string marketData;            // for every subscribed session, after its own lines
  std::vector<SessionId> subscribers;  // filled by ExchangeCore::finishBatch
  std::vector<SessionId> disconnect;   // after their lines are sent
  void clear();
};

class ExchangeCore {
 public:
  // Replays `journal` (if it has entries) or, on a fresh journal, opens the configured market.
  // Throws std::runtime_error when the journal cannot be replayed.
  ExchangeCore(const ExchangeConfig& config, Journal& journal);
  ~ExchangeCore();

  void sessionOpened(SessionId s);
  void sessionClosed(SessionId s);
  void handle(SessionId s, const ClientMessage& m, Outbox& out);
  void handleParseError(SessionId s, const ParseError& e, Outbox& out);
  void handleRejectedLine(SessionId s, std::string_view code, std::string_view reason, Outbox& out);
  // An input from an in-process feeder (EmbeddedExchange::inject); see its documentation.
  void inject(const InputEvent& e, const std::string& account, Outbox& out);
  // Ends the batch: balances of accounts that changed, subscriber list. Commit the journal
  // after this and before sending anything.
  void finishBatch(Outbox& out);

  const Matcher& engine() const { return *engine_; }
  const AccountDirectory& accounts() const { return directory_; }
  std::uint64_t mdSeq() const { return mdSeq_; }
  std::uint64_t epoch() const { return epoch_; }
  std::uint64_t replayedEntries() const { return replayed_; }
  Money cash(AccountId a) const;
  Money reserved(AccountId a) const;

 private:
  struct Account {
    AccountId id = 0;
    std::string name;
    std::string salt;
    std::string keyHash;
    Money cash = 0;
    Money reserved = 0;
    bool house = false;
    bool configured = false;
    int openOrders = 0;
    std::unordered_map<std::string, OrderId> byClOrdId;
    std::vector<SessionId> sessions;
  };
  struct OrderInfo {
    AccountId account = 0;
    std::string clOrdId;
    Price limit = 0;
    Side side = Side::Buy;
    Money reserved = 0;
    bool open = false;
  };
  struct Session {
    AccountId account = 0;
    int failedLogons = 0;
    bool subscribed = false;
  };

  Account& accountNamed(const std::string& name);
  Account* accountOf(SessionId s);
  std::optional<OrderId> resolve(const Account& a, const OrderRef& ref) const;

  void onNewOrder(SessionId s, Account& a, const NewOrder& m, Outbox& out, bool checks);
  void onCancel(SessionId s, Account& a, OrderId id, std::optional<std::uint64_t> req, Outbox& out);
  void onAmend(SessionId s, Account& a, const AmendOrder& m, std::optional<std::uint64_t> req, Outbox& out);
  void onSubscribe(SessionId s, const Subscribe& m, Outbox& out);

  // Applies one input to the engine; on success journals it, updates cash and open-order
  // counts, writes execution reports (to `out`, unless replaying) and market data.
  // Returns the engine's rejection if there was one.
  std::optional<OrderRejected> applyInput(const InputEvent& in, const std::string& clOrdId,
                                          Outbox* out);
  void account(const Event& e, Outbox* out);
  void toAccount(AccountId a, Outbox& out, const std::string& line);
  void touch(const OrderRequest& o, Hour from, Hour to);
  void publishCells(Outbox* out);
  void publish(Outbox* out, std::string line);
  void replay();
  void openMarket(const ExchangeConfig& config);

  Limits limits_;
  Journal& journal_;
  std::unique_ptr<Matcher> engine_;
  AccountDirectory directory_;
  std::unordered_map<AccountId, Account> accounts_;
  std::unordered_map<OrderId, OrderInfo> orders_;
  std::unordered_map<SessionId, Session> sessions_;
  std::set<AccountId> dirtyBalances_;
  OrderId nextOrderId_ = 1;
  std::uint64_t replayed_ = 0;
  std::uint64_t epoch_ = 0;
  bool replaying_ = false;
  std::vector<Event> events_;
  std::string scratch_;

  // Market-history recording (ExchangeConfig::recordPath); dropped, with one message, if the
  // file fails (disk full...), so a history problem never stops the exchange.
  std::unique_ptr<store::MarketHistoryStore> history_;
  std::unique_ptr<store::HistoryRecorder> recorder_;
  std::chrono::steady_clock::time_point lastHistoryFlush_{};
  void stopRecording(const std::string& why);

  // Market data.
  std::map<CellKey, std::vector<BookLevel>> published_;
  std::set<CellKey> touched_;
  std::uint64_t mdSeq_ = 0;
  std::deque<std::pair<std::uint64_t, std::string>> recent_;  // for re-requests after a gap
};

}  // namespace tessera::net
