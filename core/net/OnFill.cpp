#include "core/net/OnFill.h"

#include "core/domain/HourText.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

extern char** environ;

namespace tessera::net {

std::string defaultOnFillStatePath(const std::string& endpoint, const std::string& account) {
  const std::string base = []() -> std::string {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return xdg;
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.local/share";
    return ".";
  }();
  return base + "/tessera/on-fill/" + onFillStateFileName(endpoint, account);
}

std::string onFillStateFileName(const std::string& endpoint, const std::string& account) {
  std::string name = endpoint + "-" + account;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') ch = '_';
  return name + ".log";
}

OnFillState::OnFillState(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec) {
    error_ = "cannot create " + folder.string() + ": " + ec.message();
    return;
  }
  std::ifstream in(path_);
  std::string word;
  ContractId id = 0;
  std::string rest;
  while (in >> word >> id) {
    std::getline(in, rest);
    const std::string value = rest.empty() ? rest : rest.substr(1);
    if (word == "started") started_.insert(id);
    if (word == "exited") exited_[id] = std::atoi(value.c_str());
    if (const auto blank = value.find(' '); word == "watch" && blank != std::string::npos && blank + 1 < value.size()) {
      const std::string clOrdId = value.substr(0, blank);
      watches_[id] = Watch{clOrdId == "-" ? std::string() : clOrdId, value.substr(blank + 1)};
    }
  }
  if (!append("")) error_ = "cannot write " + path_ + ": " + std::strerror(errno);
}

bool OnFillState::append(const std::string& line) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = line.empty() || ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  return ok;
}

bool OnFillState::markStarted(ContractId id) {
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  if (!append("started " + std::to_string(id) + " " + std::to_string(now.count()) + "\n")) return false;
  started_.insert(id);
  return true;
}

void OnFillState::markExited(ContractId id, int status) {
  if (append("exited " + std::to_string(id) + " " + std::to_string(status) + "\n")) exited_[id] = status;
}

std::optional<int> OnFillState::exitStatus(ContractId id) const {
  const auto it = exited_.find(id);
  if (it == exited_.end()) return std::nullopt;
  return it->second;
}

bool OnFillState::markWatching(OrderId order, const Watch& watch) {
  if (watch.command.empty() || watch.command.find_first_of("\r\n") != std::string::npos) return false;
  if (watch.clOrdId.find_first_of(" \t\r\n") != std::string::npos) return false;
  const std::string id = watch.clOrdId.empty() ? "-" : watch.clOrdId;
  if (!append("watch " + std::to_string(order) + " " + id + " " + watch.command + "\n")) return false;
  watches_[order] = watch;
  return true;
}

int runOnFillCommand(const std::string& command, const OnFillContract& c) {
  const Contract& k = c.contract;
  // "2026-12-08T09:00Z" -> "2026-12-08T09:00:00Z": what date(1), sbatch and kubectl read.
  auto full = [](Hour h) {
    std::string s = isoHour(h);
    if (!s.empty() && s.back() == 'Z') s.insert(s.size() - 1, ":00");
    return s;
  };
  char price[32];
  std::snprintf(price, sizeof price, "%.6f", static_cast<double>(k.price) / kMicrosPerDollar);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"TESSERA_CONTRACT_ID", std::to_string(k.id)},
      {"TESSERA_ORDER_ID", std::to_string(k.buyOrder)},
      {"TESSERA_CL_ORD_ID", c.clOrdId},
      {"TESSERA_CLUSTER_ID", std::to_string(k.cluster)},
      {"TESSERA_CLUSTER", c.clusterName},
      {"TESSERA_GPUS", std::to_string(k.gpus)},
      {"TESSERA_START", full(k.start)},
      {"TESSERA_END", full(k.end)},
      {"TESSERA_START_HOUR", std::to_string(k.start)},
      {"TESSERA_END_HOUR", std::to_string(k.end)},
      {"TESSERA_HOURS", std::to_string(k.end - k.start)},
      {"TESSERA_PRICE_USD", price},
      {"TESSERA_ACCOUNT", c.account},
      {"TESSERA_EXCHANGE", c.exchange},
  };
  // The child's environment is built here: between fork and exec only async-signal-safe calls
  // are allowed (the exchange client's thread may hold the allocator's lock).
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    if (kv.rfind("TESSERA_", 0) != 0) entries.emplace_back(kv);
  }
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh", dashC = "-c", text = command, arg0 = "sh";
  char* argv[] = {arg0.data(), dashC.data(), text.data(), nullptr};
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::execve(shell.c_str(), argv, envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace tessera::net
