#pragma once
// The exchange around the matching engine, all on the one matching thread: a thin coordinator
// that routes each session's request and each engine event to the part that owns it, in a
// fixed order, and journals every accepted input. The parts, each with its own tests:
//   ExchangeSessions   sessions, logon and the session-level requests
//   ExchangeAccounts   accounts, the exchange's order records, pre-trade checks, bid reservations
//   MarketDataFeed     book cells, trades, clock and price index, numbered, with resume
//   SettlementDesk     contracts' escrow and settlement, delivery reports, outages, remedies,
//                      index forwards (all on one double-entry SettlementLedger)
//   JournalReplay      the journal's replay dispatch and the snapshot's tie to its journal
//   CallDesk           the call mode: orders of call-mode clusters waiting for their call, the
//                      call, its contracts (as engine legs) and its market data
// It never touches a socket: it turns requests into lines in an Outbox, which the server sends
// only after the batch's journal commit (group commit).
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"
#include "core/net/CallDesk.h"
#include "core/net/ClientMessage.h"
#include "core/net/ClOrdIdIndex.h"
#include "core/net/DenseIdTable.h"
#include "core/net/ExchangeAccounts.h"
#include "core/net/ExchangeSessions.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/FinishedOrderArchive.h"
#include "core/net/SettledContractArchive.h"
#include "core/net/ForwardDesk.h"
#include "core/net/Journal.h"
#include "core/net/JournalReplay.h"
#include "core/net/MarketDataFeed.h"
#include "core/net/Outbox.h"
#include "core/net/ServerMessage.h"
#include "core/net/SettlementDesk.h"
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

class SnapshotStore;

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
  // The call mode (CallDesk): the server's once-a-second tick runs a periodic call when its
  // time has come; runCall runs one now (tools and tests).
  void callTick(Outbox& out);
  void runCall(Outbox& out);
  const CallDesk& calls() const { return calls_; }

  const Matcher& engine() const { return *engine_; }
  const AccountDirectory& accounts() const { return directory_; }
  std::uint64_t mdSeq() const { return marketData_.seq(); }
  std::uint64_t epoch() const { return epoch_; }
  std::uint64_t replayedEntries() const { return replayed_; }
  Money cash(AccountId a) const;
  Money reserved(AccountId a) const;
  Money escrow(AccountId a) const;
  const SettlementLedger& ledger() const { return ledger_; }
  const ContractSettlement& settlement() const { return settlement_; }
  const std::deque<IndexPublication>& indexHistory() const { return marketData_.indexHistory(); }
  // The latest published value of every index series (e.g. next-day prices for forwards).
  const std::map<std::pair<Accelerator, Tenor>, IndexPublication>& indexNow() const { return marketData_.indexNow(); }

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
  std::string snapshot() const { return snapshot(snapshotHeader(), 0); }
  // The same in two steps. snapshotHeader() reads the journal (the snapshot's tie to its last
  // entry); snapshot(header) appends the state from memory alone, touching no file, lock or
  // log, so a forked child can run it (ChildSnapshot.h). `expectedBytes` (the last one's size)
  // reserves the room at once: growing by doubling would copy the state again.
  std::string snapshotHeader() const;
  std::string snapshot(std::string header, std::size_t expectedBytes) const;
  // What a snapshot depends on besides the journal: the configured accounts (their starting
  // cash, house flag and credit line) and the fee. A snapshot taken under another fingerprint
  // is not used (a full replay applies the configuration as it is now).
  static std::uint64_t configFingerprint(const ExchangeConfig& config);
  // Starts from the newest snapshot in `store` that can be used (damaged ones, ones of another
  // version, journal or configuration are passed over with a warning in the log), else by a
  // full replay of the journal. Null `store`: a full replay.
  static std::unique_ptr<ExchangeCore> start(const ExchangeConfig& config, Journal& journal, SnapshotStore* store);
  // The journal entry the snapshot it started from was taken after (0: none).
  std::uint64_t snapshotSeq() const { return snapshotSeq_; }
  bool startedFromSnapshot() const { return fromSnapshot_; }

  // Journal entries that are not engine inputs carry a "type" the engine does not know; each
  // such type has one replay handler, registered here (delivery reports, outages; forward
  // market entries the same way). Live code writes them with appendJournalEntry().
  using JournalEntryHandler = JournalReplay::EntryHandler;
  void registerJournalEntry(std::string type, JournalEntryHandler replay);

 private:
  // Requests of a logged-on session, one handler each.
  void dispatch(SessionId s, ExchangeSession& session, ExchangeAccount& a, const ClientMessage& m, Outbox& out);
  void onLogon(SessionId s, ExchangeSession& session, const Logon& logon, std::optional<std::uint64_t> req,
               Outbox& out);
  void onNewOrder(ExchangeAccount& a, const NewOrder& m, Outbox& out, bool checks);
  void onCancel(SessionId s, ExchangeAccount& a, const CancelOrder& c, std::optional<std::uint64_t> req, Outbox& out);
  void onAmend(SessionId s, ExchangeAccount& a, const AmendOrder& m, std::optional<std::uint64_t> req, Outbox& out);
  void onMassCancel(SessionId s, const ExchangeAccount& a, const MassCancel& m, std::optional<std::uint64_t> req,
                    Outbox& out);
  // Archives (and, when retiring, drops) the orders the last input finished.
  void retireFinished(const std::vector<Event>& events);
  void onOrderHistory(SessionId s, const ExchangeAccount& a, const OrderHistoryQuery& q,
                      std::optional<std::uint64_t> req, Outbox& out);
  void onOrderStatus(SessionId s, const ExchangeAccount& a, const OrderStatusQuery& q, std::optional<std::uint64_t> req,
                     Outbox& out);
  void onOrders(SessionId s, const ExchangeAccount& a, std::optional<std::uint64_t> req, Outbox& out);
  void onPositions(SessionId s, const ExchangeAccount& a, const PositionsQuery& q, std::optional<std::uint64_t> req,
                   Outbox& out);
  void onIndexHistory(SessionId s, std::optional<std::uint64_t> req, Outbox& out);
  void onReclaimRates(SessionId s, std::optional<std::uint64_t> req, Outbox& out);
  // Per interruptible cluster, what was sold and reclaimed over the open contracts (the
  // reclaim_rates reply's and md_reclaim_rates' "clusters"), and its market-data line.
  nlohmann::json reclaimRates() const;
  void publishReclaimRates(Outbox* out);
  void onSubscribe(SessionId s, ExchangeSession& session, const Subscribe& m, Outbox& out);
  void onDeliveryReport(SessionId s, const ExchangeAccount& a, const DeliveryReportRequest& m,
                        std::optional<std::uint64_t> req, Outbox& out);
  void onOutage(SessionId s, const ExchangeAccount& a, const OutageRequest& m, std::optional<std::uint64_t> req,
                Outbox& out);
  void onReclaim(SessionId s, const ExchangeAccount& a, const ReclaimRequest& m, std::optional<std::uint64_t> req,
                 Outbox& out);

  // Applies one input to the engine; on success journals it (live), routes its events
  // (onEvent) and publishes the book cells it changed. Returns the engine's rejection if any.
  std::optional<OrderRejected> applyInput(const InputEvent& in, const std::string& clOrdId, Outbox* out);
  // One engine event, to the parts it concerns; `out` is null while replaying.
  void onEvent(const Event& e, Outbox* out);
  void onAccepted(const OrderAccepted& e, Outbox* out);
  void onFill(const Fill& f, Outbox* out);
  void onCancelled(const OrderCancelled& c, Outbox* out);
  void onAmended(const OrderAmended& am, Outbox* out);
  void onClock(Hour now, Outbox* out);
  void onIndicative(SessionId s, std::optional<std::uint64_t> req, Outbox& out);
  // Applies a call's leg (CallDesk::LegExecutor).
  std::optional<std::vector<Event>> applyLeg(InputEvent& leg, const std::string& clOrdId, Outbox* out);

  // An accepted reclaim (SettlementDesk::reclaim) moves its hours out of the buyer's holding.
  void takeBackReclaimed(AccountId provider, const ReclaimRequest& m, Outbox& out);
  void applyFeederOutages(Outbox& out);
  void recordOutage(AccountId provider, const OutageRequest& m);  // into the market history, if recording
  BalanceFigures balanceOf(const ExchangeAccount& a) const;
  void replay(std::uint64_t afterSeq);
  // An engine input read from the journal: its account's bookkeeping, then the input itself.
  void replayInput(const JournalEntry& e, InputEvent&& in);
  void openMarket(const ExchangeConfig& config);
  void loadSnapshot(const SnapshotStart& from);
  void stopRecording(const std::string& why);

  bool fromSnapshot_ = false;
  std::uint64_t snapshotSeq_ = 0;
  std::uint64_t fingerprint_ = 0;  // configFingerprint of the configuration it runs with
  std::uint64_t replayed_ = 0;
  std::uint64_t epoch_ = 0;

  Limits limits_;
  CallModeConfig callMode_;
  Journal& journal_;
  std::unique_ptr<Matcher> engine_;
  // Finished orders, on disk in the journal's database (mutable: its queries read SQLite).
  mutable FinishedOrderArchive archive_;
  // Settled contracts, on disk in the same database (mutable: its queries read SQLite).
  mutable SettledContractArchive settledContracts_;
  std::vector<OrderId> finishedScratch_;
  AccountDirectory directory_;
  // Money: one double-entry ledger for cash, escrow, fees and forward margin.
  SettlementLedger ledger_;
  ContractSettlement settlement_{ledger_};
  ForwardDesk forwards_{ledger_, directory_};
  // Options on the index, on the same ledger; their premium and margin holds count like forwards'.
  OptionDesk options_{ledger_, directory_};
  std::shared_ptr<FeederReports> feederReports_;

  // The parts (see the header comment); declared in the order they depend on each other.
  JournalReplay replay_{journal_, directory_};
  MarketDataFeed marketData_{*engine_, limits_};
  ExchangeAccounts accounts_{directory_, ledger_, forwards_, *engine_, limits_};
  ExchangeSessions sessions_{accounts_};
  SettlementDesk desk_{
      *engine_,    directory_, ledger_,
      settlement_, forwards_,  accounts_,
      marketData_, replay_,    [this](const CapacityTransfer& t, Outbox* out) { return !applyInput(t, "", out); }};
  CallDesk calls_{*engine_,
                  accounts_,
                  marketData_,
                  replay_,
                  callMode_,
                  [this](InputEvent& leg, const std::string& clOrdId, Outbox* out) {
                    return applyLeg(leg, clOrdId, out); }};
  bool legging_ = false;  // applying a call's leg: its orders' own reports are not sent
  bool callDue_ = false;  // the clock stepped with calls at each hour: run one after the input

  std::vector<Event> events_;
  std::string scratch_;

  // Market-history recording (ExchangeConfig::recordPath); dropped, with one message, if the
  // file fails (disk full...), so a history problem never stops the exchange.
  std::unique_ptr<store::MarketHistoryStore> history_;
  std::unique_ptr<store::HistoryRecorder> recorder_;
  std::chrono::steady_clock::time_point lastHistoryFlush_{};
};

}  // namespace tessera::net
