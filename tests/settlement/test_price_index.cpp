// The price index against a hand computation on a small trade list.
#include "core/settlement/PriceIndex.h"

#include <QtTest>

using namespace tessera;

class PriceIndexTest : public QObject {
  Q_OBJECT
 private slots:
  void pruningChangesNoValue() {
    // A backtest prunes every series on each clock tick but asks for a value only at its fills;
    // the values it gets are those of an index never pruned. Mutation seen failing: prune
    // dropping the prints of the last hour of the window too (tradedAt <= asOf - window + 1).
    PriceIndex pruned, whole;
    for (Hour h = 100; h < 200; ++h) {
      const TradePrint p{h, h % 3 ? Accelerator::H100 : Accelerator::A100, h + 5, 100 + (h % 7) * 10,
                         Price(2'000'000 + (h % 11) * 10'000)};
      pruned.record(p);
      whole.record(p);
      pruned.prune(h);
      if (h % 17 == 0) {
        for (Accelerator a : {Accelerator::H100, Accelerator::A100}) {
          const auto x = pruned.value(a, Tenor::NextDay, h), y = whole.value(a, Tenor::NextDay, h);
          QVERIFY(x && y);
          QCOMPARE(x->price, y->price);
          QCOMPARE(x->gpuHours, y->gpuHours);
        }
      }
    }
  }

  void volumeWeightedOverTheLastDay() {
    PriceIndex index;
    // Traded at hour 100, delivery within a day: counts for next_day.
    index.record({100, Accelerator::H100, 110, 800, 2'000'000});   // 800 GPU-h at $2.00
    index.record({105, Accelerator::H100, 106, 200, 2'500'000});   // 200 GPU-h at $2.50
    index.record({106, Accelerator::H100, 300, 1000, 1'000'000});  // lead 194 h: next_month, not next_day
    index.record({107, Accelerator::A100, 108, 1000, 1'000'000});  // another class
    // (800 * 2.00 + 200 * 2.50) / 1000 = $2.10
    auto v = index.value(Accelerator::H100, Tenor::NextDay, 110);
    QVERIFY(v);
    QCOMPARE(v->price, Price(2'100'000));
    QCOMPARE(v->gpuHours, std::int64_t(1000));
    QCOMPARE(v->trades, 2);
    QVERIFY(!v->stale);
    QCOMPARE(index.value(Accelerator::H100, Tenor::NextMonth, 110)->price, Price(1'000'000));
    QCOMPARE(index.value(Accelerator::A100, Tenor::NextDay, 110)->price, Price(1'000'000));
    QVERIFY(!index.value(Accelerator::H100, Tenor::NextWeek, 110));  // no trade ever
    // At hour 124 the trade of hour 100 has left the window (124 - 24 = 100 is excluded).
    QCOMPARE(index.value(Accelerator::H100, Tenor::NextDay, 124)->price, Price(2'500'000));
    // A day with no trades: the last value, marked stale.
    v = index.value(Accelerator::H100, Tenor::NextDay, 200);
    QVERIFY(v && v->stale);
    QCOMPARE(v->price, Price(2'500'000));
    QCOMPARE(v->gpuHours, std::int64_t(0));
  }

  void roundsToTheNearestMicroDollar() {
    PriceIndex index;
    index.record({0, Accelerator::H100, 1, 1, 1});
    index.record({0, Accelerator::H100, 1, 2, 2});
    QCOMPARE(index.value(Accelerator::H100, Tenor::NextDay, 0)->price, Price(2));  // 5/3 = 1.67 -> 2
  }

  void tenorBands() {
    QVERIFY(*tenorOf(0) == Tenor::NextDay);
    QVERIFY(*tenorOf(23) == Tenor::NextDay);
    QVERIFY(*tenorOf(24) == Tenor::NextWeek);
    QVERIFY(*tenorOf(167) == Tenor::NextWeek);
    QVERIFY(*tenorOf(168) == Tenor::NextMonth);
    QVERIFY(!tenorOf(720));
    QVERIFY(!tenorOf(-1));
  }
};

QTEST_GUILESS_MAIN(PriceIndexTest)
#include "test_price_index.moc"
