#include "ui/shell/TerminalOptions.h"

#include "ui/session/LocalMarketBackend.h"
#include "ui/shell/DisplayFormat.h"

#include "ui/session/SimulatedMarketFeed.h"
#include "ui/session/ExchangeBackend.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "core/net/OnFill.h"
#include "ui/session/PaperAccount.h"

#include <QCommandLineParser>
#include <QSettings>
#include <QStandardPaths>

#include <cmath>

namespace tessera::ui {

std::variant<TerminalOptions, QString> parseTerminalOptions(const QStringList& arguments) {
  QCommandLineParser p;
  p.setApplicationDescription(QStringLiteral("Tessera: trading terminal for GPU compute"));
  p.addHelpOption();
  p.addVersionOption();
  const QCommandLineOption account("account", "Trade as this account (default: trader).", "name", "trader");
  const QCommandLineOption seed("seed", "Seed of the embedded simulated market (default: 7).", "n", "7");
  const QCommandLineOption speed("speed", "Simulated hours per wall-clock minute (default: 6).", "hours", "6");
  const QCommandLineOption activity("activity", "Scale of the simulated market's order flow (default: 1).", "x", "1");
  const QCommandLineOption connect("connect", "Trade on a remote exchange instead of the embedded one.", "host:port");
  const QCommandLineOption ca(
      "ca", "With --connect: speak TLS and verify the exchange's certificate against this CA (PEM).", "file");
  const QCommandLineOption tls(
      "tls", "With --connect: speak TLS, verifying the exchange's certificate against the system's roots.");
  const QCommandLineOption key("key", "API key of --account on the remote exchange (default: the account name).",
                               "key");
  const QCommandLineOption shot("screenshot", "Save a PNG of the main window after a few seconds, then quit.",
                                "file.png");
  const QCommandLineOption shotDocks("screenshot-docks", "With --screenshot: also save each dock into this folder.",
                                     "dir");
  const QCommandLineOption shotAfter("screenshot-after", "Seconds to wait before the screenshot (default: 4).", "s",
                                     "4");
  const QCommandLineOption reset("reset-layout", "Ignore the saved window layout.");
  const QCommandLineOption tour("screenshot-tour",
                                "With --screenshot: place a few real orders first (a bought window, a resting bid).");
  const QCommandLineOption record("record",
                                  "Record the embedded market's history (every input and its market events) to this "
                                  "file, for tessera-backtest.",
                                  "history.db");
  const QCommandLineOption inProcess("in-process",
                                     "Run the simulated market on the matching engine directly, without the embedded "
                                     "exchange server and client.");
  const QCommandLineOption paper("paper-account",
                                 "Journal file of the embedded exchange: the paper account's orders, contracts, "
                                 "forwards, cash and clock, kept across restarts (default: paper/exchange.db in the "
                                 "user's data folder).",
                                 "file.db");
  const QCommandLineOption fresh("fresh", "Start a new paper account without asking: the current one is deleted.");
  const QCommandLineOption marketMode(
      "market-mode",
      "How the embedded exchange trades: 'calls' (every cluster clears in a call every 30 seconds; the grid shows "
      "the next call's indicative prices and a countdown) or 'continuous'. Remembered for the next starts, like the "
      "Settings menu's choice (default: continuous).",
      "calls|continuous");
  p.addOptions({account, seed, speed, activity, connect, ca, tls, key, shot, shotDocks, shotAfter, reset, inProcess,
                tour, record, paper, fresh, marketMode});
  if (!p.parse(arguments)) return p.errorText();
  if (p.isSet("help")) return p.helpText();
  if (p.isSet("version")) return QStringLiteral("tessera ") + QStringLiteral(TESSERA_VERSION);

  TerminalOptions o;
  o.account = p.value(account).trimmed();
  if (o.account.isEmpty()) return QStringLiteral("--account needs a name");
  bool ok = false;
  o.seed = p.value(seed).toULongLong(&ok);
  if (!ok) return QStringLiteral("--seed must be a whole number, not '%1'").arg(p.value(seed));
  o.simulatedHoursPerMinute = p.value(speed).toDouble(&ok);
  if (!ok || o.simulatedHoursPerMinute <= 0 || o.simulatedHoursPerMinute > 600)
    return QStringLiteral("--speed must be a number of hours per minute in (0, 600]");
  o.activity = p.value(activity).toDouble(&ok);
  if (!ok || o.activity <= 0 || o.activity > 50) return QStringLiteral("--activity must be in (0, 50]");
  o.connect = p.value(connect);
  o.record = p.value(record);
  o.ca = p.value(ca);
  o.tls = p.isSet(tls) || !o.ca.isEmpty();
  o.key = p.isSet(key) ? p.value(key) : o.account;
  if (!o.connect.isEmpty()) {
    const int colon = o.connect.lastIndexOf(':');
    const int port = colon > 0 ? o.connect.mid(colon + 1).toInt(&ok) : 0;
    if (colon <= 0 || !ok || port <= 0 || port > 65535)
      return QStringLiteral("--connect needs host:port, not '%1'").arg(o.connect);
  }
  o.screenshot = p.value(shot);
  o.screenshotDocks = p.value(shotDocks);
  o.screenshotAfterSeconds = p.value(shotAfter).toDouble(&ok);
  if (!ok || o.screenshotAfterSeconds < 0) return QStringLiteral("--screenshot-after must be a number of seconds");
  o.resetLayout = p.isSet(reset);
  o.inProcess = p.isSet(inProcess);
  o.screenshotTour = p.isSet(tour);
  o.paperAccount = p.value(paper);
  o.fresh = p.isSet(fresh);
  if (p.isSet(marketMode)) {
    const QString mode = p.value(marketMode).trimmed().toLower();
    if (mode != QLatin1String("calls") && mode != QLatin1String("continuous"))
      return QStringLiteral("--market-mode is 'calls' or 'continuous', not '%1'").arg(p.value(marketMode));
    o.callMode = mode == QLatin1String("calls");
  }
  if ((!o.paperAccount.isEmpty() || o.fresh || o.callMode) && !usesPaperAccount(o))
    return QStringLiteral(
        "--paper-account, --fresh and --market-mode are for the embedded exchange, not with --connect or "
        "--in-process");
  return o;
}

namespace {
constexpr const char* kMarketModeKey = "embeddedExchange/marketMode";
}

bool embeddedCallMode() { return QSettings().value(kMarketModeKey).toString() == QLatin1String("calls"); }

void setEmbeddedCallMode(bool calls) { QSettings().setValue(kMarketModeKey, calls ? "calls" : "continuous"); }

bool usesPaperAccount(const TerminalOptions& o) { return o.connect.isEmpty() && !o.inProcess; }

std::variant<std::unique_ptr<MarketBackend>, QString> makeBackend(const TerminalOptions& o,
                                                                  const QString& journalPath) {
  if (!o.connect.isEmpty()) {
    const int colon = o.connect.lastIndexOf(':');
    ExchangeEndpoint e;
    e.host = o.connect.left(colon).toStdString();
    e.port = static_cast<std::uint16_t>(o.connect.mid(colon + 1).toInt());
    e.account = o.account.toStdString();
    e.key = o.key.toStdString();
    e.tls = o.tls;
    e.caFile = o.ca.toStdString();
    std::unique_ptr<MarketBackend> b = std::make_unique<ExchangeBackend>(e);
    return b;
  }
  backtest::SimulatedMarketConfig cfg;
  cfg.seed = o.seed;
  cfg.start = currentWallClockHour();
  cfg.ticksPerHour = 60;
  cfg.activity = o.activity;
  LocalMarketOptions lo;
  // One simulated minute per tick; the pace sets how often a tick comes.
  lo.tickMs = std::max(1, static_cast<int>(std::lround(60000.0 / (cfg.ticksPerHour * o.simulatedHoursPerMinute))));
  lo.publishMs = 100;
  if (!o.inProcess) {
    // Default: the exchange server in this process, traded through the same client as a remote one.
    std::unique_ptr<MarketBackend> b = std::make_unique<EmbeddedExchangeBackend>(
        cfg, o.account.toStdString(), lo.tickMs, o.record.toStdString(), journalPath.toStdString(), embeddedCallMode());
    return b;
  }
  std::unique_ptr<MarketBackend> b =
      std::make_unique<LocalMarketBackend>(SimulatedMarketFeed::factory(cfg), o.account, lo);
  return b;
}

QString onFillStatePath(const TerminalOptions& o, const QString& journalPath) {
  if (!o.connect.isEmpty()) {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/on-fill/") +
           QString::fromStdString(net::onFillStateFileName(o.connect.toStdString(), o.account.toStdString()));
  }
  if (o.inProcess || journalPath.isEmpty() || journalPath == QStringLiteral(":memory:")) return {};
  return PaperAccount::onFillStatePath(journalPath);
}

std::function<QString()> exchangeAddress(const TerminalOptions& o, const MarketBackend& backend) {
  if (!o.connect.isEmpty()) return [address = o.connect] { return address; };
  if (const auto* embedded = dynamic_cast<const EmbeddedExchangeBackend*>(&backend))
    return [embedded] { return QStringLiteral("127.0.0.1:%1").arg(embedded->exchangePort()); };
  return [] { return QString(); };
}

}  // namespace tessera::ui
