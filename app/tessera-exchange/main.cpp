// tessera-exchange: the exchange server. See docs/protocol.md for the wire protocol.
#include "AccountsCommand.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ExchangeCore.h"
#include "core/net/ExchangeLog.h"
#include "core/net/ExchangeServer.h"
#include "core/net/SnapshotStore.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>

namespace {
// --state-digest: the state start-up would serve, loaded the way the config says, and its digest.
int printStateDigest(const tessera::net::ExchangeConfig& config) {
  using namespace tessera::net;
  try {
    auto opened = Journal::open(config.dbPath, config.syncFull);
    if (auto* err = std::get_if<std::string>(&opened)) {
      std::cerr << "tessera-exchange: " << *err << "\n";
      return 1;
    }
    Journal& journal = *std::get<std::unique_ptr<Journal>>(opened);
    std::unique_ptr<SnapshotStore> store;
    if (config.snapshots && config.snapshotsAtStart) {
      auto s = SnapshotStore::open(config.dbPath + ".snapshots");
      if (auto* err = std::get_if<std::string>(&s))
        std::cerr << "tessera-exchange: " << *err << "; full replay\n";
      else
        store = std::move(std::get<std::unique_ptr<SnapshotStore>>(s));
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto core = ExchangeCore::start(config, journal, store.get());
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(core->stateDigest()));
    std::cout << "state digest " << digest << " after journal entry " << journal.lastSeq() << " (";
    if (core->startedFromSnapshot()) std::cout << "snapshot after entry " << core->snapshotSeq() << " + ";
    std::cout << core->replayedEntries() << " entries replayed, loaded in " << ms << " ms)" << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tessera-exchange: " << e.what() << "\n";
    return 1;
  }
}
}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::net;
  if (argc > 1 && std::string_view(argv[1]) == "accounts") {
    return tessera::exchange_app::runAccountsCommand(argc - 1, argv + 1);
  }
  ExchangeConfig config;
  std::string configFile, accountsFile, listen, db, record, tlsCert, tlsKey, logFile, logLevel;
  int port = -1, prefaultMb = -1;
  bool syncFullFlag = false, syncNormalFlag = false, noWallClock = false;
  bool noSnapshots = false, fullReplay = false, stateDigest = false;
  std::int64_t snapshotEntries = -1, snapshotSeconds = -1;

  CLI::App app("the exchange server: newline-delimited JSON over TCP/TLS, journaled to SQLite (docs/protocol.md)",
               "tessera-exchange");
  app.add_option("--config", configFile,
                 "server config (JSON: listen, port, db, accounts, sync_full, limits, record, fee_ppm,\n"
                 "engine_prefault_mb, tls_cert, tls_key, log_file, log_level)")
      ->check(CLI::ExistingFile);
  app.add_option("--listen", listen, "address to listen on (default 127.0.0.1; any other address needs TLS)");
  app.add_option("--tls-cert", tlsCert, "TLS on the client port: PEM certificate (chain) of the server")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", tlsKey, "and its PEM private key (scripts/setup.sh makes a development pair)")
      ->check(CLI::ExistingFile);
  app.add_option("--log-file", logFile, "also log to this file, rotated at 64 MiB, 5 kept (stderr always)");
  app.add_option("--log-level", logLevel, "trace, debug, info (default), warn, error, critical, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--port", port, "TCP port (default 7400; 0 picks a free one)")->check(CLI::Range(0, 65535));
  app.add_option("--db", db, "SQLite journal (default tessera-exchange.db; :memory: for none)");
  app.add_option("--accounts", accountsFile, "accounts file: accounts, clusters, capacity grants")
      ->check(CLI::ExistingFile);
  app.add_option("--record", record,
                 "also record every accepted input and its market events to this market-history file,\n"
                 "for tessera-backtest (docs/history-schema.md)");
  auto* full = app.add_flag("--sync-full", syncFullFlag,
                            "fsync the journal at every group commit (the default: an acknowledgement survives\n"
                            "power loss)");
  app.add_flag("--sync-normal", syncNormalFlag, "fsync only at checkpoints (survives kill -9, not power loss)")
      ->excludes(full);
  app.add_option("--prefault-mb", prefaultMb,
                 "memory the matching engine takes in huge pages and faults in at start, so that a book\n"
                 "of up to about that size never waits for the kernel mid-order (default 0: ordinary\n"
                 "pages as it grows)")
      ->check(CLI::Range(0, kMaxEnginePrefaultMb));
  app.add_flag("--no-wall-clock", noWallClock, "do not advance the exchange clock with UTC hours");
  app.set_version_flag("--version", std::string("tessera-exchange ") + TESSERA_VERSION);
  app.add_option("--snapshot-every-entries", snapshotEntries,
                 "take a snapshot of the whole state (into <db>.snapshots) after this many journal entries\n"
                 "(default 1000000; 0: not by count); start-up loads the newest and replays only the rest")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--snapshot-every-seconds", snapshotSeconds,
                 "... or after this many seconds with new entries (default 600; 0: not by time)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-snapshots", noSnapshots, "neither write nor read snapshots (start-up replays the whole journal)");
  app.add_flag("--full-replay", fullReplay, "start by replaying the whole journal, ignoring snapshots (still written)");
  app.add_flag("--state-digest", stateDigest,
               "load the state as start-up would (snapshot and later entries, or with --full-replay the\n"
               "whole journal), print a digest of it and exit: two ways of loading agree if they print\n"
               "the same digest");
  app.footer(
      "Flags override the config file. SIGTERM or SIGINT shuts down cleanly: the exchange stops\n"
      "accepting and reading, answers every request it had taken, then closes the sessions.\n"
      "Example: tessera-exchange --accounts resources/exchange/accounts.json --db /tmp/x.db\n\n"
      "Accounts (a new random key is printed once; the file keeps its Argon2id hash):\n"
      "  tessera-exchange accounts add NAME --cash USD [--house] --file ACCOUNTS.json\n"
      "  tessera-exchange accounts rotate-key NAME --file ACCOUNTS.json");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, std::cout, std::cerr);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, std::cout, std::cerr);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tessera-exchange: " << e.what() << "\nRun 'tessera-exchange --help' for the options.\n";
    return 2;
  }
  std::optional<bool> syncFull;
  if (syncFullFlag) syncFull = true;
  if (syncNormalFlag) syncFull = false;

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
  if (port >= 0) config.port = static_cast<std::uint16_t>(port);
  if (prefaultMb >= 0) config.enginePrefaultMb = prefaultMb;
  if (noSnapshots) config.snapshots = false;
  if (fullReplay) config.snapshotsAtStart = false;
  if (snapshotEntries >= 0) config.snapshotEveryEntries = snapshotEntries;
  if (snapshotSeconds >= 0) config.snapshotEverySeconds = snapshotSeconds;
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
  if (stateDigest) return printStateDigest(config);
  if (config.accounts.empty()) {
    std::cerr << "tessera-exchange: warning: no accounts configured (use --accounts); nobody can log on\n";
  }
  try {
    ExchangeServer server(config);
    server.start();
    // Tests and scripts read this line to learn the port (useful with --port 0).
    std::cout << "tessera-exchange: listening on " << config.listenAddress << ":" << server.port() << " journal "
              << config.dbPath << " (" << server.replayedEntries() << " journal entries: " << server.snapshotEntries()
              << " from a snapshot, " << server.replayedEntries() - server.snapshotEntries() << " replayed)"
              << (config.tlsCertFile.empty() ? "" : ", TLS") << std::endl;
    server.runUntilSignalled();
    const ServerStats s = server.stats();
    std::cout << "tessera-exchange: stopped after " << s.messages << " requests in " << s.batches << " commits, "
              << s.sessions << " sessions" << std::endl;
  } catch (const std::bad_alloc&) {
    std::cerr << "tessera-exchange: not enough memory to start (engine prefault " << config.enginePrefaultMb
              << " MB)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tessera-exchange: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
