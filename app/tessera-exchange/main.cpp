// tessera-exchange: the exchange server. See docs/protocol.md for the wire protocol.
#include "AccountsCommand.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ExchangeLog.h"
#include "core/net/ExchangeServer.h"

#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>

namespace {

void printUsage(std::ostream& os) {
  os << "usage: tessera-exchange [options]\n"
        "       tessera-exchange accounts add NAME --cash USD [--house] --file ACCOUNTS.json\n"
        "       tessera-exchange accounts rotate-key NAME --file ACCOUNTS.json\n\n"
        "options:\n"
        "  --config <file>     server config (JSON: listen, port, db, accounts, sync_full, limits, record,\n"
        "                      fee_ppm, engine_prefault_mb, tls_cert, tls_key, log_file, log_level)\n"
        "  --listen <address>  address to listen on (default 127.0.0.1; any other address needs TLS)\n"
        "  --tls-cert <file>   TLS on the client port: PEM certificate (chain) of the server\n"
        "  --tls-key <file>    and its PEM private key (scripts/setup.sh makes a development pair)\n"
        "  --log-file <file>   also log to this file, rotated at 64 MiB, 5 kept (stderr always)\n"
        "  --log-level <l>     trace, debug, info (default), warn, error, critical, off\n"
        "  --port <port>       TCP port (default 7400; 0 picks a free one)\n"
        "  --db <file>         SQLite journal (default tessera-exchange.db; :memory: for none)\n"
        "  --accounts <file>   accounts file: accounts, clusters, capacity grants\n"
        "  --record <file>     also record every accepted input and its market events to this\n"
        "                      market-history file, for tessera-backtest (docs/history-schema.md)\n"
        "  --sync-full         fsync the journal at every group commit (the default: an\n"
        "                      acknowledgement survives power loss)\n"
        "  --sync-normal       fsync only at checkpoints (survives kill -9, not power loss)\n"
        "  --prefault-mb <N>   memory the matching engine takes in huge pages and faults in at\n"
        "                      start, so that a book of up to about that size never waits for\n"
        "                      the kernel mid-order (default 0: ordinary pages as it grows)\n"
        "  --no-wall-clock     do not advance the exchange clock with UTC hours\n"
        "  --help              this text\n\n"
        "Flags override the config file. SIGTERM or SIGINT shuts down cleanly: the exchange stops\n"
        "accepting and reading, answers every request it had taken, then closes the sessions.\n"
        "Example: tessera-exchange --accounts resources/exchange/accounts.json --db /tmp/x.db\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::net;
  if (argc > 1 && std::string_view(argv[1]) == "accounts") {
    return tessera::exchange_app::runAccountsCommand(argc - 1, argv + 1);
  }
  ExchangeConfig config;
  std::string configFile, accountsFile, listen, db, port, record, prefaultMb, tlsCert, tlsKey,
      logFile, logLevel;
  std::optional<bool> syncFull;
  bool noWallClock = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        std::cerr << "tessera-exchange: " << a << " needs a value\n";
        std::exit(2);
      }
      out = argv[++i];
    };
    if (a == "--help" || a == "-h") {
      printUsage(std::cout);
      return 0;
    } else if (a == "--config") value(configFile);
    else if (a == "--accounts") value(accountsFile);
    else if (a == "--listen") value(listen);
    else if (a == "--port") value(port);
    else if (a == "--db") value(db);
    else if (a == "--record") value(record);
    else if (a == "--prefault-mb") value(prefaultMb);
    else if (a == "--tls-cert") value(tlsCert);
    else if (a == "--tls-key") value(tlsKey);
    else if (a == "--log-file") value(logFile);
    else if (a == "--log-level") value(logLevel);
    else if (a == "--sync-full") syncFull = true;
    else if (a == "--sync-normal") syncFull = false;
    else if (a == "--no-wall-clock") noWallClock = true;
    else {
      std::cerr << "tessera-exchange: unknown option '" << a << "'\n";
      printUsage(std::cerr);
      return 2;
    }
  }
  if (!configFile.empty()) {
    auto loaded = loadConfigFile(configFile, config);
    if (auto* e = std::get_if<ConfigError>(&loaded)) {
      std::cerr << "tessera-exchange: " << e->message << "\n";
      return 2;
    }
    config = std::get<ExchangeConfig>(std::move(loaded));
  }
  if (!accountsFile.empty()) {
    config.accounts.clear();
    config.clusters.clear();
    config.grants.clear();
    auto loaded = loadAccountsFile(accountsFile, config);
    if (auto* e = std::get_if<ConfigError>(&loaded)) {
      std::cerr << "tessera-exchange: " << e->message << "\n";
      return 2;
    }
    config = std::get<ExchangeConfig>(std::move(loaded));
  }
  if (!listen.empty()) config.listenAddress = listen;
  if (!db.empty()) config.dbPath = db;
  if (!record.empty()) config.recordPath = record;
  if (syncFull) config.syncFull = *syncFull;
  if (noWallClock) config.followWallClock = false;
  if (!port.empty()) {
    char* end = nullptr;
    const long p = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || p < 0 || p > 65535) {
      std::cerr << "tessera-exchange: bad port '" << port << "'\n";
      return 2;
    }
    config.port = static_cast<std::uint16_t>(p);
  }
  if (!prefaultMb.empty()) {
    char* end = nullptr;
    const long mb = std::strtol(prefaultMb.c_str(), &end, 10);
    if (*end != '\0' || mb < 0 || mb > kMaxEnginePrefaultMb) {
      std::cerr << "tessera-exchange: bad --prefault-mb '" << prefaultMb << "' (0 to " << kMaxEnginePrefaultMb << ")\n";
      return 2;
    }
    config.enginePrefaultMb = static_cast<int>(mb);
  }
  if (!tlsCert.empty()) config.tlsCertFile = tlsCert;
  if (!tlsKey.empty()) config.tlsKeyFile = tlsKey;
  if (config.tlsCertFile.empty() != config.tlsKeyFile.empty()) {
    std::cerr << "tessera-exchange: --tls-cert and --tls-key go together\n";
    return 2;
  }
  if (!logFile.empty()) config.logFile = logFile;
  if (!logLevel.empty()) config.logLevel = logLevel;
  {
    LogOptions log;
    log.file = config.logFile;
    log.level = config.logLevel;
    if (const std::string err = setupExchangeLog(log); !err.empty()) {
      std::cerr << "tessera-exchange: " << err << "\n";
      return 2;
    }
  }
  if (config.accounts.empty()) {
    std::cerr << "tessera-exchange: warning: no accounts configured (use --accounts); nobody can log on\n";
  }
  try {
    ExchangeServer server(config);
    server.start();
    // Tests and scripts read this line to learn the port (useful with --port 0).
    std::cout << "tessera-exchange: listening on " << config.listenAddress << ":" << server.port()
              << " journal " << config.dbPath << " (replayed " << server.replayedEntries()
              << " entries)" << (config.tlsCertFile.empty() ? "" : ", TLS") << std::endl;
    server.runUntilSignalled();
    const ServerStats s = server.stats();
    std::cout << "tessera-exchange: stopped after " << s.messages << " requests in " << s.batches
              << " commits, " << s.sessions << " sessions" << std::endl;
  } catch (const std::bad_alloc&) {
    std::cerr << "tessera-exchange: not enough memory to start (engine prefault " << config.enginePrefaultMb << " MB)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tessera-exchange: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
