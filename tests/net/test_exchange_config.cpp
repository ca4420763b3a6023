// The server config file (loadConfigFile): settings are read over the defaults, and a file that
// names an unknown setting, gives one the wrong type or a value out of range is refused with a
// message naming the file and the setting, leaving the caller's config as it was.
#include "core/net/ExchangeConfig.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

using namespace tessera::net;

class TestExchangeConfig : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  std::string write(const std::string& json) {
    const std::string path = dir_.filePath("exchange.json").toStdString();
    std::ofstream(path) << json;
    return path;
  }

 private slots:
  void readsSettingsOverTheDefaults() {
    ExchangeConfig base;
    base.dbPath = "kept.db";
    const auto loaded = loadConfigFile(write(R"({"port": 7500, "fee_ppm": 250, "engine_prefault_mb": 512})"), base);
    const auto* cfg = std::get_if<ExchangeConfig>(&loaded);
    QVERIFY(cfg);
    QCOMPARE(cfg->port, std::uint16_t{7500});
    QCOMPARE(cfg->feePpm, 250);
    QCOMPARE(cfg->enginePrefaultMb, 512);
    QCOMPARE(cfg->dbPath, std::string("kept.db"));
  }

  void refusesBadSettingsWithTheirNames() {
    const struct {
      const char* json;
      const char* says;
    } cases[] = {
        {R"({"engine_prefault_mb": -1})", "engine_prefault_mb must be 0 to 1048576"},
        {R"({"engine_prefault_mb": 2000000})", "engine_prefault_mb must be 0 to 1048576"},
        {R"({"engine_prefault_mb": "lots"})", "field 'engine_prefault_mb' has the wrong type"},
        {R"({"fee_ppm": 1000001})", "fee_ppm must be 0 to 1000000"},
        {R"({"port": 70000})", "port out of range"},
        {R"({"prefault": 64})", "unknown setting 'prefault'"},
        {R"({"port": )", "exchange.json"},
    };
    for (const auto& c : cases) {
      const auto loaded = loadConfigFile(write(c.json), ExchangeConfig{});
      const auto* e = std::get_if<ConfigError>(&loaded);
      QVERIFY2(e, c.json);
      QVERIFY2(e->message.find(c.says) != std::string::npos, e->message.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestExchangeConfig)
#include "test_exchange_config.moc"
