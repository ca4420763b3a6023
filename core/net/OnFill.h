#pragma once
// `tessera-cli buy ... --on-fill CMD`: the command a filled order starts, once per contract.
// The contract is described to it in environment variables (TESSERA_CONTRACT_ID, ...; docs/cli.md
// "--on-fill"). Which contracts already had it run is kept in a state file in the user's data
// folder, written before the command starts, so that no restart of the watcher, crash or
// second watcher on the same account runs it twice for one contract (it may then not run at
// all, and the file says it started; at most once, never twice).
#include "core/engine/Events.h"

#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace tessera::net {

// $XDG_DATA_HOME/tessera/on-fill/HOST_PORT-ACCOUNT.log (else ~/.local/share/...).
[[nodiscard]] std::string defaultOnFillStatePath(const std::string& endpoint, const std::string& account);
// Its file name, HOST_PORT-ACCOUNT.log (the terminal keeps its own in its data folder).
[[nodiscard]] std::string onFillStateFileName(const std::string& endpoint, const std::string& account);

// The state file: one line "started CONTRACT UNIX_SECONDS" before the command runs, one line
// "exited CONTRACT STATUS" after it. A watcher that outlives its command line (the terminal,
// whose ticket attaches a command to an order) also keeps "watch ORDER COMMAND" lines: the
// orders whose contracts get a command, and which, so a relaunch goes on watching them
// ("watch ORDER CL_ORD_ID COMMAND", CL_ORD_ID "-" when the order has none).
class OnFillState {
 public:
  // Reads the file if it exists; creates its folder. error() says why it cannot be used.
  explicit OnFillState(std::string path);
  const std::optional<std::string>& error() const { return error_; }
  const std::string& path() const { return path_; }
  bool started(ContractId id) const { return started_.count(id) > 0; }
  // Appends and flushes the line (to disk) before returning; false if it could not be written.
  [[nodiscard]] bool markStarted(ContractId id);
  void markExited(ContractId id, int status);
  // The exit status of a contract's command, if the file says it exited.
  std::optional<int> exitStatus(ContractId id) const;
  // Watched orders by exchange order id. A command holds no line break; a client order id no
  // blank.
  struct Watch {
    std::string clOrdId;
    std::string command;
  };
  const std::map<OrderId, Watch>& watches() const { return watches_; }
  [[nodiscard]] bool markWatching(OrderId order, const Watch& watch);

 private:
  bool append(const std::string& line);
  std::string path_;
  std::set<ContractId> started_;
  std::map<ContractId, int> exited_;
  std::map<OrderId, Watch> watches_;
  std::optional<std::string> error_;
};

// What the command is told about the contract.
struct OnFillContract {
  Contract contract;
  std::string clusterName;
  std::string clOrdId;
  std::string account;
  std::string exchange;  // HOST:PORT
};

// Runs `command` through /bin/sh -c with the contract in its environment and waits for it.
// Returns its exit status (128 + the signal if a signal ended it; -1 if it could not start).
int runOnFillCommand(const std::string& command, const OnFillContract& c);

}  // namespace tessera::net
