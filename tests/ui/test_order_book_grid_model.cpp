// The grid model matches the engine's book after a burst of simulated-market updates, both
// when the backend is driven directly and through the session's worker thread.
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/session/MarketFeed.h"
#include "ui/session/TradingSession.h"

#include "backtest/SimulatedMarket.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

namespace {

constexpr std::size_t kLevels = 64;
constexpr int kSteps = 300;

backtest::SimulatedMarketConfig config() {
  backtest::SimulatedMarketConfig c;
  c.seed = 11;
  c.clusterCount = 6;
  c.ticksPerHour = 4;
  c.activity = 3.0;
  return c;
}

// The simulated market, stopped after `steps` steps.
class BoundedFeed : public MarketFeed {
 public:
  BoundedFeed(AccountDirectory& a, int steps) : market_(config(), a), left_(steps) {}
  std::vector<InputEvent> step() override {
    if (left_ <= 0) return {};
    --left_;
    return market_.step();
  }
  std::string describe() const override { return "bounded simulated market"; }

 private:
  backtest::SimulatedMarket market_;
  int left_;
};

// Compares every cell of the grid model with the engine's depth, GPU by GPU.
QString mismatch(const OrderBookGridModel& grid, const Matcher& engine, ClusterId cluster, Hour first, int hours) {
  if (!grid.snapshot()) return "no snapshot";
  if (grid.firstHour() != first || grid.hours() != hours) return "wrong hour range";
  for (Hour h = first; h < first + hours; ++h) {
    const GridColumn* col = grid.column(h);
    for (Side side : {Side::Sell, Side::Buy}) {
      const auto levels = engine.depth(cluster, h, side, kLevels);
      const auto& segs = side == Side::Sell ? col->asks : col->bids;
      if (levels.size() != segs.size())
        return QString("hour %1 side %2: %3 levels in engine, %4 in grid")
            .arg(h)
            .arg(int(side))
            .arg(levels.size())
            .arg(segs.size());
      GpuCount at = 0;
      for (std::size_t i = 0; i < levels.size(); ++i) {
        if (segs[i].price != levels[i].price || segs[i].from != at || segs[i].to != at + levels[i].gpus ||
            segs[i].orders != levels[i].orders)
          return QString("hour %1 level %2 differs").arg(h).arg(i);
        at += levels[i].gpus;
      }
    }
  }
  return {};
}

}  // namespace

class TestOrderBookGridModel : public QObject {
  Q_OBJECT
 private slots:
  void matchesTheEngineAfterABurst() {
    AccountDirectory refAccounts;
    refAccounts.intern("trader");  // the backend interns its own account first
    backtest::SimulatedMarket sim(config(), refAccounts);
    auto ref = makeMatchingEngine();
    LocalMarketOptions o;
    o.maxLevels = kLevels;
    LocalMarketBackend backend(nullptr, "trader", o);
    BookSnapshotPtr latest;
    connect(&backend, &MarketBackend::bookChanged, this, [&](BookSnapshotPtr p) {
      latest = std::move(p);
      backend.bookSnapshotTaken();
    });

    std::vector<Event> out;
    std::size_t inputs = 0;
    Hour first = 0;
    for (int i = 0; i < 200; ++i) {
      auto batch = sim.step();
      inputs += batch.size();
      for (const InputEvent& in : batch) ref->apply(in, out);
      if (i == 0) {
        first = sim.now();
        backend.watch({3}, first, 24 * 8);
      }
      backend.inject(std::move(batch));
    }
    QVERIFY2(inputs > 2000, qPrintable(QString::number(inputs)));
    backend.publishNow();
    QVERIFY(latest);
    OrderBookGridView view;
    view.setSnapshot(latest);
    const QString diff = mismatch(view.model(), *ref, 3, first, 24 * 8);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QVERIFY(view.model().maxAskDepth() > 0);
    QVERIFY(view.model().maxBidDepth() > 0);
  }

  void matchesTheEngineThroughTheSession() {
    AccountDirectory refAccounts;
    refAccounts.intern("trader");
    backtest::SimulatedMarket sim(config(), refAccounts);
    auto ref = makeMatchingEngine();
    std::vector<Event> out;
    for (int i = 0; i < kSteps; ++i) {
      for (const InputEvent& in : sim.step()) ref->apply(in, out);
    }
    LocalMarketOptions o;
    o.tickMs = 1;
    o.feedStepsPerTick = 20;  // a burst: thousands of updates within a fraction of a second
    o.publishMs = 30;
    o.maxLevels = kLevels;
    TradingSession session(std::make_unique<LocalMarketBackend>(
        [](AccountDirectory& a) -> std::unique_ptr<MarketFeed> { return std::make_unique<BoundedFeed>(a, kSteps); },
        "trader", o));
    OrderBookGridView view;
    connect(&session, &TradingSession::bookChanged, &view, [&] { view.setSnapshot(session.book()); });
    session.start();
    QTRY_COMPARE_WITH_TIMEOUT(session.now(), sim.now(), 10000);
    const ClusterId cluster = 2;
    session.watch({cluster}, sim.now(), 24 * 7);
    QTRY_VERIFY_WITH_TIMEOUT(mismatch(view.model(), *ref, cluster, sim.now(), 24 * 7).isEmpty(), 10000);
    QVERIFY(view.model().maxAskDepth() > 0);
  }
};

QTEST_MAIN(TestOrderBookGridModel)
#include "test_order_book_grid_model.moc"
