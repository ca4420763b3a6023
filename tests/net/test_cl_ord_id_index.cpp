// ClOrdIdIndex must answer exactly as a plain map would, through every incremental growth and
// through erasures (tombstones, ids given back).
#include "core/net/ClOrdIdIndex.h"

#include <QtTest>

#include <random>
#include <unordered_map>

using namespace tessera;
using namespace tessera::net;

class TestClOrdIdIndex : public QObject {
  Q_OBJECT
 private slots:
  void behavesAsAMapThroughGrowth() {
    ClOrdIdIndex index;
    std::unordered_map<std::string, OrderId> reference;
    std::mt19937_64 rng(7);
    int growths = 0;
    bool wasGrowing = false;
    OrderId next = 1;
    for (int i = 0; i < 300'000; ++i) {
      const unsigned op = rng() % 10;
      // Mostly fresh ids, some repeats of recent ones (duplicates must be refused).
      const std::string key = op < 7 ? "o-" + std::to_string(i) : "o-" + std::to_string(rng() % (i + 1));
      if (op < 9) {
        const bool fresh = index.claim(key, next);
        const bool expectedFresh = !reference.count(key);
        QCOMPARE(fresh, expectedFresh);
        if (fresh) reference[key] = next++;
        QCOMPARE(index.find(key).value_or(0), reference.at(key));
      } else {
        index.erase(key);
        reference.erase(key);
      }
      if (index.growing() && !wasGrowing) ++growths;
      wasGrowing = index.growing();
      QCOMPARE(index.size(), reference.size());
      if (i % 997 == 0) {
        const std::string probe = "o-" + std::to_string(rng() % (i + 1));
        auto it = reference.find(probe);
        const auto found = index.find(probe);
        QCOMPARE(found.has_value(), it != reference.end());
        if (found) QCOMPARE(*found, it->second);
      }
    }
    QVERIFY2(growths >= 5, "the workload must cross several growth steps");
    for (const auto& [key, id] : reference) QCOMPARE(index.find(key).value_or(0), id);
    QVERIFY(!index.find("never-used"));
  }

  void erasedIdsCanBeClaimedAgain() {
    // A rejected order gives its id back at once, over and over: the table must neither fill up
    // with erased slots nor forget the ids that stay.
    ClOrdIdIndex index;
    for (OrderId i = 1; i <= 1000; ++i) QVERIFY(index.claim("keep-" + std::to_string(i), i));
    for (int round = 0; round < 200'000; ++round) {
      const std::string key = "tmp-" + std::to_string(round % 5000);
      QVERIFY(index.claim(key, 7));
      QVERIFY(!index.claim(key, 8));
      index.erase(key);
      QVERIFY(!index.find(key));
    }
    QCOMPARE(index.size(), std::size_t(1000));
    for (OrderId i = 1; i <= 1000; ++i) QCOMPARE(index.find("keep-" + std::to_string(i)).value_or(0), i);
  }

  void longIdsAndPages() {
    // Ids of the longest allowed length fill many arena pages; every one stays readable.
    ClOrdIdIndex index;
    for (OrderId i = 0; i < 20'000; ++i) {
      std::string key = std::to_string(i);
      key.resize(64, '#');
      QVERIFY(index.claim(key, i + 1));
    }
    for (OrderId i = 0; i < 20'000; ++i) {
      std::string key = std::to_string(i);
      key.resize(64, '#');
      QCOMPARE(index.find(key).value_or(0), i + 1);
    }
  }
};

QTEST_APPLESS_MAIN(TestClOrdIdIndex)
#include "test_cl_ord_id_index.moc"
