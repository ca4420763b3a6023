// Soak under kill -9: a real tessera-exchange process takes a steady mixed load (bids and asks
// that rest or trade, cancels, amends) from several clients, and is killed with SIGKILL every
// `--kill-every` seconds and started again on the same journal. After each restart it checks,
// over the protocol, that:
//  - every order acknowledged before the kill is known under the same exchange id, and has at
//    least the GPU-hours filled that acknowledged fills said (nothing acknowledged is lost);
//  - money is conserved: cash + escrow over every account equals what the accounts started with
//    (no fees are configured, and the clock stands still, so nothing leaves the accounts);
//  - GPU-hours are conserved: the GPU-hours of the contracts the traders' positions list as
//    bought equal those the provider's list as sold, and are at most what it was granted;
//  - nothing is half-applied: each trader's reserved cash equals limit x leaves over its working
//    bids;
// and prints, per cycle, orders acknowledged, lost, the exchange's resident set before the kill
// and how long the restart took (journal replay included). Run by hand, never by CTest.
//
//   bench_exchange_soak [--minutes 10] [--kill-every 20] [--traders 4] [--rate 4000]
//                       [--exchange PATH] [--dir DIR] [--sync full|normal]
#include "NetTestSupport.h"
#include "core/settlement/ContractSettlement.h"  // toDollars

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr Price kDollar = kMicrosPerDollar;
constexpr Money kTraderCash = 1'000'000'000 * kDollar;
constexpr Money kProviderCash = 0;
constexpr int kHours = 400;  // the window traded: [kNow, kNow + kHours)
constexpr std::int64_t kGrantedGpuHours = std::int64_t{4096} * kHours;

struct Options {
  double minutes = 10;
  double killEvery = 20;
  int traders = 4;
  double rate = 4000;  // requests per second, all clients together
  std::string exchange = TESSERA_EXCHANGE_BIN;
  std::string dir;
  std::string sync = "full";
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--minutes")
      o.minutes = std::stod(value());
    else if (a == "--kill-every")
      o.killEvery = std::stod(value());
    else if (a == "--traders")
      o.traders = std::stoi(value());
    else if (a == "--rate")
      o.rate = std::stod(value());
    else if (a == "--exchange")
      o.exchange = value();
    else if (a == "--dir")
      o.dir = value();
    else if (a == "--sync")
      o.sync = value();
    else
      return false;
  }
  return o.minutes > 0 && o.killEvery > 0 && o.traders > 0 && o.rate > 0 && (o.sync == "full" || o.sync == "normal");
}

std::string traderName(int i) { return "trader" + std::to_string(i); }

std::string configFile(const Options& o) {
  json accounts = json::array();
  accounts.push_back({{"name", "provider"}, {"key_hash", account("provider", 0).keyHash}, {"cash", kProviderCash}});
  for (int i = 0; i < o.traders; ++i) {
    accounts.push_back(
        {{"name", traderName(i)}, {"key_hash", account(traderName(i), 0).keyHash}, {"cash", kTraderCash}});
  }
  json doc{{"initial_clock", kNow},
           {"accounts", accounts},
           {"clusters",
            json::array({json{{"id", 1}, {"name", "soak-h100"}, {"node_count", 512}, {"provider", "provider"}}})},
           {"grants", json::array({json{{"account", "provider"},
                                        {"cluster", "soak-h100"},
                                        {"gpus", 4096},
                                        {"start", kNow},
                                        {"end", kNow + kHours}}})}};
  return doc.dump(2);
}

long residentKb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// One tessera-exchange child process.
class ExchangeProcess {
 public:
  ExchangeProcess(const Options& o, const std::string& db, const std::string& config) {
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    const auto t0 = Clock::now();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      if (o.sync == "normal") {
        ::execl(o.exchange.c_str(), o.exchange.c_str(), "--port", "0", "--db", db.c_str(), "--accounts", config.c_str(),
                "--no-wall-clock", "--sync-normal", "--log-level", "warn", nullptr);
      } else {
        ::execl(o.exchange.c_str(), o.exchange.c_str(), "--port", "0", "--db", db.c_str(), "--accounts", config.c_str(),
                "--no-wall-clock", "--log-level", "warn", nullptr);
      }
      std::perror("exec tessera-exchange");
      std::_Exit(127);
    }
    ::close(out[1]);
    std::string text;
    const std::regex re(
        "listening on 127\\.0\\.0\\.1:(\\d+) .*\\((\\d+) journal entries: (\\d+) from a snapshot, (\\d+) replayed\\)");
    std::smatch m;
    char buf[4096];
    while (!std::regex_search(text, m, re)) {
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) throw std::runtime_error("tessera-exchange did not start: " + text);
      text.append(buf, static_cast<std::size_t>(n));
    }
    startSeconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
    port_ = static_cast<std::uint16_t>(std::stoi(m[1]));
    fromSnapshot_ = std::stoull(m[3]);
    replayed_ = std::stoull(m[4]);
    stdout_ = out[0];
  }
  ~ExchangeProcess() {
    if (pid_ > 0) kill9();
    if (stdout_ >= 0) ::close(stdout_);
  }
  void kill9() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  pid_t pid() const { return pid_; }
  std::uint16_t port() const { return port_; }
  double startSeconds() const { return startSeconds_; }
  std::uint64_t fromSnapshot() const { return fromSnapshot_; }  // journal entries the snapshot held
  std::uint64_t replayed() const { return replayed_; }          // entries replayed after it

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
  std::uint16_t port_ = 0;
  double startSeconds_ = 0;
  std::uint64_t fromSnapshot_ = 0;
  std::uint64_t replayed_ = 0;
};

// What a client saw acknowledged: order ids by cl_ord_id, and GPU-hours filled per order.
struct Acks {
  std::map<std::string, OrderId> orders;
  std::map<std::string, std::int64_t> filledGpuHours;
  std::map<std::string, int> refused;  // reject and error codes, counted
  void take(const json& j) {
    if (j.value("type", "") == "error") ++refused[j.value("code", "?")];
    if (j.value("type", "") != "exec") return;
    if (j.value("state", "") == "rejected") ++refused[j.value("code", "?")];
    const std::string state = j.value("state", "");
    const std::string cl = j.value("cl_ord_id", "");
    if (state == "accepted") orders[cl] = j["order_id"].get<OrderId>();
    if (state == "filled" || state == "partially_filled") {
      filledGpuHours[cl] += j["gpus"].get<std::int64_t>() * (j["end"].get<Hour>() - j["start"].get<Hour>());
    }
  }
};

// A client that keeps a window of requests in flight until the connection dies.
class Trader {
 public:
  // `rate`: this client's requests per second.
  Trader(std::string name, bool provider, std::uint32_t seed, int generation, double rate)
      : name_(std::move(name)), provider_(provider), random_(seed), generation_(generation), rate_(rate) {}

  // Runs until the exchange goes away; what was acknowledged is in acks().
  void run(std::uint16_t port) {
    try {
      LineClient c(port);
      if (!c.logon(name_)) return;
      std::vector<std::string> working;  // own cl_ord_ids that may still rest
      int next = 0;
      const auto chunkEvery = std::chrono::duration<double>(kChunk / rate_);
      auto due = Clock::now();
      for (;;) {
        std::string chunk;
        for (int k = 0; k < kChunk; ++k) {
          const int dice = static_cast<int>(random_() % 10);
          if (dice < 7 || working.empty()) {
            const std::string cl = name_ + "-g" + std::to_string(generation_) + "-" + std::to_string(next++);
            const Hour start = kNow + static_cast<Hour>(random_() % (kHours - 4));
            const Hour end = start + 1 + static_cast<Hour>(random_() % 3);
            const int gpus = 1 + static_cast<int>(random_() % 4);
            // Asks from $1.50 up, bids up to $2.00: some cross, most rest a while.
            const Price limit = provider_ ? kDollar * 3 / 2 + static_cast<Price>(random_() % 100) * 10'000
                                          : kDollar + static_cast<Price>(random_() % 100) * 10'000;
            chunk += order(cl, provider_ ? "sell" : "buy", 1, gpus, start, end, limit) + "\n";
            working.push_back(cl);
          } else if (dice < 9) {
            const std::size_t i = random_() % working.size();
            chunk += "{\"type\":\"cancel\",\"cl_ord_id\":\"" + working[i] + "\"}\n";
            working[i] = working.back();
            working.pop_back();
          } else {
            const std::string& cl = working[random_() % working.size()];
            const Price limit = provider_ ? kDollar * 3 / 2 + static_cast<Price>(random_() % 100) * 10'000
                                          : kDollar + static_cast<Price>(random_() % 100) * 10'000;
            chunk += "{\"type\":\"amend\",\"cl_ord_id\":\"" + cl + "\",\"limit\":" + std::to_string(limit) + "}\n";
          }
        }
        // Open orders stay well under the exchange's per-account limit (10,000 by default): the
        // oldest are cancelled (those that traded meanwhile answer unknown_order).
        if (working.size() > 2000) {
          for (auto it = working.begin(); it != working.begin() + 1000; ++it)
            chunk += "{\"type\":\"cancel\",\"cl_ord_id\":\"" + *it + "\"}\n";
          working.erase(working.begin(), working.begin() + 1000);
        }
        c.sendRaw(chunk);
        due += std::chrono::duration_cast<Clock::duration>(chunkEvery);
        // Read what has come until the next chunk is due.
        do {
          const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
          auto j = c.read(std::max(left, std::chrono::milliseconds(1)));
          if (!j) break;
          std::lock_guard lock(mutex_);
          acks_.take(*j);
        } while (Clock::now() < due);
        if (c.sawClose()) return;
      }
    } catch (const std::exception&) {
      // The exchange was killed under us: that is the point.
    }
  }
  Acks takeAcks() {
    std::lock_guard lock(mutex_);
    return std::exchange(acks_, Acks{});
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool provider_;
  std::mt19937 random_;
  int generation_;
  double rate_;
  static constexpr int kChunk = 20;
  std::mutex mutex_;
  Acks acks_;
};

struct Check {
  std::size_t acked = 0;
  std::size_t lost = 0;
  Money moneyDifference = 0;
  int halfApplied = 0;
  // GPU-hours in contracts, as the buyers' positions and as the provider's: equal when nothing
  // was made or lost on one side only, and at most what the provider was granted.
  std::int64_t bought = 0;
  std::int64_t sold = 0;
  bool gpuHoursConserved() const { return bought == sold && sold <= kGrantedGpuHours; }
  std::vector<std::string> examples;  // of what was lost
};

// Every order in `acks` is known with its id and fills; money and reservations add up.
Check verify(std::uint16_t port, const std::map<std::string, Acks>& acks, int traders) {
  Check r;
  Money total = 0;
  std::vector<std::string> names{"provider"};
  for (int i = 0; i < traders; ++i) names.push_back(traderName(i));
  for (const std::string& name : names) {
    LineClient c(port);
    if (!c.logon(name)) throw std::runtime_error("cannot log on " + name + " after the restart");
    if (auto it = acks.find(name); it != acks.end()) {
      const Acks& a = it->second;
      std::string queries;
      for (const auto& [cl, id] : a.orders) queries += "{\"type\":\"order_status\",\"cl_ord_id\":\"" + cl + "\"}\n";
      c.sendRaw(queries);
      for (std::size_t i = 0; i < a.orders.size(); ++i) {
        std::optional<json> j;
        while ((j = c.read(std::chrono::milliseconds(30000))) && (*j)["type"] != "order_status" &&
               !((*j)["type"] == "error" && (*j)["req_type"] == "order_status")) {
        }
        if (!j) throw std::runtime_error("order_status answers stopped after " + std::to_string(i));
        ++r.acked;
        if ((*j)["type"] == "error") {  // an acknowledged order the exchange does not know
          ++r.lost;
          if (r.examples.size() < 3) r.examples.push_back(name + ": " + j->dump());
          continue;
        }
        const std::string cl = (*j)["cl_ord_id"];
        const bool sameId = (*j)["order_id"].get<OrderId>() == a.orders.at(cl);
        auto f = a.filledGpuHours.find(cl);
        const bool fills = f == a.filledGpuHours.end() || (*j)["filled_gpu_hours"].get<std::int64_t>() >= f->second;
        if (!sameId || !fills) {
          ++r.lost;
          if (r.examples.size() < 3)
            r.examples.push_back(name + ": " + j->dump() + " acked id " + std::to_string(a.orders.at(cl)) +
                                 " acked fills " + std::to_string(f == a.filledGpuHours.end() ? 0 : f->second));
        }
      }
    }
    for (std::string after;;) {
      c.send("{\"type\":\"positions\"" + after + "}");
      const auto p = c.until("positions", std::chrono::milliseconds(30000));
      if (!p) throw std::runtime_error("no positions for " + name);
      for (const json& k : (*p)["contracts"])
        (k["side"] == "buy" ? r.bought : r.sold) +=
            k["gpus"].get<std::int64_t>() * (k["end"].get<Hour>() - k["start"].get<Hour>());
      if (!p->contains("next_after")) break;
      after = ",\"after_contract\":" + (*p)["next_after"].dump();
    }
    c.send("{\"type\":\"balance\"}");
    const auto b = c.until("balance", std::chrono::milliseconds(10000));
    if (!b) throw std::runtime_error("no balance for " + name);
    total += (*b)["cash"].get<Money>() + (*b)["escrow"].get<Money>();
    if (name != "provider") {
      c.send("{\"type\":\"orders\"}");
      const auto o = c.until("orders", std::chrono::milliseconds(30000));
      if (!o) throw std::runtime_error("no orders for " + name);
      Money needs = 0;
      for (const json& w : (*o)["orders"])
        needs += w["order"]["limit"].get<Price>() * w["leaves_gpu_hours"].get<Money>();
      if (needs != (*b)["reserved"].get<Money>()) ++r.halfApplied;
    }
  }
  r.moneyDifference = total - (kProviderCash + kTraderCash * traders);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse(argc, argv, o)) {
      std::cerr << "usage: bench_exchange_soak [--minutes 10] [--kill-every 20] [--traders 4] [--rate 4000] "
                   "[--exchange PATH] [--dir DIR] [--sync full|normal]\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_exchange_soak: " << e.what() << "\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir =
      o.dir.empty() ? fs::temp_directory_path() / ("tessera-soak-" + std::to_string(::getpid())) : fs::path(o.dir);
  fs::create_directories(dir);
  const std::string db = (dir / "journal.db").string();
  const std::string config = (dir / "config.json").string();
  fs::remove(db);
  fs::remove(db + "-wal");
  fs::remove(db + "-shm");
  std::ofstream(config) << configFile(o);

  std::printf("soak: %.1f min, kill -9 every %.0f s, %d traders + 1 provider, %.0f requests/s, journal sync %s, %s\n",
              o.minutes, o.killEvery, o.traders, o.rate, o.sync.c_str(), db.c_str());
  std::printf("%5s %8s %10s %10s %6s %8s %11s %6s %9s %9s %10s %10s\n", "cycle", "seconds", "acked", "acked_all",
              "lost", "money", "gpu_hours", "half", "rss_MB", "restart_s", "snapshot", "replayed");
  const auto end = Clock::now() + std::chrono::duration<double, std::ratio<60>>(o.minutes);
  std::size_t ackedAll = 0, lostAll = 0;
  Money worstMoney = 0;
  int halfAll = 0;
  int gpuHoursOff = 0;
  std::int64_t contracted = 0;
  double worstRestart = 0;
  long firstRss = -1, lastRss = -1;
  auto process = std::make_unique<ExchangeProcess>(o, db, config);
  for (int cycle = 1; Clock::now() < end; ++cycle) {
    std::vector<std::unique_ptr<Trader>> clients;
    clients.push_back(std::make_unique<Trader>("provider", true, 1000u + static_cast<unsigned>(cycle), cycle,
                                               o.rate / (o.traders + 1)));
    for (int i = 0; i < o.traders; ++i) {
      clients.push_back(std::make_unique<Trader>(traderName(i), false, static_cast<unsigned>(cycle * 100 + i), cycle,
                                                 o.rate / (o.traders + 1)));
    }
    std::vector<std::thread> threads;
    for (auto& c : clients) threads.emplace_back([&, port = process->port(), t = c.get()] { t->run(port); });
    std::this_thread::sleep_for(std::chrono::duration<double>(o.killEvery));
    const long rss = residentKb(process->pid());
    process->kill9();
    for (auto& t : threads) t.join();
    std::map<std::string, Acks> acks;
    std::size_t acked = 0;
    std::map<std::string, int> refused;
    for (auto& c : clients) {
      acks[c->name()] = c->takeAcks();
      acked += acks[c->name()].orders.size();
      for (const auto& [code, n] : acks[c->name()].refused) refused[code] += n;
    }
    process = std::make_unique<ExchangeProcess>(o, db, config);
    const Check check = verify(process->port(), acks, o.traders);
    ackedAll += acked;
    lostAll += check.lost;
    halfAll += check.halfApplied;
    if (!check.gpuHoursConserved()) ++gpuHoursOff;
    contracted = check.sold;
    worstMoney = std::max(worstMoney, check.moneyDifference < 0 ? -check.moneyDifference : check.moneyDifference);
    worstRestart = std::max(worstRestart, process->startSeconds());
    if (firstRss < 0) firstRss = rss;
    lastRss = rss;
    std::printf(
        "%5d %8.0f %10zu %10zu %6zu %8s %11s %6d %9.1f %9.3f %10llu %10llu\n", cycle,
        std::chrono::duration<double>(Clock::now() - (end - std::chrono::duration<double, std::ratio<60>>(o.minutes)))
            .count(),
        acked, ackedAll, check.lost, check.moneyDifference == 0 ? "ok" : toDollars(check.moneyDifference).c_str(),
        check.gpuHoursConserved() ? "ok" : (std::to_string(check.bought) + "/" + std::to_string(check.sold)).c_str(),
        check.halfApplied, static_cast<double>(rss) / 1024.0, process->startSeconds(),
        static_cast<unsigned long long>(process->fromSnapshot()), static_cast<unsigned long long>(process->replayed()));
    for (const std::string& e : check.examples) std::printf("      lost: %s\n", e.c_str());
    if (!refused.empty()) {
      std::printf("      refused:");
      for (const auto& [code, n] : refused) std::printf(" %s %d", code.c_str(), n);
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  std::printf(
      "\nacknowledged %zu orders, lost %zu; money off by at most %s; GPU-hours bought != sold (or over the "
      "grant) after %d restarts, %lld GPU-hours contracted; half-applied %d; RSS before the kills "
      "%.1f MB first, %.1f MB last; slowest restart %.3f s\n",
      ackedAll, lostAll, toDollars(worstMoney).c_str(), gpuHoursOff, static_cast<long long>(contracted), halfAll,
      static_cast<double>(firstRss) / 1024.0, static_cast<double>(lastRss) / 1024.0, worstRestart);
  return lostAll == 0 && worstMoney == 0 && halfAll == 0 && gpuHoursOff == 0 ? 0 : 1;
}
