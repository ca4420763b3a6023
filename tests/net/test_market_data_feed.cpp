// MarketDataFeed on its own: book cells published by difference equal the engine's book when
// every input touches the cells of the orders its events name, and a subscriber's resume is
// answered from the kept lines exactly when it can be.
// Mutations seen failing: touch() leaving out the last hour of an order's window
// (publishedCellsEqualTheBook); the resume walk taking only lines after from_seq, not from it
// (aResumeGivesTheMissedLinesOrASnapshot).
#include "ExchangeParts.h"
#include "RandomScript.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <sstream>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

namespace {

constexpr std::size_t kLevels = 20;  // what the feed publishes per cell

// Routes an input's events to the feed the way the exchange does.
void feed(ExchangeParts& x, const InputEvent& in, Outbox& out) {
  std::vector<Event> events;
  x.engine->apply(in, events);
  for (const Event& e : events) {
    auto touchOrder = [&](OrderId id) {
      if (auto v = x.engine->order(id)) x.marketData.touch(v->request, v->request.start, v->request.end);
    };
    if (const auto* a = std::get_if<OrderAccepted>(&e)) touchOrder(a->order);
    if (const auto* f = std::get_if<Fill>(&e)) {
      if (auto v = x.engine->order(f->order)) x.marketData.touch(v->request, f->start, f->end);
      if (f->side == Side::Buy) x.marketData.publishTrade(*f, &out);
    }
    if (const auto* c = std::get_if<OrderCancelled>(&e)) touchOrder(c->order);
    if (const auto* am = std::get_if<OrderAmended>(&e)) touchOrder(am->order);
    if (const auto* c = std::get_if<ClockAdvanced>(&e)) x.marketData.clockAdvanced(c->now, &out);
    if (const auto* c = std::get_if<ClusterAdded>(&e))
      if (const Cluster* cl = x.engine->cluster(c->cluster)) x.marketData.clusterAdded(*cl, &out);
  }
  x.marketData.publishCells(&out);
}

std::vector<nlohmann::json> lines(const std::string& bytes) {
  std::vector<nlohmann::json> out;
  std::istringstream in(bytes);
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

}  // namespace

class TestMarketDataFeed : public QObject {
  Q_OBJECT
 private slots:
  void publishedCellsEqualTheBook() {
    long cells = 0, held = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      ExchangeParts x;
      x.limits.mdHorizonHours = 36;  // shorter than the scripts' horizon: orders reach past it
      tessera::testing::RandomScriptOptions o;
      o.seed = seed;
      o.events = 300;
      std::uint64_t lastSeq = 0;
      for (const InputEvent& in : tessera::testing::randomScript(o)) {
        Outbox out;
        feed(x, in, out);
        // Every line is numbered one after the other.
        for (const nlohmann::json& j : lines(out.marketData)) QCOMPARE(j.at("seq").get<std::uint64_t>(), ++lastSeq);
        const Hour now = x.engine->now();
        for (const Cluster& c : x.engine->clusters()) {
          for (Side side : {Side::Buy, Side::Sell}) {
            for (Hour h = now; h < now + x.limits.mdHorizonHours; ++h) {
              const auto book = x.engine->depth(c.id, h, side, kLevels);
              const auto it = x.marketData.published().find(CellKey{c.id, h, side});
              const auto shown = it == x.marketData.published().end() ? std::vector<BookLevel>{} : it->second;
              if (book != shown)
                QFAIL(qPrintable(QString("seed %1 cluster %2 hour +%3 side %4: %5 levels in the book, %6 published")
                                     .arg(seed)
                                     .arg(c.id)
                                     .arg(h - now)
                                     .arg(int(side))
                                     .arg(book.size())
                                     .arg(shown.size())));
              ++cells;
              held += !book.empty();
            }
          }
        }
        // Nothing before the clock or beyond the horizon is shown.
        for (const auto& [key, levels] : x.marketData.published())
          QVERIFY(key.hour >= now && key.hour < now + x.limits.mdHorizonHours);
      }
    }
    QVERIFY2(held > cells / 50, qPrintable(QString("%1 of %2 cells held anything").arg(held).arg(cells)));
  }

  void aResumeGivesTheMissedLinesOrASnapshot() {
    ExchangeParts x;
    x.limits.mdReplayDepth = 5;
    Outbox out;
    for (Hour h = 100; h < 110; ++h) x.marketData.clockAdvanced(h, &out);  // md_clock lines 1 to 10
    QCOMPARE(x.marketData.seq(), std::uint64_t{10});
    auto answer = [&](std::optional<std::uint64_t> from) {
      std::string o;
      x.marketData.answerSubscribe(o, from, 77, [] { return std::string("[]"); });
      return lines(o);
    };
    // From 8: the resume line, then lines 8, 9 and 10.
    auto resumed = answer(8);
    QCOMPARE(resumed.size(), std::size_t{4});
    QCOMPARE(resumed[0].at("type").get<std::string>(), std::string("md_resume"));
    QCOMPARE(resumed[0].at("from_seq").get<int>(), 8);
    QCOMPARE(resumed[1].at("seq").get<int>(), 8);
    QCOMPARE(resumed[3].at("seq").get<int>(), 10);
    // From 11 (nothing missed): the resume line alone.
    QCOMPARE(answer(11).size(), std::size_t{1});
    // Line 5 is no longer kept (5 lines are: 6 to 10), and 12 is in the future: snapshots.
    for (std::uint64_t from : {std::uint64_t{5}, std::uint64_t{12}}) {
      const auto snap = answer(from);
      QCOMPARE(snap.size(), std::size_t{1});
      QCOMPARE(snap[0].at("type").get<std::string>(), std::string("md_snapshot"));
      QCOMPARE(snap[0].at("seq").get<int>(), 10);
      QCOMPARE(snap[0].at("epoch").get<int>(), 77);
    }
    QCOMPARE(answer(6).size(), std::size_t{6});
  }
};

QTEST_GUILESS_MAIN(TestMarketDataFeed)
#include "test_market_data_feed.moc"
