// PriceLevels on its own: levels best first, entries in time order, per-hour wanting entries per
// level and GPUs per side, dead entries dropped, empty levels taken out, the best-price bound, and hours the
// clock has passed forgotten.
#include "core/engine/PriceLevels.h"

#include <QtTest>

#include <random>
#include <set>

using namespace tessera;

namespace {
using Entry = PriceLevels::Entry;
using Resting = PriceLevels::Resting;
std::vector<std::int32_t> keys(const PriceLevels& p) {
  std::vector<std::int32_t> out;
  for (std::size_t r = 0; r < p.levelCount(); ++r) out.push_back(p.level(r).key);
  return out;
}
std::uint32_t wantingAt(const PriceLevels& p, const PriceLevels::Level& l, Hour h) {
  const auto i = static_cast<std::size_t>(h - p.base());
  return i < l.wanting.size() ? l.wanting[i] : 0u;
}
}  // namespace

class PriceLevelsTest : public QObject {
  Q_OBJECT

 private slots:
  void levelsAreBestFirstAndEntriesInTimeOrder() {
    PriceLevels p(100);
    p.add(30, Resting{1, 100, 110, 1}, 100, 110, 4);
    p.add(10, Resting{2, 105, 106, 2}, 105, 106, 2);
    p.add(20, Resting{3, 100, 102, 3}, 100, 102, 1);
    p.add(10, Resting{4, 100, 120, 4}, 100, 120, 5);
    QCOMPARE(keys(p), (std::vector<std::int32_t>{10, 20, 30}));
    const auto& best = p.level(0);
    QCOMPARE(best.fifo.size(), std::size_t{2});
    QCOMPARE(best.fifo[0].seq, std::uint64_t{2});
    QCOMPARE(best.fifo[1].seq, std::uint64_t{4});
    // Per hour, the level counts the entries that want GPUs there; the side's totals count GPUs.
    QCOMPARE(wantingAt(p, best, 105), 2u);
    QCOMPARE(wantingAt(p, best, 106), 1u);
    QCOMPARE(wantingAt(p, best, 120), 0u);
    QVERIFY(best.holdsAt(106, p.base()));
    QVERIFY(!best.holdsAt(120, p.base()));
    QVERIFY(!best.holdsAt(99, p.base()));
    QCOMPARE(p.total(100), std::int64_t{4 + 1 + 5});
    QCOMPARE(p.total(105), std::int64_t{4 + 2 + 5});
    QCOMPARE(p.total(99), std::int64_t{0});
    QVERIFY(p.anyIn(p.level(1), 101, 150));
    QVERIFY(!p.anyIn(p.level(1), 102, 150));
  }

  void perHourNeedsAreAddedHourByHour() {
    PriceLevels p(0);
    p.add(7, Resting{1, 2, 6, 1}, 2, std::vector<GpuCount>{3, 0, 1, 2});
    const auto& l = *p.find(7);
    QCOMPARE(wantingAt(p, l, 2), 1u);
    QCOMPARE(wantingAt(p, l, 3), 0u);  // an hour it wants nothing in is not counted
    QCOMPARE(wantingAt(p, l, 5), 1u);
    QCOMPARE(p.total(2), std::int64_t{3});
    QCOMPARE(p.total(3), std::int64_t{0});
    QVERIFY(p.anyIn(l, 3, 5));
    QVERIFY(!p.anyIn(l, 3, 4));
  }

  void countsFollowWhatEachEntryWants() {
    // A level counts an entry in an hour while it wants GPUs there: a partial take leaves the
    // count alone, the take of its last GPUs (or a cancel) lowers it, and an amend that gives an
    // emptied hour GPUs again raises it. The totals follow the GPUs.
    PriceLevels p(0);
    const auto index = p.add(3, Resting{1, 0, 4, 1}, 0, 4, 5);
    p.add(3, Resting{2, 2, 6, 2}, 2, 6, 1);
    PriceLevels::Level& l = p.at(index);
    QCOMPARE(wantingAt(p, l, 2), 2u);
    p.change(l, 2, 5, 3);
    QCOMPARE(wantingAt(p, l, 2), 2u);
    QCOMPARE(p.total(2), std::int64_t{3 + 1});
    p.change(l, 2, 3, 0);
    QCOMPARE(wantingAt(p, l, 2), 1u);
    QCOMPARE(p.total(2), std::int64_t{1});
    p.change(l, 2, 0, 2);
    QCOMPARE(wantingAt(p, l, 2), 2u);
    QCOMPARE(p.total(2), std::int64_t{3});
    p.change(l, 2, 6, 1, 0);
    QCOMPARE(wantingAt(p, l, 5), 0u);
    QCOMPARE(wantingAt(p, l, 3), 1u);
    QVERIFY(p.anyIn(l, 3, 4));
    QVERIFY(!p.anyIn(l, 4, 6));
    p.change(l, 0, 2, 5, 0);
    p.change(l, 3, 4, 5, 0);
    QVERIFY(p.anyIn(l, 2, 3));  // the amended hour still wants its 2
    QVERIFY(!p.anyIn(l, 0, 2));
    QVERIFY(!p.anyIn(l, 3, 4));
  }

  void aSideWithoutTotalsKeepsItsLevelsAndBounds() {
    // The buy side keeps no totals; everything else must work the same there.
    PriceLevels p(0, PriceLevels::Totals::NotKept);
    p.prefetchAdd(-30, 0, 10);
    p.add(-30, Resting{1, 0, 10, 1}, 0, 10, 4);
    p.add(-40, Resting{2, 4, 8, 2}, 4, std::vector<GpuCount>{1, 0, 2, 3});
    QCOMPARE(keys(p), (std::vector<std::int32_t>{-40, -30}));
    QCOMPARE(wantingAt(p, p.level(0), 6), 1u);
    QCOMPARE(wantingAt(p, p.level(0), 5), 0u);
    QCOMPARE(wantingAt(p, p.level(1), 9), 1u);
    QCOMPARE(p.bestBound(5), -40);
    QCOMPARE(p.bestBound(9), -30);
    p.change(p.level(1), 0, 10, 4, 0);
    QVERIFY(!p.anyIn(p.level(1), 0, 10));
    p.change(p.level(0), 6, 2, 0);
    QVERIFY(!p.anyIn(p.level(0), 5, 7));
    QVERIFY(p.anyIn(p.level(0), 5, 8));
    p.removeNewest(-40, 4, 8, 0);
    QCOMPARE(keys(p), (std::vector<std::int32_t>{-30}));
  }

  void aRunTakenOrAllTakenOutMovesCountsAndTotals() {
    // take() and takeOut() are change() over many hours at once, with per-hour quantities.
    PriceLevels p(0);
    std::vector<GpuCount> q{3, 0, 2, 5};
    p.add(10, Resting{1, 2, 6, 1, 7, q.data()}, 2, q);
    p.add(10, Resting{2, 0, 8, 2}, 0, 8, 1);
    PriceLevels::Level& l = p.level(0);
    QCOMPARE(wantingAt(p, l, 2), 2u);
    QCOMPARE(p.total(5), 6);
    p.take(l, 4, 6, q.data() + 2, 2);  // hours 4 and 5: 2 -> 0, 5 -> 3
    QCOMPARE(q, (std::vector<GpuCount>{3, 0, 0, 3}));
    QCOMPARE(wantingAt(p, l, 4), 1u);  // only the other entry still wants hour 4
    QCOMPARE(wantingAt(p, l, 5), 2u);
    QCOMPARE(p.total(4), 1);
    QCOMPARE(p.total(5), 4);
    p.takeOut(l, 2, 6, q.data());
    for (Hour h = 2; h < 6; ++h) {
      QCOMPARE(wantingAt(p, l, h), 1u);
      QCOMPARE(p.total(h), 1);
    }
    QCOMPARE(wantingAt(p, l, 0), 1u);  // hours outside the run are untouched
    QCOMPARE(p.total(7), 1);
    // Without totals, only the counts move.
    PriceLevels buys(0, PriceLevels::Totals::NotKept);
    std::vector<GpuCount> b{4, 4};
    buys.add(-10, Resting{3, 0, 2, 3, 8, b.data()}, 0, b);
    buys.take(buys.level(0), 0, 2, b.data(), 4);
    QVERIFY(!buys.anyIn(buys.level(0), 0, 2));
    QCOMPARE(b, (std::vector<GpuCount>{0, 0}));
  }

  void blockSummariesAnswerAsTheLevelsDo() {
    PriceLevels p(0);
    p.add(10, Resting{1, 20, 40, 1}, 20, 40, 3);
    p.add(20, Resting{2, 2000, 2010, 2}, 2000, 2010, 1);  // past the last block's start
    QVERIFY(p.anyInRank(0, 0, 24));
    QVERIFY(!p.anyInRank(0, 0, 20));
    QVERIFY(!p.anyInRank(0, 40, 200));
    QVERIFY(p.anyInRank(1, 1500, 2001));
    QVERIFY(!p.anyInRank(1, 1500, 2000));
    // Emptied by fills: a scan finds nothing, and the cleared blocks say so afterwards too.
    p.change(p.level(0), 20, 40, 3, 0);
    QVERIFY(!p.anyInRank(0, 16, 48));
    QVERIFY(!p.anyInRank(0, 0, 720));
    // A rest in a cleared block is seen again.
    p.add(10, Resting{3, 30, 31, 3}, 30, 31, 1);
    QVERIFY(p.anyInRank(0, 0, 720));
    QVERIFY(p.anyInRank(0, 30, 31));
  }

  void blockSummariesNeverHideGpus() {
    // Random rests, fills and clock moves on one side; every window asked of every level must
    // get the per-hour array's own answer.
    std::mt19937_64 rng(7);
    auto uniform = [&](Hour lo, Hour hi) { return std::uniform_int_distribution<Hour>(lo, hi)(rng); };
    PriceLevels p(0);
    Hour now = 0;
    std::uint64_t seq = 0;
    struct Rested {
      std::int32_t key;
      Hour from, to;
      GpuCount gpus;
    };
    std::vector<Rested> resting;
    for (int step = 0; step < 20000; ++step) {
      const auto action = uniform(0, 9);
      if (action < 5 || resting.empty()) {
        const Hour from = now + uniform(0, 1200);
        const Hour to = from + uniform(1, 168);
        const auto key = static_cast<std::int32_t>(uniform(1, 12));
        const auto gpus = static_cast<GpuCount>(uniform(1, 4));
        p.add(key, Resting{++seq, from, to, 1}, from, to, gpus);
        resting.push_back({key, from, to, gpus});
      } else if (action < 9) {
        // Take an order's GPUs off its level in the hours still to come (a fill or a cancel).
        const auto i = static_cast<std::size_t>(uniform(0, static_cast<Hour>(resting.size()) - 1));
        const Rested r = resting[i];
        resting.erase(resting.begin() + static_cast<std::ptrdiff_t>(i));
        if (r.to > now) p.change(*p.find(r.key), std::max(r.from, now), r.to, r.gpus, 0);
      } else {
        now += uniform(1, 100);
        p.dropHoursBefore(now);
      }
      const Hour from = now + uniform(0, 1300);
      const Hour to = from + uniform(1, 200);
      for (std::size_t rank = 0; rank < p.levelCount(); ++rank)
        QCOMPARE(p.anyInRank(rank, from, to), p.anyIn(p.level(rank), from, to));
    }
  }

  void retiringTheLastEntryRemovesTheLevel() {
    PriceLevels p(0);
    std::set<std::uint64_t> dead;
    auto isLive = [&](const Entry& e) { return !dead.count(e.seq); };
    const auto a = p.add(5, Resting{1, 0, 2, 1}, 0, 2, 3);
    const auto b = p.add(5, Resting{2, 0, 2, 2}, 0, 2, 1);
    QCOMPARE(a, b);
    for (Hour h = 0; h < 2; ++h) p.change(p.at(a), h, 3, 0);
    dead.insert(1);
    p.retire(a, isLive);
    QCOMPARE(p.levelCount(), std::size_t{1});
    QCOMPARE(p.find(5)->live, std::int64_t{1});
    for (Hour h = 0; h < 2; ++h) p.change(p.at(b), h, 1, 0);
    dead.insert(2);
    p.retire(b, isLive);
    QCOMPARE(p.levelCount(), std::size_t{0});
    QVERIFY(p.find(5) == nullptr);
    QCOMPARE(p.total(0), std::int64_t{0});
    // The level is reused, empty, for the next price.
    p.add(9, Resting{3, 1, 2, 3}, 1, 2, 4);
    QCOMPARE(p.find(9)->fifo.size(), std::size_t{1});
    QCOMPARE(wantingAt(p, *p.find(9), 0), 0u);
    QCOMPARE(wantingAt(p, *p.find(9), 1), 1u);
    QCOMPARE(p.total(1), std::int64_t{4});
  }

  void deadEntriesAreDroppedOnceMoreThanHalfAsManyAsTheLive() {
    PriceLevels p(0);
    std::set<std::uint64_t> dead;
    auto isLive = [&](const Entry& e) { return !dead.count(e.seq); };
    std::uint32_t index = 0;
    for (std::uint64_t s = 1; s <= 100; ++s) index = p.add(1, Resting{s, 0, 1, static_cast<std::uint32_t>(s)}, 0, 1, 1);
    const auto& l = p.at(index);
    for (std::uint64_t s = 1; s <= 60; ++s) {
      dead.insert(s);
      p.retire(index, isLive);
      const auto live = static_cast<std::size_t>(l.live);
      QVERIFY(l.fifo.size() - l.head <= live + live / 2 + 8);  // never more dead than that
    }
    QCOMPARE(l.live, std::int64_t{40});
    // What is left is still in time order and holds every live entry.
    std::vector<std::uint64_t> live;
    for (std::size_t k = l.head; k < l.fifo.size(); ++k)
      if (isLive(l.fifo[k])) live.push_back(l.fifo[k].seq);
    QCOMPARE(live.size(), std::size_t{40});
    QVERIFY(std::is_sorted(live.begin(), live.end()));
    QCOMPARE(live.front(), std::uint64_t{61});
  }

  void theFrontSkipsEntriesFilledThere() {
    PriceLevels p(0);
    std::set<std::uint64_t> dead;
    auto isLive = [&](const Entry& e) { return !dead.count(e.seq); };
    std::uint32_t index = 0;
    for (std::uint64_t s = 1; s <= 5; ++s) index = p.add(1, Resting{s, 0, 1, 0}, 0, 1, 1);
    dead.insert(1);
    dead.insert(2);
    p.skipDeadFront(p.at(index), isLive);
    QCOMPARE(p.at(index).fifo[p.at(index).head].seq, std::uint64_t{3});
  }

  void theNewestEntryCanBeTakenBackOut() {
    PriceLevels p(0);
    p.add(4, Resting{1, 0, 3, 1}, 0, 3, 2);
    p.add(4, Resting{2, 1, 3, 2}, 1, 3, 5);
    p.removeNewest(4, 1, 3, 5);
    QCOMPARE(p.find(4)->fifo.size(), std::size_t{1});
    QCOMPARE(p.total(2), std::int64_t{2});
    p.add(6, Resting{3, 0, 1, 3}, 0, 1, 1);
    p.removeNewest(6, 0, 1, 1);
    QVERIFY(p.find(6) == nullptr);
    QCOMPARE(keys(p), (std::vector<std::int32_t>{4}));
  }

  void theBestBoundIsLoweredByAddsAndOnlyEverTightened() {
    PriceLevels p(0);
    QCOMPARE(p.bestBound(0), PriceLevels::kNoKey);
    p.add(50, Resting{1, 0, 4, 1}, 0, 4, 1);
    p.add(40, Resting{2, 2, 3, 2}, 2, 3, 1);
    QCOMPARE(p.bestBound(1), 50);
    QCOMPARE(p.bestBound(2), 40);
    p.tighten(2, 50);  // a caller found the 40 gone
    QCOMPARE(p.bestBound(2), 50);
    p.add(45, Resting{3, 2, 3, 3}, 2, 3, 1);
    QCOMPARE(p.bestBound(2), 45);
  }

  void boundsSayWhereNoBetterKeyCanRest() {
    PriceLevels p(0);
    QVERIFY(!p.mayHoldAtOrBetter(100, 0, 10));  // nothing rests anywhere
    p.add(50, Resting{1, 2, 4, 1}, 2, 4, 1);
    QVERIFY(p.mayHoldAtOrBetter(50, 0, 10));
    QVERIFY(p.mayHoldAtOrBetter(50, 3, 4));
    QVERIFY(!p.mayHoldAtOrBetter(49, 0, 10));  // nothing better than 50 anywhere
    QVERIFY(!p.mayHoldAtOrBetter(50, 4, 10));  // nothing in hours 4..9
    // A caller found nothing at 50 or better in hours 0..2 (say the order there was filled):
    // the bounds learn it, and only for the hours it names.
    p.raiseBounds(0, 3, 51);
    QCOMPARE(p.bestBound(2), 51);
    QCOMPARE(p.bestBound(3), 50);
    QVERIFY(!p.mayHoldAtOrBetter(50, 0, 3));
    QVERIFY(p.mayHoldAtOrBetter(50, 0, 4));
    // Raising never lowers a bound, and adds still lower them.
    p.raiseBounds(2, 3, 40);
    QCOMPARE(p.bestBound(2), 51);
    p.add(45, Resting{2, 2, 3, 2}, 2, 3, 1);
    QCOMPARE(p.bestBound(2), 45);
    QVERIFY(p.mayHoldAtOrBetter(45, 0, 3));
  }

  void hoursBeforeTheClockAreForgotten() {
    PriceLevels p(0);
    p.add(3, Resting{1, 0, 200, 1}, 0, 200, 2);
    p.dropHoursBefore(10);  // too soon to be worth a shift
    QCOMPARE(p.base(), Hour{0});
    p.dropHoursBefore(100);
    QCOMPARE(p.base(), Hour{100});
    QCOMPARE(p.total(99), std::int64_t{0});
    QCOMPARE(p.total(100), std::int64_t{2});
    QCOMPARE(wantingAt(p, *p.find(3), 199), 1u);
    QVERIFY(!p.find(3)->holdsAt(200, p.base()));
    QCOMPARE(p.bestBound(150), 3);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, p.add(3, Resting{2, 50, 60, 2}, 50, 60, 1));
  }

  // A lower bound per hour on what n GPUs cost: the hour's bound times n where the side holds n
  // GPUs, -1 where it holds fewer or where its arrays do not reach.
  void lowerBoundCostsPerHour() {
    PriceLevels p(100);
    p.add(30, Resting{1, 102, 106, 1}, 102, 106, 4);
    p.add(20, Resting{2, 104, 105, 2}, 104, 105, 1);
    std::vector<Money> out(10, 99);
    p.lowerBoundCosts(98, 108, 3, out.data());
    QCOMPARE(out, (std::vector<Money>{-1, -1, -1, -1, 90, 90, 60, 90, -1, -1}));
    p.lowerBoundCosts(98, 108, 5, out.data());  // only hour 104 holds five
    QCOMPARE(out, (std::vector<Money>{-1, -1, -1, -1, -1, -1, 100, -1, -1, -1}));
    p.lowerBoundCosts(500, 510, 1, out.data());
    QCOMPARE(out, std::vector<Money>(10, -1));
  }

  // Entries keep their hours from the side's base in 32 bits: what a caller reads back is what
  // it rested, before and after the base moves, and after a jump of the clock far beyond 32
  // bits of hours an entry left from before meets no hour to come.
  void entriesReadBackWhatRestedAcrossShiftsOfTheBase() {
    const Hour t0 = Hour{1} << 36;  // hours since 1970, far past what 32 bits hold
    PriceLevels p(t0);
    const std::vector<GpuCount> own{7, 0, 5, 2};
    p.add(3, Resting{1, t0 + 10, t0 + 14, 8, 21, own.data(), 0}, t0 + 10, own);
    p.add(3, Resting{2, t0 + 5, t0 + 300, 9, 22, nullptr, 6}, t0 + 5, t0 + 300, 6);
    auto check = [&] {
      const auto& fifo = p.find(3)->fifo;
      const Resting a = p.read(fifo[0]);
      QCOMPARE(a.start, t0 + 10);
      QCOMPARE(a.end, t0 + 14);
      QCOMPARE(a.slot, 8u);
      QCOMPARE(a.account, AccountId{21});
      QCOMPARE(a.wantsAt(t0 + 12), 5);
      QCOMPARE(a.wantsAt(t0 + 13), 2);
      const Resting b = p.read(fifo[1]);
      QCOMPARE(b.start, t0 + 5);
      QCOMPARE(b.end, t0 + 300);
      QVERIFY(b.qty == nullptr);
      QCOMPARE(b.wantsAt(t0 + 299), 6);
      QVERIFY(p.meets(fifo[1], t0 + 299, t0 + 400));
      QVERIFY(!p.meets(fifo[1], t0 + 300, t0 + 400));
      QVERIFY(!p.meets(fifo[0], t0 + 14, t0 + 20));
      QVERIFY(p.meets(fifo[0], t0 + 13, t0 + 20));
    };
    check();
    p.dropHoursBefore(t0 + 12);  // the first entry's window has started: it still reads the same
    QCOMPARE(p.base(), t0);      // (too soon for a shift)
    p.dropHoursBefore(t0 + 100);
    QCOMPARE(p.base(), t0 + 100);
    check();
    const Hour far = t0 + (Hour{1} << 40);
    p.dropHoursBefore(far);
    QCOMPARE(p.base(), far);
    for (const Entry& e : p.find(3)->fifo) QVERIFY(!p.meets(e, far, far + 10'000));
  }
};

QTEST_GUILESS_MAIN(PriceLevelsTest)
#include "test_price_levels.moc"
