#pragma once
// What the exchange adds around the matching engine, all on the one matching thread: sessions
// and logon, order-id assignment, the money (a double-entry SettlementLedger: cash, escrow,
// fees) and bid reservations, contract settlement and delivery reports with their remedies,
// per-account limits, the journal, and market data (book cells, trades, clock, price index)
// with sequence numbers.
// It never touches a socket: it turns requests into lines in an Outbox, which the server sends
// only after the batch's journal commit (group commit).
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"
#include "core/net/ClientMessage.h"
#include "core/net/ClOrdIdIndex.h"
#include "core/net/DenseIdTable.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ForwardDesk.h"
#include "core/net/OptionDesk.h"
#include "core/net/Journal.h"
#include "core/net/ServerMessage.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/PriceIndex.h"
#include "core/settlement/SettlementLedger.h"
#include "core/store/HistoryRecorder.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::net {

using SessionId = std::uint64_t;
class SnapshotStore;

struct Outbox {
  std::unordered_map<SessionId, std::string> toSession;
  std::string marketData;            // for every subscribed session, after its own lines
  std::vector<SessionId> subscribers;  // filled by ExchangeCore::finishBatch
  std::vector<SessionId> disconnect;   // after their lines are sent
  void clear();
};

class ExchangeCore {
 public:
  // A snapshot to start from (SnapshotStore) instead of replaying the whole journal.
  struct SnapshotStart {
    std::uint64_t journalSeq = 0;  // the entry it was taken after
    std::string_view bytes;
  };
  // Replays `journal` (if it has entries) or, on a fresh journal, opens the configured market.
  // With `from`, loads that snapshot and replays only the entries after it. Throws
  // SnapshotCorrupt (core/engine/SnapshotCodec.h) if `from` cannot be used (damaged, another
  // version, another journal, a changed configuration): the caller then starts again without
  // it. Throws std::runtime_error when the journal cannot be replayed.
  ExchangeCore(const ExchangeConfig& config, Journal& journal, const SnapshotStart* from = nullptr);
  ~ExchangeCore();

  // `address`: the peer's "ip:port", for the log (logons and failed logons).
  void sessionOpened(SessionId s, std::string address = {});
  bool loggedOn(SessionId s) const;
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
  Money escrow(AccountId a) const;
  const SettlementLedger& ledger() const { return ledger_; }
  const ContractSettlement& settlement() const { return settlement_; }
  const std::deque<IndexPublication>& indexHistory() const { return indexHistory_; }
  // The latest published value of every index series (e.g. next-day prices for forwards).
  const std::map<std::pair<Accelerator, Tenor>, IndexPublication>& indexNow() const { return indexNow_; }

  // A hash of everything a restart must rebuild: every order the engine ever accepted (as
  // order_status shows it) and its exchange record, contracts, holdings, settlement, balances,
  // the ledger's kept postings, forwards, the price index, the published book cells and the
  // next ids. Two cores agree on it when they answer every query alike; it leaves out only
  // what starts over with each process (sessions, epoch, market-data sequence numbers).
  // Its cost grows with all of that: for tests and tools, not for the matching thread.
  std::uint64_t stateDigest() const;

  // The whole state in the snapshot form (docs/protocol.md, "Snapshots"), taken after journal
  // entry journal.lastSeq(): call it between batches, after the journal's commit. Loading it
  // (the constructor's `from`) and replaying the later entries gives the state a full replay
  // gives (same stateDigest).
  std::string snapshot() const;
  // What a snapshot depends on besides the journal: the configured accounts (their starting
  // cash, house flag and credit line) and the fee. A snapshot taken under another fingerprint
  // is not used (a full replay applies the configuration as it is now).
  static std::uint64_t configFingerprint(const ExchangeConfig& config);
  // Starts from the newest snapshot in `store` that can be used (damaged ones, ones of another
  // version, journal or configuration are passed over with a warning in the log), else by a
  // full replay of the journal. Null `store`: a full replay.
  static std::unique_ptr<ExchangeCore> start(const ExchangeConfig& config, Journal& journal,
                                             SnapshotStore* store);
  // The journal entry the snapshot it started from was taken after (0: none).
  std::uint64_t snapshotSeq() const { return snapshotSeq_; }
  bool startedFromSnapshot() const { return fromSnapshot_; }

  // Journal entries that are not engine inputs carry a "type" the engine does not know; each
  // such type has one replay handler, registered here (delivery reports, outages; forward
  // market entries the same way). Live code writes them with appendJournalEntry().
  using JournalEntryHandler = std::function<void(const nlohmann::json& entry)>;
  void registerJournalEntry(std::string type, JournalEntryHandler replay);

 private:
  struct Account {
    AccountId id = 0;
    std::string name;
    Money reserved = 0;  // sum of its open orders' OrderInfo::reserved (held on the ledger's Cash)
    bool house = false;
    Money creditLimit = 0;  // what its bids may commit beyond its cash (AccountConfig::creditLimit)
    bool configured = false;
    int openOrders = 0;
    ClOrdIdIndex byClOrdId;
    std::vector<SessionId> sessions;
  };
  struct OrderInfo {
    AccountId account = 0;
    std::string clOrdId;
    Price limit = 0;
    Side side = Side::Buy;
    Money reserved = 0;  // limit x leaves of a working bid; set only by syncReservation
    bool open = false;
  };
  struct Session {
    AccountId account = 0;
    int failedLogons = 0;
    bool subscribed = false;
    std::string address;
  };

  // An error reply to session `s`, also written to the log (rate-limited) with its account.
  void replyError(SessionId s, Outbox& out, std::string_view code, std::string_view reason,
                  std::string_view type, std::optional<std::uint64_t> req);
  Account& accountNamed(const std::string& name);
  Account* accountOf(SessionId s);
  std::optional<OrderId> resolve(const Account& a, const OrderRef& ref) const;

  void onNewOrder(SessionId s, Account& a, const NewOrder& m, Outbox& out, bool checks);
  void onCancel(SessionId s, Account& a, OrderId id, std::optional<std::uint64_t> req, Outbox& out);
  void onAmend(SessionId s, Account& a, const AmendOrder& m, std::optional<std::uint64_t> req, Outbox& out);
  void onSubscribe(SessionId s, const Subscribe& m, Outbox& out);
  void onForward(Account& a, const ForwardRequest& f, std::optional<std::uint64_t> req, Outbox& out);
  // Sends what the forward desk produced (nothing while replaying) and marks balances dirty.
  void sendForward(const ForwardDeskOutput& d, Outbox* out);
  // Options on the index (OptionDesk); their output is sent by sendForward, the same shape.
  void onOption(Account& a, const OptionRequest& r, std::optional<std::uint64_t> req, Outbox& out);
  // Cash an account may still commit: not reserved by bids nor held by resting forward orders.
  Money spendable(const Account& a) const;
  // Cash not reserved by bids (the forward desk subtracts its own margin holds itself).
  Money cashFreeOfBids(const Account& a) const;
  void onDeliveryReport(SessionId s, Account& a, const DeliveryReportRequest& m,
                        std::optional<std::uint64_t> req, Outbox& out);
  void onOutage(SessionId s, Account& a, const OutageRequest& m, std::optional<std::uint64_t> req,
                Outbox& out);

  // Settlement: the journaled, replayed halves of delivery reports and outages. Each returns
  // the error code for the reporter, or nothing; on success the entry is journaled (unless
  // replaying) and, live, the contracts' remedies are applied.
  std::optional<std::string> applyDeliveryReport(AccountId provider, const DeliveryReport& r,
                                                 Outbox* out);
  std::optional<std::string> applyOutage(AccountId provider, const OutageRequest& m, Outbox* out,
                                         std::vector<ContractId>* affected);
  // Replacement remedy for contract `k` after a report on [start, end): a CapacityTransfer from
  // the provider's unoffered capacity on an equal-or-better cluster, or the credit if none.
  void applyRemedy(const Contract& k, Hour start, Hour end, std::optional<ClusterId> excluded,
                   Outbox* out);
  void applyFeederOutages(Outbox& out);
  void appendJournalEntry(const nlohmann::json& entry);
  void notify(const SettlementEvent& e, Outbox* out);
  void fundFromOutside(AccountId a, Money amount, const char* memo);
  BalanceFigures balanceOf(const Account& a) const;
  void publishIndex(Hour now, Outbox* out);

  // Applies one input to the engine; on success journals it, updates cash and open-order
  // counts, writes execution reports (to `out`, unless replaying) and market data.
  // Returns the engine's rejection if there was one.
  std::optional<OrderRejected> applyInput(const InputEvent& in, const std::string& clOrdId,
                                          Outbox* out);
  void account(const Event& e, Outbox* out);
  void syncReservation(OrderId id, OrderInfo& info);
  void toAccount(AccountId a, Outbox& out, const std::string& line);
  void touch(const OrderRequest& o, Hour from, Hour to);
  void publishCells(Outbox* out);
  void publish(Outbox* out, std::string line);
  void replay(std::uint64_t afterSeq);
  void openMarket(const ExchangeConfig& config);
  void loadSnapshot(const SnapshotStart& from);
  bool fromSnapshot_ = false;
  std::uint64_t snapshotSeq_ = 0;
  mutable std::size_t lastSnapshotBytes_ = 0;
  std::uint64_t fingerprint_ = 0;  // configFingerprint of the configuration it runs with

  Limits limits_;
  Journal& journal_;
  std::unique_ptr<Matcher> engine_;
  AccountDirectory directory_;
  std::unordered_map<AccountId, Account> accounts_;
  DenseIdTable<OrderInfo> orders_;  // by exchange order id (sequential)
  std::unordered_map<SessionId, Session> sessions_;
  std::set<AccountId> dirtyBalances_;
  OrderId nextOrderId_ = 1;
  std::uint64_t replayed_ = 0;
  std::uint64_t epoch_ = 0;
  bool replaying_ = false;
  std::vector<Event> events_;
  // Whether the buyer of contract id (index id - 1; contract ids are dense from 1) was the
  // incoming order of its trade: the positions reply says which side took liquidity.
  std::vector<bool> buyerTook_;
  std::string scratch_;

  // Money and settlement.
  SettlementLedger ledger_;
  ContractSettlement settlement_{ledger_};
  // Cash-settled index forwards, on the same ledger; their margin holds count against bids.
  ForwardDesk forwards_{ledger_, directory_};
  // Options on the index, on the same ledger; their premium and margin holds count like forwards'.
  OptionDesk options_{ledger_, directory_};
  std::shared_ptr<FeederReports> feederReports_;
  std::map<std::string, JournalEntryHandler, std::less<>> journalEntries_;

  // Price index: fed one print per trade, published hourly; 30 days of hourly values kept.
  PriceIndex index_;
  std::set<Accelerator> indexedAccelerators_;
  std::optional<Hour> indexAsOf_;
  std::map<std::pair<Accelerator, Tenor>, IndexPublication> indexNow_;
  std::deque<IndexPublication> indexHistory_;

  // Market-history recording (ExchangeConfig::recordPath); dropped, with one message, if the
  // file fails (disk full...), so a history problem never stops the exchange.
  std::unique_ptr<store::MarketHistoryStore> history_;
  std::unique_ptr<store::HistoryRecorder> recorder_;
  std::chrono::steady_clock::time_point lastHistoryFlush_{};
  void stopRecording(const std::string& why);

  // Market data.
  std::map<CellKey, std::vector<BookLevel>> published_;
  std::set<CellKey> touched_;
  // publishCells' scratch, kept between calls so the hot path does not allocate.
  std::vector<CellKey> touchedCells_;
  std::vector<std::vector<BookLevel>> touchedDepth_;
  std::vector<std::vector<BookLevel>> scratchDepth_;
  std::vector<std::size_t> scratchRun_;

  // Cells are published for hours before now + Limits::mdHorizonHours; this is where the
  // horizon stood at the last clock step.
  Hour publishedThrough_ = 0;
  std::uint64_t mdSeq_ = 0;
  std::deque<std::pair<std::uint64_t, std::string>> recent_;  // for re-requests after a gap
};

}  // namespace tessera::net
