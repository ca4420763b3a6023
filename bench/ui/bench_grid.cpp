// Grid benchmarks: (1) redraw of a book of 20 clusters x 720 hours (snapshot, model, paint);
// (2) update-to-screen latency and frames per second while the embedded engine takes a
// random order flow at fixed rates (open loop) and flat out.
// Run offscreen: QT_QPA_PLATFORM=offscreen ./bench_grid [--quick]
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/BookSnapshotBuilder.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/session/TradingSession.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

using namespace tessera;
using namespace tessera::ui;

namespace {

constexpr int kClusters = 20;
constexpr Hour kHours = 720;
constexpr Hour kStart = 20'000 * kHoursPerDay;

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Stats {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  double pct(double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size())))];
  }
};

Cluster makeCluster(ClusterId id) {
  Cluster c;
  c.id = id;
  c.name = "bench-" + std::to_string(id);
  c.provider = "bench";
  c.region = "us-east";
  c.nodeCount = 64;  // 512 GPUs
  return c;
}

// A random order flow over 20 clusters x 720 hours: listings, bids and cancels.
class RandomFlow {
 public:
  explicit RandomFlow(AccountDirectory& a) : provider_(a.intern("bench-provider")), buyer_(a.intern("bench-buyer")) {}

  std::vector<InputEvent> setup() {
    std::vector<InputEvent> out;
    for (ClusterId c = 1; c <= kClusters; ++c) out.push_back(makeCluster(c));
    out.push_back(ClockAdvance{kStart});
    for (ClusterId c = 1; c <= kClusters; ++c) out.push_back(CapacityGrant{provider_, c, 512, kStart, kStart + kHours});
    return out;
  }
  InputEvent next() {
    const int kind = static_cast<int>(rng_() % 100);
    if (kind < 30 && !live_.empty()) {
      const std::size_t i = rng_() % live_.size();
      const OrderId id = live_[i].first;
      const AccountId acc = live_[i].second;
      live_[i] = live_.back();
      live_.pop_back();
      return CancelRequest{id, acc};
    }
    OrderRequest o;
    o.id = nextId_++;
    o.cluster = static_cast<ClusterId>(1 + rng_() % kClusters);
    o.start = kStart + static_cast<Hour>(rng_() % (kHours - 12));
    o.end = o.start + 1 + static_cast<Hour>(rng_() % 12);
    o.gpus = static_cast<GpuCount>(1 + rng_() % 8);
    const Price fair = 2'000'000 + 10'000 * static_cast<Price>(*o.cluster);
    if (kind < 70) {
      o.side = Side::Sell;
      o.account = provider_;
      o.limit = fair + static_cast<Price>(rng_() % 400'000);
    } else {
      o.side = Side::Buy;
      o.account = buyer_;
      o.limit = fair - 300'000 + static_cast<Price>(rng_() % 400'000);
    }
    live_.emplace_back(o.id, o.account);
    return o;
  }

 private:
  AccountId provider_;
  AccountId buyer_;
  std::mt19937_64 rng_{42};
  OrderId nextId_ = 1;
  std::vector<std::pair<OrderId, AccountId>> live_;
};

// Feeds RandomFlow at `rate` inputs per second of wall clock (0: as fast as the engine takes).
class RateFeed : public MarketFeed {
 public:
  RateFeed(AccountDirectory& a, double rate) : flow_(a), rate_(rate) {}
  std::vector<InputEvent> step() override {
    std::vector<InputEvent> out;
    if (!started_) {
      started_ = true;
      out = flow_.setup();
      clock_.start();
      for (int i = 0; i < 60'000; ++i) out.push_back(flow_.next());  // a standing book first
      return out;
    }
    const std::int64_t due = rate_ > 0 ? static_cast<std::int64_t>(clock_.nsecsElapsed() / 1e9 * rate_) - sent_ : 2000;
    for (std::int64_t i = 0; i < due; ++i) out.push_back(flow_.next());
    sent_ += static_cast<std::int64_t>(out.size());
    return out;
  }
  std::string describe() const override { return "bench flow"; }
  std::int64_t sent() const { return sent_; }

 private:
  RandomFlow flow_;
  double rate_;
  bool started_ = false;
  QElapsedTimer clock_;
  std::int64_t sent_ = 0;
};

void benchRedraw(int iterations) {
  AccountDirectory accounts;
  accounts.intern("trader");
  RandomFlow flow(accounts);
  auto engine = makeMatchingEngine();
  std::vector<Event> out;
  for (const InputEvent& in : flow.setup()) engine->apply(in, out);
  QElapsedTimer t;
  t.start();
  for (int i = 0; i < 200'000; ++i) {
    out.clear();
    engine->apply(flow.next(), out);
  }
  std::printf("book: 20 clusters x 720 h, 200000 random inputs applied in %.2f s\n", t.nsecsElapsed() / 1e9);

  std::vector<ClusterId> all;
  for (ClusterId c = 1; c <= kClusters; ++c) all.push_back(c);
  OrderBookGridView view;
  view.resize(1600, 900);
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto [label, clusters] :
       {std::pair<const char*, std::vector<ClusterId>>{"1 cluster ", {1}}, {"20 clusters", all}}) {
    Stats snap, model, paint, total;
    for (int i = 0; i < iterations + 5; ++i) {
      const std::int64_t a = nowNs();
      auto s = std::make_shared<BookSnapshot>(takeBookSnapshot(*engine, clusters, kStart, kHours, 64));
      const std::int64_t b = nowNs();
      view.setSnapshot(s);
      view.setVisibleHours(kStart, 720);
      const std::int64_t c = nowNs();
      QPainter p(&image);
      view.render(&p);
      p.end();
      const std::int64_t d = nowNs();
      if (i < 5) continue;  // warm-up
      snap.add((b - a) / 1e6);
      model.add((c - b) / 1e6);
      paint.add((d - c) / 1e6);
      total.add((d - a) / 1e6);
    }
    std::printf(
        "redraw %s x 720 h (1600x900, month view), ms p50/p99/p99.9: snapshot %.2f/%.2f/%.2f  model %.2f/%.2f/%.2f  "
        "paint %.2f/%.2f/%.2f  total %.2f/%.2f/%.2f -> %.0f redraws/s\n",
        label, snap.pct(50), snap.pct(99), snap.pct(99.9), model.pct(50), model.pct(99), model.pct(99.9), paint.pct(50),
        paint.pct(99), paint.pct(99.9), total.pct(50), total.pct(99), total.pct(99.9), 1000.0 / total.pct(50));
  }
}

void benchLive(double rate, double seconds, int watchedClusters) {
  LocalMarketOptions o;
  o.tickMs = 5;
  o.publishMs = 16;
  RateFeed* feed = nullptr;
  TradingSession session(std::make_unique<LocalMarketBackend>(
      [rate, &feed](AccountDirectory& a) -> std::unique_ptr<MarketFeed> {
        auto f = std::make_unique<RateFeed>(a, rate);
        feed = f.get();
        return f;
      },
      "trader", o));
  OrderBookGridView view;
  view.resize(1600, 900);
  view.show();
  Stats latency;
  std::int64_t frames = 0;
  bool measuring = false;
  std::int64_t sentAtStart = 0;
  QObject::connect(&session, &TradingSession::bookChanged, &view, [&] {
    view.setSnapshot(session.book());
    view.repaint();  // synchronous: the frame is on screen when this returns
    if (!measuring || !session.book()) return;
    ++frames;
    latency.add((nowNs() - session.book()->changedAtNs) / 1e6);
  });
  std::vector<ClusterId> ids;
  for (ClusterId c = 1; c <= static_cast<ClusterId>(watchedClusters); ++c) ids.push_back(c);
  session.watch(ids, kStart, static_cast<int>(kHours));
  view.setVisibleHours(kStart, 24 * 7);
  session.start();
  QElapsedTimer t;
  // Warm-up: the standing book, then one second of flow.
  QTimer::singleShot(1500, [&] {
    measuring = true;
    sentAtStart = feed ? feed->sent() : 0;
    t.start();
  });
  QTimer::singleShot(static_cast<int>(1500 + seconds * 1000), [&] { QApplication::quit(); });
  QApplication::exec();
  const double elapsed = t.nsecsElapsed() / 1e9;
  const double inputs = feed ? static_cast<double>(feed->sent() - sentAtStart) : 0;
  std::printf(
      "live %s, grid on %d cluster(s) x 720 h: %.0f updates/s applied, %.1f frames/s, update-to-screen ms "
      "p50/p99/p99.9 %.1f/%.1f/%.1f\n",
      rate > 0 ? qPrintable(QString("open loop %1/s").arg(rate)) : "flat out", watchedClusters, inputs / elapsed,
      frames / elapsed, latency.pct(50), latency.pct(99), latency.pct(99.9));
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  benchRedraw(quick ? 10 : 40);
  const double secs = quick ? 3 : 8;
  benchLive(10'000, secs, 1);
  benchLive(10'000, secs, 20);
  benchLive(1'000, secs, 1);
  benchLive(0, secs, 1);
  return 0;
}
