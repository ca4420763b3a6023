// Inventory on its own: grants, offers and transfers per account and hour, checked against a
// tally kept beside it, and a copy that goes its own way.
#include "core/engine/Inventory.h"

#include <QtTest>

#include <map>

using namespace tessera;

class TestInventory : public QObject {
  Q_OBJECT
 private slots:
  void grantIsCappedByClusterSize() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 10, 20, 60, 100));
    QVERIFY(!inv.grant(2, 5, 15, 25, 50, 100));  // hours 15..19 would hold 110
    QCOMPARE(inv.granted(5, 15), 60);
    QCOMPARE(inv.held(2, 5, 22), 0);  // the refused grant changed nothing
    QVERIFY(inv.grant(2, 5, 20, 25, 50, 100));
    QCOMPARE(inv.granted(5, 20), 50);
  }

  void offerNeverExceedsHolding() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 0, 10, 8, 100));
    inv.offer(1, 5, 6, 7, 3);  // one hour in the middle is partly offered
    QVERIFY(inv.canOffer(1, 5, 0, 10, 5));
    QVERIFY(!inv.canOffer(1, 5, 0, 10, 6));  // ... and so holds too little for 6 more
    QVERIFY(inv.canOffer(1, 5, 7, 10, 8));
    inv.offer(1, 5, 6, 7, -3);
    QVERIFY(inv.canOffer(1, 5, 0, 10, 8));
    QVERIFY(!inv.canOffer(1, 5, 0, 11, 8));  // hour 10 is not held
    QVERIFY(!inv.canOffer(2, 5, 0, 1, 1));   // nothing held at all
    QVERIFY(!inv.canOffer(1, 5, 5, 15, 1));  // runs past what is held
    QVERIFY(inv.canOffer(1, 5, 20, 30, 0));  // nothing more asked for where nothing is held
    QVERIFY(inv.canOffer(1, 5, 4, 4, 1));    // an empty window asks for nothing
    inv.offer(1, 5, 2, 4, 6);
    QVERIFY(!inv.canOffer(1, 5, 0, 10, 3));
    QVERIFY(inv.canOffer(1, 5, 0, 10, 2));
    QCOMPARE(inv.offered(1, 5, 3), 6);
    QCOMPARE(inv.offered(1, 5, 4), 0);
  }

  void withdrawTakesBackWhatEachHourOffered() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 0, 10, 8, 100));
    inv.offer(1, 5, 2, 6, 5);
    const std::vector<GpuCount> back{5, 0, 3, 1};
    Inventory::withdraw(inv.seriesOf(1, 5), 2, 6, back.data());
    QCOMPARE(inv.offered(1, 5, 2), 0);
    QCOMPARE(inv.offered(1, 5, 3), 5);
    QCOMPARE(inv.offered(1, 5, 4), 2);
    QCOMPARE(inv.offered(1, 5, 5), 4);
    QCOMPARE(inv.offered(1, 5, 6), 0);
    QCOMPARE(inv.held(1, 5, 4), 8);  // holdings themselves do not move
  }

  void transferMovesOfferedHoursToTheBuyer() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 0, 10, 8, 100));
    inv.offer(1, 5, 0, 10, 8);
    inv.transfer(1, 2, 5, 3, 6, 5);
    for (Hour h = 0; h < 10; ++h) {
      const bool moved = h >= 3 && h < 6;
      QCOMPARE(inv.held(1, 5, h), moved ? 3 : 8);
      QCOMPARE(inv.offered(1, 5, h), moved ? 3 : 8);
      QCOMPARE(inv.held(2, 5, h), moved ? 5 : 0);
      QCOMPARE(inv.offered(2, 5, h), 0);
    }
    QCOMPARE(inv.granted(5, 4), 8);  // trades never change what exists
  }

  void holdingsGrowToEarlierAndLaterHours() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 100, 110, 4, 100));
    QVERIFY(inv.grant(1, 5, 10, 20, 3, 100));
    QVERIFY(inv.grant(1, 5, 500, 501, 2, 100));
    QCOMPARE(inv.held(1, 5, 15), 3);
    QCOMPARE(inv.held(1, 5, 105), 4);
    QCOMPARE(inv.held(1, 5, 500), 2);
    QCOMPARE(inv.held(1, 5, 50), 0);
  }

  // Many accounts and clusters in an interleaved order, checked against totals kept here.
  void transfersAgreeWithATally() {
    Inventory inv;
    std::map<std::pair<AccountId, ClusterId>, GpuCount> held;
    for (AccountId a = 1; a <= 4; ++a)
      for (ClusterId c = 1; c <= 3; ++c) {
        QVERIFY(inv.grant(a, c, 0, 4, 100, 1000));
        held[{a, c}] = 100;
      }
    unsigned x = 12345;
    for (int i = 0; i < 2000; ++i) {
      x = x * 1103515245 + 12345;
      const AccountId seller = 1 + (x >> 8) % 4;
      const AccountId buyer = 1 + (x >> 12) % 4;
      const ClusterId c = 1 + (x >> 16) % 3;
      const GpuCount q = 1 + (x >> 20) % 3;
      if (seller == buyer || !inv.canOffer(seller, c, 0, 4, q)) continue;
      inv.offer(seller, c, 0, 4, q);
      inv.transfer(seller, buyer, c, 0, 4, q);
      held[{seller, c}] -= q;
      held[{buyer, c}] += q;
    }
    for (const auto& [key, q] : held) QCOMPARE(inv.held(key.first, key.second, 2), q);
  }

  // A matcher keeps series references with resting orders: they must survive every insertion
  // after them, and moving GPU-hours through them must be the same as through the accounts.
  void seriesReferencesStayValid() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 0, 10, 8, 100'000));
    Inventory::Series& seller = inv.seriesOf(1, 5);
    Inventory::Series& buyer = inv.seriesOf(2, 5);
    for (AccountId a = 10; a < 5'000; ++a) QVERIFY(inv.grant(a, 5, 0, 1, 1, 100'000));  // rehashes
    QCOMPARE(&inv.seriesOf(1, 5), &seller);
    inv.offer(1, 5, 0, 10, 8);
    Inventory::transfer(seller, buyer, 2, 5, 3);
    inv.transfer(1, 2, 5, 5, 6, 1);
    QCOMPARE(inv.held(1, 5, 3), 5);
    QCOMPARE(inv.offered(1, 5, 3), 5);
    QCOMPARE(inv.held(2, 5, 3), 3);
    QCOMPARE(inv.held(2, 5, 5), 1);
    QCOMPARE(inv.held(1, 5, 5), 7);
    QCOMPARE(inv.held(2, 5, 6), 0);
    // An offer through a kept series is the account's offer.
    Inventory::offer(seller, 6, 10, -2);
    QCOMPARE(inv.offered(1, 5, 6), 6);
    QCOMPARE(inv.offered(1, 5, 5), 7);
  }

  void aCopyIsIndependent() {
    Inventory inv;
    QVERIFY(inv.grant(1, 5, 0, 10, 8, 100));
    inv.offer(1, 5, 0, 10, 2);
    Inventory copy = inv;
    copy.offer(1, 5, 0, 10, 3);
    copy.transfer(1, 2, 5, 0, 10, 1);
    QCOMPARE(inv.offered(1, 5, 0), 2);
    QCOMPARE(inv.held(2, 5, 0), 0);
    QCOMPARE(copy.offered(1, 5, 0), 4);
    QCOMPARE(copy.held(2, 5, 0), 1);
    inv.offer(1, 5, 0, 10, 1);
    QCOMPARE(inv.offered(1, 5, 0), 3);
    QCOMPARE(copy.offered(1, 5, 0), 4);
  }
};

QTEST_APPLESS_MAIN(TestInventory)
#include "test_inventory.moc"
