#include "core/net/ExchangeConfig.h"

#include "core/domain/JsonFile.h"
#include "core/engine/EventJson.h"
#include "core/engine/MarketLimits.h"
#include "core/net/ExchangeLog.h"
#include "core/net/ApiKey.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessera::net {
namespace {

using nlohmann::json;

std::variant<json, ConfigError> readJson(const std::string& path) {
  auto read = readJsonFile(path);
  if (auto* err = std::get_if<JsonFileError>(&read)) return ConfigError{err->message};
  if (!std::get<json>(read).is_object()) return ConfigError{"'" + path + "' must hold a JSON object"};
  return std::move(std::get<json>(read));
}

// Reads an optional field of type T, reporting a type mismatch instead of throwing.
template <class T>
bool get(const json& j, const char* key, T& out, std::string& err, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  try {
    out = it->get<T>();
    return true;
  } catch (const json::exception&) {
    err = where + ": field '" + key + "' has the wrong type";
    return false;
  }
}

}  // namespace

std::string checkLimits(const Limits& l) {
  if (l.maxSessions < 1) return "max_sessions must be at least 1";
  if (l.maxSessionsPerAddress < 1) return "max_sessions_per_address must be at least 1";
  if (l.logonTimeoutSeconds < 1) return "logon_timeout_seconds must be at least 1";
  if (l.lineTimeoutSeconds < 1) return "line_timeout_seconds must be at least 1";
  if (l.idleTimeoutSeconds < 1) return "idle_timeout_seconds must be at least 1";
  if (l.heartbeatSeconds < 1) return "heartbeat_seconds must be at least 1";
  if (l.acceptBackoffMs < 1 || l.acceptBackoffMs > 60'000) return "accept_backoff_ms must be 1 to 60000";
  if (l.shutdownDrainSeconds < 0) return "shutdown_drain_seconds must not be negative";
  if (l.outboundBudgetBytes < 1024) return "outbound_budget_bytes must be at least 1024";
  if (l.maxPendingOutboundBytes < l.outboundBudgetBytes) {
    return "max_pending_outbound_bytes must be at least outbound_budget_bytes";
  }
  return {};
}

std::variant<ExchangeConfig, ConfigError> loadAccountsFile(const std::string& path, ExchangeConfig cfg) {
  auto read = readJson(path);
  if (auto* e = std::get_if<ConfigError>(&read)) return *e;
  const json& j = std::get<json>(read);
  std::string err;
  for (const char* key : {"accounts", "clusters", "grants"}) {
    if (j.contains(key) && !j[key].is_array()) return ConfigError{path + ": '" + key + "' must be an array"};
  }
  for (const json& a : j.value("accounts", json::array())) {
    AccountConfig ac;
    const std::string where = path + ": account";
    if (!a.is_object() || !get(a, "name", ac.name, err, where) || !get(a, "key_hash", ac.keyHash, err, where) ||
        !get(a, "cash", ac.cash, err, where) || !get(a, "house", ac.house, err, where)) {
      return ConfigError{err.empty() ? where + " must be an object" : err};
    }
    if (!get(a, "credit_limit", ac.creditLimit, err, where)) return ConfigError{err};
    if (ac.name.empty()) return ConfigError{where + " without a name"};
    if (ac.creditLimit < 0) return ConfigError{where + " '" + ac.name + "' has a negative credit_limit"};
    // Only house accounts are funded from outside for what they spend beyond their cash.
    if (ac.creditLimit > 0 && !ac.house)
      return ConfigError{where + " '" + ac.name + "' has a credit_limit but is not a house account"};
    // Keys used to be stored as one round of salted SHA-256, which a stolen file gives up to
    // brute force; such an account cannot be kept working, only given a new key.
    if (a.contains("salt") || (!ac.keyHash.empty() && !isArgon2idHash(ac.keyHash))) {
      return ConfigError{where + " '" + ac.name +
                         "' has an old-style key hash (salted SHA-256); give it a new key with "
                         "`tessera-exchange accounts rotate-key " +
                         ac.name + " --file " + path + "`"};
    }
    if (ac.cash < 0) return ConfigError{where + " '" + ac.name + "' has negative cash"};
    cfg.accounts.push_back(std::move(ac));
  }
  for (const json& c : j.value("clusters", json::array())) {
    auto parsed = clusterFromJson(c);
    if (auto* e = std::get_if<JsonError>(&parsed)) return ConfigError{path + ": cluster: " + e->message};
    cfg.clusters.push_back(std::get<Cluster>(std::move(parsed)));
  }
  for (const json& g : j.value("grants", json::array())) {
    GrantConfig gc;
    const std::string where = path + ": grant";
    if (!g.is_object() || !get(g, "account", gc.account, err, where) || !get(g, "cluster", gc.cluster, err, where) ||
        !get(g, "gpus", gc.gpus, err, where) || !get(g, "start", gc.start, err, where) ||
        !get(g, "end", gc.end, err, where)) {
      return ConfigError{err.empty() ? where + " must be an object" : err};
    }
    cfg.grants.push_back(std::move(gc));
  }
  if (j.contains("initial_clock")) {
    Hour h = 0;
    if (!get(j, "initial_clock", h, err, path)) return ConfigError{err};
    cfg.initialClock = h;
  }
  return cfg;
}

std::variant<ExchangeConfig, ConfigError> loadConfigFile(const std::string& path, ExchangeConfig cfg) {
  auto read = readJson(path);
  if (auto* e = std::get_if<ConfigError>(&read)) return *e;
  const json& j = std::get<json>(read);
  static const char* kKnown[] = {"listen",
                                 "port",
                                 "db",
                                 "accounts",
                                 "sync_full",
                                 "limits",
                                 "record",
                                 "fee_ppm",
                                 "engine_prefault_mb",
                                 "tls_cert",
                                 "tls_key",
                                 "log_file",
                                 "log_level",
                                 "snapshots",
                                 "snapshot_every_entries",
                                 "snapshot_every_seconds",
                                 "call_mode"};
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* k : kKnown) known = known || key == k;
    if (!known) return ConfigError{path + ": unknown setting '" + key + "'"};
  }
  std::string err;
  int port = cfg.port;
  std::string accounts;
  if (!get(j, "listen", cfg.listenAddress, err, path) || !get(j, "port", port, err, path) ||
      !get(j, "db", cfg.dbPath, err, path) || !get(j, "record", cfg.recordPath, err, path) ||
      !get(j, "sync_full", cfg.syncFull, err, path) || !get(j, "accounts", accounts, err, path) ||
      !get(j, "tls_cert", cfg.tlsCertFile, err, path) || !get(j, "tls_key", cfg.tlsKeyFile, err, path) ||
      !get(j, "log_file", cfg.logFile, err, path) || !get(j, "log_level", cfg.logLevel, err, path)) {
    return ConfigError{err};
  }
  if (port < 0 || port > 65535) return ConfigError{path + ": port out of range"};
  if (!get(j, "fee_ppm", cfg.feePpm, err, path)) return ConfigError{err};
  if (cfg.feePpm < 0 || cfg.feePpm > 1'000'000) return ConfigError{path + ": fee_ppm must be 0 to 1000000"};
  if (!get(j, "engine_prefault_mb", cfg.enginePrefaultMb, err, path)) return ConfigError{err};
  if (cfg.enginePrefaultMb < 0 || cfg.enginePrefaultMb > kMaxEnginePrefaultMb)
    return ConfigError{path + ": engine_prefault_mb must be 0 to " + std::to_string(kMaxEnginePrefaultMb)};
  cfg.port = static_cast<std::uint16_t>(port);
  if (!get(j, "snapshots", cfg.snapshots, err, path) ||
      !get(j, "snapshot_every_entries", cfg.snapshotEveryEntries, err, path) ||
      !get(j, "snapshot_every_seconds", cfg.snapshotEverySeconds, err, path))
    return ConfigError{err};
  if (cfg.snapshotEveryEntries < 0 || cfg.snapshotEverySeconds < 0)
    return ConfigError{path + ": snapshot_every_entries and snapshot_every_seconds must be 0 or more"};
  if (auto it = j.find("call_mode"); it != j.end()) {
    CallModeConfig& c = cfg.callMode;
    const std::string where = path + ": call_mode";
    if (!it->is_object()) return ConfigError{where + " must be an object"};
    for (const auto& [key, value] : it->items())
      if (key != "clusters" && key != "period_seconds" && key != "at_each_hour" && key != "node_limit" &&
          key != "seconds")
        return ConfigError{where + ": unknown setting '" + key + "'"};
    if (auto cl = it->find("clusters"); cl != it->end()) {
      if (cl->is_string() && *cl == "all") {
        c.allClusters = true;
      } else if (cl->is_array() && std::all_of(cl->begin(), cl->end(), [](const json& n) { return n.is_string(); })) {
        c.clusters = cl->get<std::vector<std::string>>();
      } else {
        return ConfigError{where + ": clusters must be \"all\" or a list of cluster names"};
      }
    }
    if (!get(*it, "period_seconds", c.periodSeconds, err, where) ||
        !get(*it, "at_each_hour", c.atEachHour, err, where) || !get(*it, "node_limit", c.nodeLimit, err, where) ||
        !get(*it, "seconds", c.seconds, err, where))
      return ConfigError{err};
    if (c.periodSeconds < 0 || c.periodSeconds > 7 * 24 * 3600)
      return ConfigError{where + ": period_seconds must be 0 to 604800"};
    if (c.nodeLimit < 1 || !(c.seconds > 0.0)) return ConfigError{where + ": node_limit and seconds must be positive"};
    if (c.any() && c.periodSeconds == 0 && !c.atEachHour)
      return ConfigError{where + ": call-mode clusters need period_seconds or at_each_hour"};
  }
  if (auto it = j.find("limits"); it != j.end()) {
    if (!it->is_object()) return ConfigError{path + ": 'limits' must be an object"};
    Limits& l = cfg.limits;
    const std::string where = path + ": limits";
    if (!get(*it, "max_message_bytes", l.maxMessageBytes, err, where) ||
        !get(*it, "max_open_orders_per_account", l.maxOpenOrdersPerAccount, err, where) ||
        !get(*it, "max_messages_per_second", l.maxMessagesPerSecond, err, where) ||
        !get(*it, "burst_messages", l.burstMessages, err, where) ||
        !get(*it, "max_pending_outbound_bytes", l.maxPendingOutboundBytes, err, where) ||
        !get(*it, "heartbeat_seconds", l.heartbeatSeconds, err, where) ||
        !get(*it, "idle_timeout_seconds", l.idleTimeoutSeconds, err, where) ||
        !get(*it, "md_replay_depth", l.mdReplayDepth, err, where) ||
        !get(*it, "outbound_budget_bytes", l.outboundBudgetBytes, err, where) ||
        !get(*it, "max_sessions", l.maxSessions, err, where) ||
        !get(*it, "max_sessions_per_address", l.maxSessionsPerAddress, err, where) ||
        !get(*it, "logon_timeout_seconds", l.logonTimeoutSeconds, err, where) ||
        !get(*it, "line_timeout_seconds", l.lineTimeoutSeconds, err, where) ||
        !get(*it, "accept_backoff_ms", l.acceptBackoffMs, err, where) ||
        !get(*it, "shutdown_drain_seconds", l.shutdownDrainSeconds, err, where) ||
        !get(*it, "md_horizon_hours", l.mdHorizonHours, err, where)) {
      return ConfigError{err};
    }
    if (l.mdHorizonHours < 1 || l.mdHorizonHours > limits::kMaxHorizonHours)
      return ConfigError{where + ": md_horizon_hours must be 1 to " + std::to_string(limits::kMaxHorizonHours)};
    static const char* kKnownLimits[] = {"max_message_bytes",          "max_open_orders_per_account",
                                         "max_messages_per_second",    "burst_messages",
                                         "max_pending_outbound_bytes", "heartbeat_seconds",
                                         "idle_timeout_seconds",       "md_replay_depth",
                                         "outbound_budget_bytes",      "max_sessions",
                                         "max_sessions_per_address",   "logon_timeout_seconds",
                                         "line_timeout_seconds",       "accept_backoff_ms",
                                         "shutdown_drain_seconds",     "md_horizon_hours"};
    for (const auto& [key, value] : it->items()) {
      bool known = false;
      for (const char* k : kKnownLimits) known = known || key == k;
      if (!known) return ConfigError{where + ": unknown setting '" + key + "'"};
    }
    if (auto e = checkLimits(l); !e.empty()) return ConfigError{where + ": " + e};
  }
  if (!isLogLevel(cfg.logLevel)) {
    return ConfigError{path + ": log_level must be trace, debug, info, warn, error, critical or off"};
  }
  if ((cfg.tlsCertFile.empty()) != (cfg.tlsKeyFile.empty())) {
    return ConfigError{path + ": tls_cert and tls_key go together"};
  }
  if (!accounts.empty()) {
    std::filesystem::path p(accounts);
    if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
    return loadAccountsFile(p.string(), std::move(cfg));
  }
  return cfg;
}

}  // namespace tessera::net
