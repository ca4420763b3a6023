// Index forwards through the exchange: forward orders over the protocol, margin counted against
// bids (and bids against margin), replies to the parties only, marks and settlement against the
// published next-day index, and a restart that replays the forward journal to the same state.
#include "LedgerAudit.h"
#include "NetTestSupport.h"
#include "core/net/ExchangeCore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

const Hour kWeek = nextWeekStart(kNow);

std::string forward(const std::string& cl, const std::string& side, std::int64_t gpuHours, Price price,
                    Hour week = kWeek) {
  return json{{"type", "forward_order"}, {"cl_ord_id", cl},       {"side", side},  {"accelerator", "H100"},
              {"week_start", week},      {"gpu_hours", gpuHours}, {"price", price}}
      .dump();
}

class Exchange {
 public:
  explicit Exchange(std::string path) : path_(std::move(path)) { restart(); }
  void restart() {
    core_.reset();
    journal_.reset();
    auto r = Journal::open(path_, false);
    if (auto* e = std::get_if<std::string>(&r)) qFatal("%s", e->c_str());
    journal_ = std::move(std::get<std::unique_ptr<Journal>>(r));
    core_ = std::make_unique<ExchangeCore>(marketConfig(), *journal_);
    sessions_.clear();
  }
  std::vector<json> send(const std::string& account, const std::string& line) {
    if (!sessions_.count(account)) {
      const SessionId s = next_++;
      core_->sessionOpened(s);
      sessions_[account] = s;
      send(account, "{\"type\":\"logon\",\"account\":\"" + account + "\",\"key\":\"" + account + "-key\"}");
    }
    const SessionId s = sessions_.at(account);
    Outbox out;
    auto parsed = parseClientMessage(line);
    if (auto* m = std::get_if<ClientMessage>(&parsed)) {
      checkLogonKey(marketConfig(), *m);
      core_->handle(s, *m, out);
    } else
      core_->handleParseError(s, std::get<ParseError>(parsed), out);
    return finish(out, s);
  }
  std::vector<json> clock(Hour h) {
    Outbox out;
    core_->inject(ClockAdvance{h}, "", out);
    return finish(out, 0);
  }
  std::vector<json> take(const std::string& account) {
    if (!sessions_.count(account)) qWarning("take: %s has no session", account.c_str());
    auto lines = std::move(pending_[sessions_.at(account)]);
    pending_[sessions_.at(account)].clear();
    return lines;
  }
  static json find(const std::vector<json>& lines, const std::string& type) {
    for (const json& j : lines)
      if (j["type"] == type) return j;
    // Say what did arrive: a missing reply is otherwise a bare type error on the next line.
    for (const json& j : lines) qWarning("no %s among: %s", type.c_str(), j.dump().c_str());
    return json();
  }
  ExchangeCore& core() { return *core_; }
  AccountId id(const std::string& a) { return *core_->accounts().find(a); }

 private:
  std::vector<json> finish(Outbox& out, SessionId s) {
    core_->finishBatch(out);
    journal_->commit();
    for (auto& [id, bytes] : out.toSession) {
      std::size_t at = 0;
      while (at < bytes.size()) {
        const auto nl = bytes.find('\n', at);
        pending_[id].push_back(json::parse(bytes.substr(at, nl - at)));
        at = nl + 1;
      }
    }
    if (!s) return {};
    auto lines = std::move(pending_[s]);
    pending_[s].clear();
    return lines;
  }
  std::string path_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ExchangeCore> core_;
  std::map<std::string, SessionId> sessions_;
  std::map<SessionId, std::vector<json>> pending_;
  SessionId next_ = 1;
};

}  // namespace

class TestExchangeForwards : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void forwardsTradeThroughTheProtocolAndSurviveARestart() {
    Exchange x((dir_.path() + "/fwd.db").toStdString());
    x.send("bob", "{\"type\":\"heartbeat\"}");  // bob is logged on and hears nothing of it
    // Alice ($10,000) shorts 10,000 GPU-hours at $2.00: $3,000 margin held.
    auto r = x.send("alice", forward("s1", "sell", 10'000, 2'000'000));
    QCOMPARE(Exchange::find(r, "balance")["available"].get<Money>(), Money(7'000'000'000));
    QCOMPARE(Exchange::find(r, "forward_accepted")["margin_held"].get<Money>(), Money(3'000'000'000));
    // The held margin is not there for bids: a $7,500 bid no longer fits.
    r = x.send("alice", order("bid", "buy", 1, 8, kNow + 1, kNow + 48, 20 * kMicrosPerDollar));
    QCOMPARE(Exchange::find(r, "exec")["code"].get<std::string>(), std::string("insufficient_cash"));
    // Carol goes long 4,000 at $2.10 and trades at Alice's $2.00.
    r = x.send("carol", forward("b1", "buy", 4'000, 2'100'000));
    const json fill = Exchange::find(r, "forward_fill");
    QCOMPARE(fill["price"].get<Price>(), Price(2'000'000));
    QCOMPARE(Exchange::find(x.take("alice"), "forward_fill")["leaves_gpu_hours"].get<int>(), 6'000);
    QVERIFY(Exchange::find(x.take("bob"), "forward_fill").is_null());  // bob is no party
    QCOMPARE(x.core().ledger().balance({x.id("carol"), Book::Margin}), Money(1'200'000'000));
    // Bob cannot cancel Alice's order, Alice can query hers.
    r = x.send("bob", "{\"type\":\"forward_cancel\",\"order_id\":1}");
    QCOMPARE(Exchange::find(r, "error")["code"].get<std::string>(), std::string("unknown_order"));
    r = x.send("alice", "{\"type\":\"forward_orders\"}");
    QCOMPARE(Exchange::find(r, "forward_orders")["orders"].size(), std::size_t(1));
    r = x.send("alice",
               "{\"type\":\"forward_book\",\"accelerator\":\"H100\",\"week_start\":" + std::to_string(kWeek) + "}");
    QCOMPARE(Exchange::find(r, "forward_book")["asks"][0][1].get<int>(), 6'000);
    // Bad input is refused with a reason and changes nothing.
    r = x.send("alice", forward("bad", "sell", 10, 2'000'000, kWeek + 3));
    QCOMPARE(Exchange::find(r, "forward_rejected")["code"].get<std::string>(), std::string("week_not_tradable"));

    const Money aliceCash = x.core().cash(x.id("alice"));
    const Money carolMargin = x.core().ledger().balance({x.id("carol"), Book::Margin});
    x.restart();
    QCOMPARE(x.core().cash(x.id("alice")), aliceCash);
    QCOMPARE(x.core().ledger().balance({x.id("carol"), Book::Margin}), carolMargin);
    r = x.send("alice", "{\"type\":\"forward_positions\"}");
    QCOMPARE(Exchange::find(r, "forward_positions")["positions"].size(), std::size_t(1));
    r = x.send("alice", "{\"type\":\"forward_orders\"}");
    QCOMPARE(Exchange::find(r, "forward_orders")["margin_held"].get<Money>(), Money(1'800'000'000));
    // The replayed ledger agrees with its replayed postings (mutation that fails it:
    // `balances_[to] += amount + 1` in SettlementLedger::post).
    const auto audit = tessera::testing::auditLedger(x.core().ledger());
    QVERIFY2(audit.clean(), audit.report().c_str());
  }

  void weeksSettleAgainstThePublishedIndex() {
    Exchange x((dir_.path() + "/settle.db").toStdString());
    x.send("alice", forward("s", "sell", 1'000, 2'000'000));
    x.send("carol", forward("b", "buy", 1'000, 2'000'000));
    // Physical trades set the H100 next-day index at $3.00 (a trade one hour before delivery).
    x.send("provider", order("ask", "sell", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
    x.send("carol", order("lift", "buy", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
    x.clock(kNow + 1);
    QCOMPARE(x.core().indexNow().at({Accelerator::H100, Tenor::NextDay}).value.price, Price(3'000'000));
    const Money carolBefore = x.core().cash(x.id("carol"));
    // The index stays at $3.00 (stale, carried) through the week: the long gains $1 x 1,000.
    x.clock(kWeek + kHoursPerWeek);
    const auto aliceLines = x.take("alice");
    QVERIFY(!Exchange::find(aliceLines, "forward_notice").is_null());
    QCOMPARE(x.core().ledger().balance({x.id("carol"), Book::Margin}), Money(0));
    QCOMPARE(x.core().cash(x.id("carol")) - carolBefore, Money(1'000'000'000 + 300'000'000));  // gain + margin back
    // All the margin that went in came out at the settlement.
    const auto audit = tessera::testing::auditLedger(x.core().ledger());
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) > 0);
    QVERIFY(audit.outOfBook(Book::Margin) == audit.inBook(Book::Margin));
  }
};

QTEST_GUILESS_MAIN(TestExchangeForwards)
#include "test_exchange_forwards.moc"
