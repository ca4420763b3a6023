// The JSON forms of inputs and events: every input survives a round trip, and each kind of bad
// field gets a clear message rather than a default.
#include "RandomScript.h"

#include "core/engine/EventJson.h"

#include <QtTest>

using namespace tessera;
using nlohmann::json;

class EventJsonTest : public QObject {
  Q_OBJECT

  static std::string parseError(const std::string& text) {
    AccountDirectory accounts;
    auto r = inputEventFromJson(json::parse(text), accounts);
    if (auto* e = std::get_if<JsonError>(&r)) return e->message;
    return "";
  }

 private slots:
  void everyInputRoundTrips() {
    testing::RandomScriptOptions opt;
    opt.seed = 5;
    opt.events = 2000;
    AccountDirectory accounts;
    for (const char* n : {"p1", "p2", "t3", "t4", "t5", "t6"}) accounts.intern(n);
    for (const InputEvent& in : testing::randomScript(opt)) {
      const json j = toJson(in, accounts);
      auto back = inputEventFromJson(json::parse(j.dump()), accounts);
      QVERIFY2(std::holds_alternative<InputEvent>(back), j.dump().c_str());
      QVERIFY2(std::get<InputEvent>(back) == in, j.dump().c_str());
    }
  }

  // The exchange's reclaim input (random scripts never make one). Fails if toJson writes the
  // holder's name as the provider's.
  void aCapacityReclaimRoundTrips() {
    AccountDirectory accounts;
    const CapacityReclaim r{5, accounts.intern("lambda"), accounts.intern("lab"), 8, 30, 36};
    const json j = toJson(InputEvent{r}, accounts);
    QCOMPARE(
        j.dump(),
        std::string(
            R"({"contract":5,"end":36,"gpus":8,"holder":"lab","provider":"lambda","start":30,"type":"capacity_reclaim"})"));
    auto back = inputEventFromJson(j, accounts);
    QVERIFY(std::get<InputEvent>(back) == InputEvent{r});
  }

  void dollarPricesAreConvertedToMicros() {
    AccountDirectory accounts;
    auto r = inputEventFromJson(json::parse(R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,
        "gpus":8,"start":0,"end":1,"limit_usd":2.35})"),
                                accounts);
    QCOMPARE(std::get<OrderRequest>(std::get<InputEvent>(r)).limit, Price(2'350'000));
    // Six decimals are exact; a seventh is an error, never rounded away (docs/matching.md).
    // Fails if limit_usd rounds (mutation: drop the decimals check in priceField).
    r = inputEventFromJson(json::parse(R"({"type":"amend","id":1,"account":"a","limit_usd":99.999999})"), accounts);
    QCOMPARE(*std::get<AmendRequest>(std::get<InputEvent>(r)).limit, Price(99'999'999));
    QCOMPARE(parseError(R"({"type":"amend","id":1,"account":"a","limit_usd":2.0000005})"),
             std::string("field 'limit_usd' has more than six decimals (prices are whole micro-dollars)"));
  }

  void aClusterGivenByItsAcceleratorHasThatAcceleratorsMemory() {
    AccountDirectory accounts;
    auto memoryOf = [&](const char* line) {
      return std::get<Cluster>(std::get<InputEvent>(inputEventFromJson(json::parse(line), accounts))).gpuMemoryGb;
    };
    QCOMPARE(memoryOf(R"({"type":"cluster","id":1})"), 80);
    QCOMPARE(memoryOf(R"({"type":"cluster","id":1,"accelerator":"H200"})"), 141);
    QCOMPARE(memoryOf(R"({"type":"cluster","id":1,"accelerator":"MI300X"})"), 192);
    QCOMPARE(memoryOf(R"({"type":"cluster","id":1,"accelerator":"RTX4090"})"), 24);
    QCOMPARE(memoryOf(R"({"type":"cluster","id":1,"accelerator":"H200","gpu_memory_gb":96})"), 96);
  }

  void aRejectNamesTheOrderOnlyWhenItHasAnId() {
    AccountDirectory accounts;
    const AccountId lab = accounts.intern("lab");
    const json zero =
        toJson(Event{OrderRejected{0, lab, RejectReason::Malformed, "order id must be positive"}}, accounts);
    QVERIFY(!zero.contains("order"));
    QCOMPARE(zero.at("account").get<std::string>(), std::string("lab"));
    const json seven = toJson(Event{OrderRejected{7, lab, RejectReason::UnknownOrder, "no"}}, accounts);
    QCOMPARE(seven.at("order").get<int>(), 7);
  }

  void badFieldsAreNamed() {
    QCOMPARE(
        parseError(
            R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,"gpus":"8","start":0,"end":1,"limit":1})"),
        std::string("field 'gpus' must be an integer"));
    QCOMPARE(
        parseError(
            R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,"gpus":8,"start":0,"end":1,"limit":1,"colour":"red"})"),
        std::string("unknown field 'colour'"));
    QCOMPARE(
        parseError(R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,"gpus":8,"start":0,"limit":1})"),
        std::string("missing field 'end'"));
    QCOMPARE(
        parseError(
            R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,"gpus":8,"start":0,"end":1,"limit":1,"tif":"forever"})"),
        std::string("field 'tif' must be one of GTC, GTD, IOC, FOK, not 'forever'"));
    QCOMPARE(
        parseError(
            R"({"type":"order","id":1,"account":"a","side":"buy","cluster":1,"gpus":99999999999,"start":0,"end":1,"limit":1})"),
        std::string("field 'gpus' is out of range"));
    QCOMPARE(
        parseError(
            R"({"type":"order","id":-1,"account":"a","side":"buy","cluster":1,"gpus":8,"start":0,"end":1,"limit":1})"),
        std::string("field 'id' is out of range"));
    QCOMPARE(
        parseError(
            R"({"type":"order","id":1,"account":"a","side":"buy","constraints":{"accelerators":["TPU"]},"gpus":8,"start":0,"end":1,"limit":1})"),
        std::string("unknown accelerator 'TPU'"));
    QCOMPARE(parseError(R"({"type":"cluster","id":1,"fabric":"carrier pigeon"})"),
             std::string("field 'fabric' must be one of Ethernet, RoCE, InfiniBand, not 'carrier pigeon'"));
    QCOMPARE(parseError(R"([1,2])"), std::string("expected a JSON object"));
    QCOMPARE(parseError(R"({"type":"teleport"})"),
             std::string("unknown type 'teleport' (expected cluster, capacity, order, cancel, amend, clock, transfer "
                         "or capacity_reclaim)"));
  }

  void eventsCarryNamesNotIds() {
    AccountDirectory accounts;
    const AccountId lab = accounts.intern("lab");
    const json j = toJson(Event{OrderCancelled{7, lab, CancelReason::Expired, 10, 2}}, accounts);
    QCOMPARE(j.at("account").get<std::string>(), std::string("lab"));
    QCOMPARE(j.at("reason").get<std::string>(), std::string("expired"));
    QCOMPARE(j.at("leaves_gpu_hours").get<int>(), 2);
  }
};

QTEST_GUILESS_MAIN(EventJsonTest)
#include "test_event_json.moc"
