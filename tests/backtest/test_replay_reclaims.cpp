// Replays of reclaims of interruptible capacity (backtest/Replay::reclaim, the `reclaims` table
// of a history): the strategy loses exactly the reclaimed GPU-hours, is refunded exactly their
// price, hears of them through onContractReclaim, and the summary counts them.
//
// Mutations seen failing:
// - Replay::reclaim refunding `k.price * share.gpus` (the hours left out): the refund and cash
//   checks of strategyLosesExactlyTheReclaimedHoursAndIsRefunded.
// - Replay::reclaim not taking the strategy's share from position_: its held GPU-hours.
// - History.cpp's applyReports never calling replay.reclaim: nothing reclaimed at all.
// - Replay::reclaim ignoring the recorded contract: theRecordedContractIsPreferred.
// - MarketHistoryStore::reclaims() returning none: storedReclaimsReplayAsLoaded.
#include "HandMadeHistory.h"

#include "backtest/History.h"
#include "core/store/HistoryRecorder.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::backtest;
using tessera::testing::HandMadeHistory;

namespace {

constexpr std::int64_t kHour = 3'600'000'000LL;

// Buys interruptible GPUs once at the start and records what the replay tells it.
class InterruptibleBuyer final : public Strategy {
 public:
  explicit InterruptibleBuyer(OrderRequest o) : order_(std::move(o)) {}
  std::string name() const override { return "interruptible-buyer"; }
  void onStart(StrategyContext& ctx) override { ctx.place(order_); }
  void onContractReclaim(StrategyContext&, ContractId contract, const std::vector<LostHours>& runs) override {
    calls.emplace_back(contract, runs);
  }
  std::vector<std::pair<ContractId, std::vector<LostHours>>> calls;

 private:
  OrderRequest order_;
};

// Firm cluster 1 (4 nodes) and its interruptible book 2 (the same machines, 1 hour's notice), p1
// granted 16 GPUs in each;
// p1 lists 16 interruptible GPUs for hours [2, 12) at $1.50; the strategy's bid (placed at the
// first listing) takes 8, then "other" takes the other 8 (a later contract).
HandMadeHistory market() {
  HandMadeHistory m;
  Cluster firm;
  firm.id = 1;
  firm.name = "c1";
  firm.provider = "p1";
  firm.region = "us-east";
  firm.nodeCount = 4;
  Cluster book = firm;
  book.id = 2;
  book.name = "c1-int";
  book.interruptibleOf = 1;
  book.noticeHours = 1;
  const Hour s = HandMadeHistory::kStart;
  m.add(0, firm);
  m.add(0, CapacityGrant{m.account("p1"), 1, 16, s, s + 48});
  m.add(0, book);
  m.add(0, CapacityGrant{m.account("p1"), 2, 16, s, s + 48});
  m.order(100, "p1", Side::Sell, 2, 16, 2, 12, 1.50);
  std::get<OrderRequest>(m.h.inputs.back().event).interruptible = true;
  m.order(200, "other", Side::Buy, 2, 8, 2, 12, 1.55);
  std::get<OrderRequest>(m.h.inputs.back().event).interruptible = true;
  m.clock(kHour, 1);
  return m;
}

void reclaim(HandMadeHistory& m, std::int64_t at, Hour from, Hour to, GpuCount gpus, ContractId contract = 0) {
  const Hour s = HandMadeHistory::kStart;
  m.h.reclaims.push_back({static_cast<std::int64_t>(m.h.inputs.size()), HandMadeHistory::kT0 + at, m.account("p1"), 2,
                          s + from, s + to, gpus, contract});
}

OrderRequest strategyBid() {
  OrderRequest o = HandMadeHistory::buy(2, 8, 2, 12, 1.60);
  o.interruptible = true;
  return o;
}

struct Taken {
  AccountId holder;
  GpuCount gpus;
  Hour start, end;
  bool operator==(const Taken&) const = default;
};

}  // namespace

class TestReplayReclaims : public QObject {
  Q_OBJECT
 private slots:
  void strategyLosesExactlyTheReclaimedHoursAndIsRefunded() {
    HandMadeHistory m = market();
    reclaim(m, kHour + 10, 4, 7, 4);    // the lowest contract (the strategy's) gives 4 GPUs
    reclaim(m, kHour + 20, 8, 10, 12);  // the strategy's 8, then 4 of "other"'s
    m.clock(2 * kHour, 2);
    InterruptibleBuyer strategy(strategyBid());
    std::vector<Taken> taken;
    ReplayConfig cfg;
    cfg.onApply = [&](std::int64_t, const InputEvent& in, bool, const std::vector<Event>&) {
      if (const auto* r = std::get_if<CapacityReclaim>(&in)) taken.push_back({r->holder, r->gpus, r->start, r->end});
    };
    const BacktestResult r = runBacktest(m.h, strategy, cfg);
    QVERIFY2(r.setupError.empty(), r.setupError.c_str());
    const Hour s = HandMadeHistory::kStart;
    QCOMPARE(r.contracts.size(), std::size_t(1));
    const Contract& k = r.contracts[0];
    QCOMPARE(k.gpus, 8);
    QCOMPARE(k.price, Price(1'500'000));
    AccountDirectory names = m.h.accounts;
    const AccountId me = names.intern("strategy:interruptible-buyer"), other = names.intern("other");
    // The engine took exactly these hours from their holders.
    const std::vector<Taken> expected = {{me, 4, s + 4, s + 7}, {me, 8, s + 8, s + 10}, {other, 4, s + 8, s + 10}};
    QVERIFY(taken == expected);
    // 4 x 3 + 8 x 2 = 28 GPU-hours, refunded at the contract's $1.50.
    QCOMPARE(r.summary.reclaimedGpuHours, std::int64_t(28));
    QCOMPARE(r.summary.reclaimRefunds, Money(28 * 1'500'000));
    QCOMPARE(r.summary.spent, Money(80 * 1'500'000));
    QCOMPARE(r.summary.finalCash, Money(-80 * 1'500'000 + 28 * 1'500'000));
    QCOMPARE(r.summary.usefulGpuHours, std::int64_t(80 - 28));
    QCOMPARE(r.summary.effectiveCostPerUsefulGpuHour, Price(1'500'000));
    // Held from hour 2 on: 80 bought less the 28 taken.
    QCOMPARE(r.series.back().heldGpuHours, std::int64_t(52));
    // Told twice, each time with all of the contract's reclaimed hours so far.
    QCOMPARE(strategy.calls.size(), std::size_t(2));
    QCOMPARE(strategy.calls[0].first, k.id);
    QVERIFY(strategy.calls[0].second == (std::vector<LostHours>{{s + 4, s + 7, 4}}));
    QVERIFY(strategy.calls[1].second == (std::vector<LostHours>{{s + 4, s + 7, 4}, {s + 8, s + 10, 8}}));
  }

  // Hours already reclaimed are not reclaimed again: after [4, 7) took 4 of the strategy's 8 GPUs,
  // a reclaim of 8 over [5, 9) gets only 4 from the strategy's contract (what it still has in
  // every hour) and the other 4 from "other"'s.
  void aLaterReclaimTakesOnlyWhatIsLeft() {
    HandMadeHistory m = market();
    reclaim(m, kHour + 10, 4, 7, 4);
    reclaim(m, kHour + 20, 5, 9, 8);
    m.clock(2 * kHour, 2);
    InterruptibleBuyer strategy(strategyBid());
    const BacktestResult r = runBacktest(m.h, strategy, ReplayConfig{});
    QCOMPARE(r.summary.reclaimedGpuHours, std::int64_t(4 * 3 + 4 * 4));
    QCOMPARE(r.summary.reclaimRefunds, Money((4 * 3 + 4 * 4) * 1'500'000));
  }

  // A recorded reclaim names the exchange's contract: the replay takes it from that contract
  // when it made the same one ("other"'s, id 2, although the strategy's is lower).
  void theRecordedContractIsPreferred() {
    HandMadeHistory m = market();
    reclaim(m, kHour + 10, 4, 7, 4, 2);
    m.clock(2 * kHour, 2);
    InterruptibleBuyer strategy(strategyBid());
    const BacktestResult r = runBacktest(m.h, strategy, ReplayConfig{});
    QCOMPARE(r.summary.reclaimedGpuHours, std::int64_t(0));
    QVERIFY(strategy.calls.empty());
  }

  // Stored and streamed: the reclaims table round-trips and the streamed replay gives the loaded
  // one's result; a history without the table holds none.
  void storedReclaimsReplayAsLoaded() {
    HandMadeHistory m = market();
    reclaim(m, kHour + 10, 4, 7, 4);
    m.clock(2 * kHour, 2);
    QTemporaryDir dir;
    const std::string path = dir.filePath("h.sqlite").toStdString();
    {
      auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite);
      auto& st = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
      std::vector<store::RecordedInput> inputs = m.h.inputs;
      QVERIFY(!st.appendInputs(inputs));
      QVERIFY(!st.saveAccounts(m.h.accounts));
      QVERIFY(!st.appendReclaims(m.h.reclaims));
      const auto back = st.reclaims();
      QVERIFY(std::get<std::vector<store::RecordedReclaim>>(back) == m.h.reclaims);
    }
    InterruptibleBuyer loaded(strategyBid()), streamed(strategyBid());
    const BacktestResult a = runBacktest(m.h, loaded, ReplayConfig{});
    auto stream = HistoryStream::open(path, 2);
    QVERIFY(std::holds_alternative<HistoryStream>(stream));
    const auto b = runBacktest(std::get<HistoryStream>(stream), streamed, ReplayConfig{});
    QVERIFY(std::holds_alternative<BacktestResult>(b));
    QCOMPARE(std::get<BacktestResult>(b).summary.reclaimedGpuHours, std::int64_t(12));
    QCOMPARE(std::get<BacktestResult>(b).summary.reclaimRefunds, a.summary.reclaimRefunds);
    QCOMPARE(std::get<BacktestResult>(b).outputHash, a.outputHash);
  }
};

QTEST_GUILESS_MAIN(TestReplayReclaims)
#include "test_replay_reclaims.moc"
