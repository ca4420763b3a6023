// The demo market's option dealer over a real socket: once the class has a next-day index it
// asks for the chain through ExchangeClient and quotes bids and asks around the reference values,
// so another member's chain shows a two-sided market; its quotes straddle the reference value.
#include "NetTestSupport.h"
#include "core/net/ExchangeServer.h"
#include "core/net/OptionDealer.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

class TestOptionDealer : public QObject {
  Q_OBJECT

 private slots:
  void quotesAroundTheReferenceValue() {
    OptionChainView chain;
    chain.accelerator = Accelerator::H100;
    const auto periods = indexoptions::listedPeriods(kNow);
    chain.periods.push_back(OptionChainPeriod{periods.front(), "2038-07", 3'000'000});
    for (Price strike : {2'700'000, 2'800'000, 2'900'000, 3'000'000, 3'100'000, 3'200'000, 3'300'000})
      chain.rows.push_back(OptionChainRow{
          {Accelerator::H100, indexoptions::OptionKind::Call, periods.front().kind, periods.front().start, strike},
          std::nullopt,
          std::nullopt,
          Price(3'300'000 - strike + 5'000),
          0.5,
          0.6});
    OptionDealerConfig c;
    const auto quotes = optionDealerQuotes(c, chain);
    QCOMPARE(quotes.size(), std::size_t(10));  // the 5 strikes nearest $3.00, a bid and an ask each
    for (const OptionNewOrder& q : quotes) {
      QVERIFY(q.series.strike >= 2'800'000 && q.series.strike <= 3'200'000);
      QCOMPARE(q.premium % 10'000, Price(0));
      const Price value = 3'300'000 - q.series.strike + 5'000;
      QVERIFY(q.side == Side::Buy ? q.premium < value : q.premium > value);
    }
  }

  void makesTheChainTwoSidedOverTheProtocol() {
    ExchangeServer server(marketConfig());
    server.start();
    LineClient carol(server.port()), provider(server.port());
    QVERIFY(carol.logon("carol") && provider.logon("provider"));
    OptionDealerConfig c;
    c.port = server.port();
    c.account = "alice";
    c.key = "alice-key";
    OptionDealer dealer(c);
    dealer.start();
    provider.send(order("ask", "sell", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
    carol.send(order("lift", "buy", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
    QVERIFY(carol.exec("lift"));
    server.inject(ClockAdvance{kNow + 1}, "");
    json twoSided;
    QVERIFY(eventually(
        [&] {
          carol.send(R"({"type":"option_chain","accelerator":"H100"})");
          auto chain = carol.until("option_chain");
          if (!chain) return false;
          for (const json& row : (*chain)["rows"])
            if (!row["bid"].is_null() && !row["ask"].is_null()) twoSided = row;
          return !twoSided.is_null();
        },
        std::chrono::milliseconds(10'000)));
    QVERIFY(twoSided["bid"].get<Price>() < twoSided["value"].get<Price>());
    QVERIFY(twoSided["ask"].get<Price>() > twoSided["value"].get<Price>());
    QVERIFY(!twoSided["iv"].is_null());  // the mid's implied volatility
    dealer.stop();
    server.stop();
  }
};

QTEST_GUILESS_MAIN(TestOptionDealer)
#include "test_option_dealer.moc"
