#include "core/net/EmbeddedExchange.h"

#include "core/net/ExchangeServer.h"
#include "core/net/ApiKey.h"

#include <string>

namespace tessera::net {

namespace {
ExchangeConfig withFeederReports(ExchangeConfig c, std::shared_ptr<FeederReports>& reports) {
  if (!c.feederReports) c.feederReports = std::make_shared<FeederReports>();
  reports = c.feederReports;
  return c;
}
}  // namespace

EmbeddedExchange::EmbeddedExchange(ExchangeConfig config)
    : server_(std::make_unique<ExchangeServer>(withFeederReports(std::move(config), reports_))) {}

void EmbeddedExchange::reportOutage(FeederOutage outage) { reports_->push(std::move(outage)); }
void EmbeddedExchange::reportReclaim(FeederReclaim reclaim) { reports_->pushReclaim(std::move(reclaim)); }

EmbeddedExchange::~EmbeddedExchange() { stop(); }

void EmbeddedExchange::start() { server_->start(); }
void EmbeddedExchange::stop() { server_->stop(); }
std::uint16_t EmbeddedExchange::port() const { return server_->port(); }
std::uint64_t EmbeddedExchange::replayedEntries() const { return server_->replayedEntries(); }
Hour EmbeddedExchange::clockAtStart() const { return server_->clockAtStart(); }
ExchangeServer& EmbeddedExchange::server() { return *server_; }

void EmbeddedExchange::inject(const InputEvent& event, std::string_view account) {
  server_->inject(event, std::string(account));
}

void EmbeddedExchange::inject(const InputEvent& event, const AccountDirectory& feederAccounts) {
  const AccountId id = std::visit(
      [](const auto& e) -> AccountId {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, OrderRequest> || std::is_same_v<T, CancelRequest> ||
                      std::is_same_v<T, AmendRequest> || std::is_same_v<T, CapacityGrant>) {
          return e.account;
        } else {
          return 0;
        }
      },
      event);
  server_->inject(event, id ? feederAccounts.name(id) : std::string());
}

ExchangeConfig EmbeddedExchange::feederConfig(Hour start, std::string_view trader, std::string_view traderKey,
                                              std::string_view journalPath) {
  ExchangeConfig c = demoConfig(start, trader, traderKey, journalPath);
  c.clusters.clear();
  c.grants.clear();
  c.followWallClock = false;
  c.limits.maxOpenOrdersPerAccount = 1'000'000;  // a simulated market keeps many orders working
  return c;
}

CallModeConfig EmbeddedExchange::demoCallMode() {
  CallModeConfig c;
  c.allClusters = true;
  c.periodSeconds = 30;
  c.nodeLimit = 20'000;
  c.seconds = 1.0;
  return c;
}

ExchangeConfig EmbeddedExchange::demoConfig(Hour now, std::string_view trader, std::string_view traderKey,
                                            std::string_view journalPath) {
  ExchangeConfig c;
  c.listenAddress = "127.0.0.1";
  c.port = 0;
  c.dbPath = std::string(journalPath);
  c.initialClock = now;
  // The cheapest Argon2id: this market listens on loopback only and its keys are handed to
  // the terminal in-process; a costly hash would only slow the terminal's start and logons.
  const KeyHashCost cost = KeyHashCost::minimal();
  AccountConfig t;
  t.name = std::string(trader);
  t.keyHash = hashApiKey(traderKey, cost);
  t.cash = 1'000'000 * kMicrosPerDollar;
  c.accounts.push_back(t);
  // The demo's forward dealer (ForwardDealer) trades over the protocol like any member.
  AccountConfig dealer;
  dealer.name = std::string(kForwardDealerAccount);
  dealer.keyHash = hashApiKey(kForwardDealerAccount, cost);
  dealer.cash = 5'000'000 * kMicrosPerDollar;
  c.accounts.push_back(dealer);
  AccountConfig optionDealer = dealer;  // the option dealer (OptionDealer), funded alike
  optionDealer.name = std::string(kOptionDealerAccount);
  optionDealer.keyHash = hashApiKey(kOptionDealerAccount, cost);
  c.accounts.push_back(optionDealer);
  for (const char* house : {"house-mm", "house-provider"}) {
    AccountConfig h;
    h.name = house;
    h.house = true;
    c.accounts.push_back(h);
  }
  auto cluster = [](ClusterId id, std::string name, std::string provider, std::string region, Accelerator acc, int mem,
                    int nodes, FabricClass fabric, int carbon) {
    Cluster k;
    k.id = id;
    k.name = std::move(name);
    k.provider = std::move(provider);
    k.region = std::move(region);
    k.accelerator = acc;
    k.gpuMemoryGb = mem;
    k.gpusPerNode = 8;
    k.nodeCount = nodes;
    k.fabric = fabric;
    k.carbonGramsPerKwh = carbon;
    return k;
  };
  c.clusters = {
      cluster(1, "us-east-h100-a", "coreweave", "us-east", Accelerator::H100, 80, 32, FabricClass::InfiniBand, 380),
      cluster(2, "eu-north-h200-a", "nebius", "eu-north", Accelerator::H200, 141, 16, FabricClass::InfiniBand, 40),
      cluster(3, "us-west-mi300x-a", "lambda", "us-west", Accelerator::MI300X, 192, 8, FabricClass::RoCE, 250),
  };
  for (const Cluster& k : c.clusters) {
    c.grants.push_back(GrantConfig{"house-provider", k.name, k.totalGpus(), now, now + 7 * kHoursPerDay});
  }
  return c;
}

}  // namespace tessera::net
