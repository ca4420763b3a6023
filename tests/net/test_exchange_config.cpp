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

  void readsConnectionLimitsTlsAndLog() {
    const auto loaded = loadConfigFile(write(R"({"tls_cert": "s.crt", "tls_key": "s.key",
        "log_file": "x.log", "log_level": "debug",
        "limits": {"max_sessions": 10, "max_sessions_per_address": 2, "logon_timeout_seconds": 3,
                   "line_timeout_seconds": 4, "accept_backoff_ms": 50, "outbound_budget_bytes": 65536,
                   "shutdown_drain_seconds": 1}})"),
                                       ExchangeConfig{});
    const auto* cfg = std::get_if<ExchangeConfig>(&loaded);
    QVERIFY(cfg);
    QCOMPARE(cfg->tlsCertFile, std::string("s.crt"));
    QCOMPARE(cfg->tlsKeyFile, std::string("s.key"));
    QCOMPARE(cfg->logFile, std::string("x.log"));
    QCOMPARE(cfg->logLevel, std::string("debug"));
    QCOMPARE(cfg->limits.maxSessions, 10);
    QCOMPARE(cfg->limits.maxSessionsPerAddress, 2);
    QCOMPARE(cfg->limits.logonTimeoutSeconds, 3);
    QCOMPARE(cfg->limits.lineTimeoutSeconds, 4);
    QCOMPARE(cfg->limits.acceptBackoffMs, 50);
    QCOMPARE(cfg->limits.outboundBudgetBytes, std::size_t(65536));
    QCOMPARE(cfg->limits.shutdownDrainSeconds, 1);
    // The sample config in resources/ is valid and says what the defaults are.
    const auto sample = loadConfigFile(TESSERA_SOURCE_DIR "/resources/exchange/exchange.json", ExchangeConfig{});
    const auto* s = std::get_if<ExchangeConfig>(&sample);
    QVERIFY2(s, std::get_if<ConfigError>(&sample) ? std::get<ConfigError>(sample).message.c_str() : "");
    const Limits d;
    QCOMPARE(s->limits.maxSessions, d.maxSessions);
    QCOMPARE(s->limits.maxSessionsPerAddress, d.maxSessionsPerAddress);
    QCOMPARE(s->limits.logonTimeoutSeconds, d.logonTimeoutSeconds);
    QCOMPARE(s->limits.lineTimeoutSeconds, d.lineTimeoutSeconds);
    QCOMPARE(s->limits.acceptBackoffMs, d.acceptBackoffMs);
    QCOMPARE(s->limits.outboundBudgetBytes, d.outboundBudgetBytes);
    QCOMPARE(s->limits.shutdownDrainSeconds, d.shutdownDrainSeconds);
    QCOMPARE(s->limits.maxPendingOutboundBytes, d.maxPendingOutboundBytes);
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
        {R"({"limits": {"max_sessions": 0}})", "max_sessions must be at least 1"},
        {R"({"limits": {"logon_timeout_seconds": 0}})", "logon_timeout_seconds must be at least 1"},
        {R"({"limits": {"line_timeout_seconds": -1}})", "line_timeout_seconds must be at least 1"},
        {R"({"limits": {"outbound_budget_bytes": 33554432}})",
         "max_pending_outbound_bytes must be at least outbound_budget_bytes"},
        {R"({"limits": {"max_session": 10}})", "unknown setting 'max_session'"},
        {R"({"log_level": "loud"})", "log_level must be"},
        {R"({"tls_cert": "server.crt"})", "tls_cert and tls_key go together"},
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
