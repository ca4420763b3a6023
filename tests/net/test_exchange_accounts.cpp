// ExchangeAccounts on its own: the checks a new order and an amend pass before the engine, in
// their order, and bid reservations that follow the engine's view of each order.
// Mutations seen failing: syncReservation using the order's whole GPU-hours instead of
// leavesGpuHours (reservationIsWhatTheBidCanStillBuy); admit without the open-order limit
// (checksComeInTheirOrder); withdraw not giving the client id back
// (aRejectedOrderGivesItsClientIdBack).
#include "ExchangeParts.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

namespace {

constexpr Hour kNow = 1000;

struct Market : ExchangeParts {
  AccountId provider = 0;
  Market() { provider = openMarket(kNow, "provider", 32, 48); }
  // Admits, applies and records as the exchange does; returns the order id.
  OrderId place(ExchangeAccount& a, const std::string& clOrdId, const OrderRequest& order) {
    auto admitted = accounts.admit(a, NewOrder{clOrdId, order}, true);
    if (auto* r = std::get_if<Refusal>(&admitted)) throw std::runtime_error(r->code);
    const OrderRequest& o = std::get<OrderRequest>(admitted);
    follow(apply(o));
    return o.id;
  }
  void follow(const std::vector<Event>& events) {
    for (const Event& e : events) {
      if (const auto* ok = std::get_if<OrderAccepted>(&e)) accounts.opened(ok->order, accounts.order(ok->order));
      if (const auto* f = std::get_if<Fill>(&e)) {
        if (f->leavesGpuHours == 0) accounts.close(accounts.order(f->order));
        accounts.syncReservation(f->order, accounts.order(f->order));
      }
      if (const auto* c = std::get_if<OrderCancelled>(&e)) {
        if (c->leavesGpuHours == 0) accounts.close(accounts.order(c->order));
        accounts.syncReservation(c->order, accounts.order(c->order));
      }
    }
  }
};

}  // namespace

class TestExchangeAccounts : public QObject {
  Q_OBJECT
 private slots:
  void checksComeInTheirOrder() {
    Market m;
    m.limits.maxOpenOrdersPerAccount = 1;
    ExchangeAccount& buyer = m.accounts.named("buyer");
    buyer.configured = true;  // no cash at all
    const OrderRequest order = bid(0, 0, 1, 1, kNow, kNow + 2, 2 * kMicrosPerDollar);
    // No cash: refused for cash, and the client id is free again.
    auto first = m.accounts.admit(buyer, NewOrder{"a", order}, true);
    QCOMPARE(std::get<Refusal>(first).code, std::string("insufficient_cash"));
    QCOMPARE(std::get<Refusal>(first).reason, std::string("the bid needs $4.00, $0.00 is available"));
    QVERIFY(!buyer.byClOrdId.find("a"));
    // Without the cash check (a house feeder) it is admitted with the next id.
    auto second = m.accounts.admit(buyer, NewOrder{"a", order}, false);
    QVERIFY(std::holds_alternative<OrderRequest>(second));
    m.follow(m.apply(std::get<OrderRequest>(second)));
    QCOMPARE(buyer.openOrders, 1);
    // The same client id again: a duplicate, before any other check.
    QCOMPARE(std::get<Refusal>(m.accounts.admit(buyer, NewOrder{"a", order}, true)).code,
             std::string("duplicate_cl_ord_id"));
    // A fresh id: the open-order limit comes before cash.
    QCOMPARE(std::get<Refusal>(m.accounts.admit(buyer, NewOrder{"b", order}, true)).code,
             std::string("too_many_open_orders"));
  }

  void aRejectedOrderGivesItsClientIdBack() {
    Market m;
    ExchangeAccount& buyer = m.accounts.at(m.fund("buyer", 100 * kMicrosPerDollar));
    auto admitted = m.accounts.admit(buyer, NewOrder{"x", bid(0, 0, 1, 1, kNow, kNow + 1, kMicrosPerDollar)}, true);
    const OrderId id = std::get<OrderRequest>(admitted).id;
    QVERIFY(m.accounts.findOrder(id));
    m.accounts.withdraw(buyer, id, "x");  // as when the engine rejects it
    QVERIFY(!m.accounts.findOrder(id));
    QVERIFY(std::holds_alternative<OrderRequest>(
        m.accounts.admit(buyer, NewOrder{"x", bid(0, 0, 1, 1, kNow, kNow + 1, kMicrosPerDollar)}, true)));
  }

  void reservationIsWhatTheBidCanStillBuy() {
    Market m;
    ExchangeAccount& buyer = m.accounts.at(m.fund("buyer", 1000 * kMicrosPerDollar));
    ExchangeAccount& seller = m.accounts.at(m.provider);
    // A bid for 4 GPUs x 10 hours at $3: $120 held, $880 still spendable.
    const OrderId bidId = m.place(buyer, "bid", bid(0, 0, 1, 4, kNow, kNow + 10, 3 * kMicrosPerDollar));
    QCOMPARE(m.accounts.reserved(buyer.id), 120 * kMicrosPerDollar);
    QCOMPARE(m.accounts.spendable(buyer), 1000 * kMicrosPerDollar - 120 * kMicrosPerDollar);
    QVERIFY(m.accounts.dirty().count(buyer.id));
    // A sale of 1 GPU for all 10 hours fills 10 of its 40 GPU-hours: 30 x $3 stay held (the
    // contract's escrow took the rest from cash).
    m.place(seller, "ask", ask(0, 0, 1, 1, kNow, kNow + 10, 2 * kMicrosPerDollar));
    QCOMPARE(m.accounts.order(bidId).reserved, 90 * kMicrosPerDollar);
    QCOMPARE(m.accounts.reserved(buyer.id), 90 * kMicrosPerDollar);
    // Cancelled: nothing held, no open orders.
    m.follow(m.apply(CancelRequest{bidId, buyer.id}));
    QCOMPARE(m.accounts.reserved(buyer.id), Money{0});
    QCOMPARE(buyer.openOrders, 0);
  }

  void anAmendMayNotCommitMoreThanIsSpendable() {
    Market m;
    ExchangeAccount& buyer = m.accounts.at(m.fund("buyer", 100 * kMicrosPerDollar));
    const OrderId bidId = m.place(buyer, "bid", bid(0, 0, 1, 2, kNow, kNow + 10, 4 * kMicrosPerDollar));
    QCOMPARE(m.accounts.reserved(buyer.id), 80 * kMicrosPerDollar);
    const auto view = *m.engine->order(bidId);
    const OrderRecord& info = m.accounts.order(bidId);
    // $5 x 20 GPU-hours = $100: exactly the cash.
    QVERIFY(!m.accounts.checkAmend(buyer, info, view, AmendOrder{{}, 5 * kMicrosPerDollar, std::nullopt}));
    // 3 GPUs at $4: $120 > $100.
    const auto refused = m.accounts.checkAmend(buyer, info, view, AmendOrder{{}, std::nullopt, 3});
    QVERIFY(refused);
    QCOMPARE(refused->code, std::string("insufficient_cash"));
    QCOMPARE(refused->reason, std::string("the amended bid needs $120.00, $100.00 is available"));
  }

  void anotherAccountsOrderIsUnknown() {
    Market m;
    ExchangeAccount& a = m.accounts.at(m.fund("a", 100 * kMicrosPerDollar));
    ExchangeAccount& b = m.accounts.at(m.fund("b", 100 * kMicrosPerDollar));
    const OrderId id = m.place(a, "mine", bid(0, 0, 1, 1, kNow, kNow + 1, kMicrosPerDollar));
    QCOMPARE(m.accounts.resolve(a, OrderRef{id, std::nullopt}), std::optional<OrderId>(id));
    QCOMPARE(m.accounts.resolve(a, OrderRef{std::nullopt, "mine"}), std::optional<OrderId>(id));
    QVERIFY(!m.accounts.resolve(b, OrderRef{id, std::nullopt}));
    QVERIFY(!m.accounts.resolve(b, OrderRef{std::nullopt, "mine"}));
  }
};

QTEST_GUILESS_MAIN(TestExchangeAccounts)
#include "test_exchange_accounts.moc"
