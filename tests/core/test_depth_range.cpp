// The fast engine's depthRange (every hour of a window at once, one walk per price level) equals
// depth asked hour by hour, after every input of random scripts, on both sides, with level
// limits that cut and that do not. ExchangeCore publishes book cells through depthRange, so a
// difference here is a wrong market-data picture.
// Mutations seen to fail: taking a level for an hour without checking holdsAt (levels with no
// GPUs appear); not counting the orders of a level.
#include "RandomScript.h"
#include "core/engine/Matcher.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::testing;

class TestDepthRange : public QObject {
  Q_OBJECT
 private slots:
  void equalsDepthHourByHour() {
    std::vector<std::vector<BookLevel>> range;
    std::vector<Event> events;
    long compared = 0, nonEmpty = 0;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      RandomScriptOptions o;
      o.seed = seed;
      o.events = 300;
      auto engine = makeMatchingEngine();
      for (const InputEvent& in : randomScript(o)) {
        events.clear();
        engine->apply(in, events);
        const Hour now = engine->now();
        for (const Cluster& c : engine->clusters()) {
          for (Side side : {Side::Buy, Side::Sell}) {
            for (std::size_t levels : {std::size_t(1), std::size_t(3), std::size_t(50)}) {
              // From before the clock (those hours are empty) to past the scripts' horizon.
              engine->depthRange(c.id, now - 2, now + o.horizon + 4, side, levels, range);
              QCOMPARE(range.size(), static_cast<std::size_t>(o.horizon + 6));
              for (Hour h = now - 2; h < now + o.horizon + 4; ++h) {
                const auto one = engine->depth(c.id, h, side, levels);
                const auto& many = range[static_cast<std::size_t>(h - (now - 2))];
                if (one != many) {
                  QFAIL(qPrintable(QString("seed %1 cluster %2 hour %3 side %4: %5 levels by hour, %6 at once")
                                       .arg(seed)
                                       .arg(c.id)
                                       .arg(h - now)
                                       .arg(int(side))
                                       .arg(one.size())
                                       .arg(many.size())));
                }
                ++compared;
                nonEmpty += !one.empty();
              }
            }
          }
        }
      }
    }
    qInfo("%ld cells compared, %ld held something", compared, nonEmpty);
    QVERIFY2(nonEmpty > compared / 20, qPrintable(QString("%1 of %2 cells held anything").arg(nonEmpty).arg(compared)));
  }
};

QTEST_GUILESS_MAIN(TestDepthRange)
#include "test_depth_range.moc"
