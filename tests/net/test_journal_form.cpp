// The journal's hand-written JSON must be exactly what EventJson writes and reads.
#include "core/engine/EventJson.h"
#include "core/net/JournalForm.h"

#include <QtTest>

#include <random>

using namespace tessera;
using namespace tessera::net;

class TestJournalForm : public QObject {
  Q_OBJECT
 private slots:
  void sameJsonAsEventJson() {
    AccountDirectory accounts;
    accounts.intern("alice");
    accounts.intern("we\"ird\\name");
    std::mt19937_64 rng(11);
    std::string out;
    for (int i = 0; i < 2000; ++i) {
      InputEvent in;
      if (i % 4 == 3) {
        in = CancelRequest{rng() % 1'000'000'000, static_cast<AccountId>(1 + rng() % 2)};
      } else {
        OrderRequest o;
        o.id = rng() % 1'000'000'000'000;
        o.account = static_cast<AccountId>(1 + rng() % 2);
        o.side = rng() % 2 ? Side::Buy : Side::Sell;
        if (rng() % 5) o.cluster = static_cast<ClusterId>(rng() % 100);
        o.gpus = static_cast<GpuCount>(rng() % 1000) - 10;
        o.start = static_cast<Hour>(rng() % 1'000'000) - 5;
        o.end = o.start + static_cast<Hour>(rng() % 100);
        if (rng() % 3 == 0) o.duration = static_cast<Hour>(rng() % 50);
        o.limit = static_cast<Price>(rng() % 100'000'000) - 100;
        o.fill = rng() % 2 ? FillStyle::AllOrNone : FillStyle::Divisible;
        o.tif = static_cast<TimeInForce>(rng() % 4);
        if (rng() % 4 == 0) o.expireAt = static_cast<Hour>(rng() % 1'000'000);
        o.postOnly = rng() % 3 == 0;
        o.stp = rng() % 2 ? SelfTradePrevention::CancelResting : SelfTradePrevention::CancelIncoming;
        if (rng() % 5 == 0) o.sellBack = rng() % 1000;
        if (rng() % 7 == 0) {
          ClusterConstraints k;
          k.regions = {"us-east"};
          k.minGpuMemoryGb = 80;
          o.constraints = k;
        }
        if (rng() % 7 == 0) o.costFactors = {ClusterCostFactor{1, 900'000}, ClusterCostFactor{2, 1'200'000}};
        in = o;
      }
      writeJournalForm(out, in, accounts);
      const nlohmann::json mine = nlohmann::json::parse(out);
      QCOMPARE(QString::fromStdString(mine.dump()), QString::fromStdString(toJson(in, accounts).dump()));
      AccountDirectory replayed = accounts;
      auto back = inputEventFromJson(mine, replayed);
      QVERIFY2(std::holds_alternative<InputEvent>(back),
               std::holds_alternative<JsonError>(back) ? std::get<JsonError>(back).message.c_str() : "");
      QVERIFY(std::get<InputEvent>(back) == in);
    }
  }
};

QTEST_GUILESS_MAIN(TestJournalForm)
#include "test_journal_form.moc"
