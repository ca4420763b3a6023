// ClOrdIdIndex must answer exactly as a plain map would, through every incremental growth, and
// keep the order ids it handed out pointers to.
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
        auto [slot, fresh] = index.claim(key);
        const bool expectedFresh = !reference.count(key);
        QCOMPARE(fresh, expectedFresh);
        if (fresh) {
          *slot = next;
          reference[key] = next++;
        } else {
          QCOMPARE(*slot, reference.at(key));
        }
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

  void slotsStayValidWhileEntriesMove() {
    ClOrdIdIndex index;
    std::vector<std::pair<OrderId*, OrderId>> claimed;
    for (int i = 0; i < 50'000; ++i) {
      auto [slot, fresh] = index.claim("k" + std::to_string(i));
      QVERIFY(fresh);
      *slot = static_cast<OrderId>(i + 1);
      claimed.emplace_back(slot, static_cast<OrderId>(i + 1));
    }
    for (const auto& [slot, id] : claimed) QCOMPARE(*slot, id);
    // A slot names the order the claim found: the second claim of an id is refused with it.
    auto [again, fresh] = index.claim("k123");
    QVERIFY(!fresh);
    QCOMPARE(*again, OrderId{124});
  }
};

QTEST_APPLESS_MAIN(TestClOrdIdIndex)
#include "test_cl_ord_id_index.moc"
