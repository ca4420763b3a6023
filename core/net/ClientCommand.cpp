#include "core/net/ClientCommand.h"

#include "core/cli/Checks.h"
#include "core/domain/HourText.h"
#include "core/engine/BookQuote.h"
#include "core/engine/EventJson.h"
#include "core/cost/Interruption.h"
#include "core/cost/MarketOffers.h"
#include "core/cost/PlanCommand.h"
#include "core/cost/WorkloadJson.h"
#include "core/net/BookReplica.h"
#include "core/net/ClientOrderId.h"
#include "core/net/ClientScale.h"
#include "core/net/ExchangeClient.h"
#include "core/net/OnFill.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::net {
namespace {

constexpr const char* kFooter =
    "--connect, --account, --key, --ca, --tls and --timeout may be kept in ~/.config/tessera/cli.toml\n"
    "(connect = \"host:port\", account = \"alice\", ...); then a command needs only its verb.\n"
    "The key may also come from the environment variable TESSERA_API_KEY. Times are UTC: ISO 8601\n"
    "(2026-12-08T09:00Z), now, today, tomorrow 9am, +3d, in 5 hours, or an hour number since 1970;\n"
    "durations 72h, 3d, 3 days, 1w. Prices are dollars per GPU-hour. Without --cl-ord-id an order's client id is "
    "derived from the\n"
    "account and the order, so running the same command again after a timeout cannot trade twice:\n"
    "the exchange refuses the copy and the existing order is reported. To place an identical\n"
    "order deliberately, give it a --cl-ord-id of its own.";

std::string stateName(OrderState s) {
  switch (s) {
    case OrderState::Accepted: return "accepted";
    case OrderState::Rejected: return "rejected";
    case OrderState::PartiallyFilled: return "partially_filled";
    case OrderState::Filled: return "filled";
    case OrderState::Cancelled: return "cancelled";
    case OrderState::Amended: return "amended";
  }
  return "?";
}

// Prices per GPU-hour keep four decimals ($2.2500): they are set in fractions of a cent.
std::string dollars(Price p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(p) / kMicrosPerDollar);
  return buf;
}

double usd(Money m) { return static_cast<double>(m) / kMicrosPerDollar; }

// `tessera-cli call`: the call mode's schedule, the next call's indicative clearing and the
// last call (docs/cli.md, "call").
void printCall(std::ostream& out, bool json, const CallReport& next, const std::optional<CallReport>& last,
               const CallSchedule& schedule, const std::vector<Cluster>& clusters) {
  if (json) {
    nlohmann::json j = {{"call_mode", schedule}, {"indicative", next}};
    if (last) j["last_call"] = *last;
    out << j.dump() << "\n";
    return;
  }
  auto clusterName = [&](ClusterId id) {
    for (const Cluster& c : clusters)
      if (c.id == id) return c.name + " (" + std::to_string(id) + ")";
    return "cluster " + std::to_string(id);
  };
  if (schedule.allClusters) {
    out << "Every cluster trades in calls";
  } else {
    out << "Trading in calls:";
    for (std::size_t i = 0; i < schedule.clusters.size(); ++i)
      out << (i ? ", " : " ") << clusterName(schedule.clusters[i]);
    out << "; every other cluster trades continuously";
  }
  out << ".\n";
  if (schedule.periodSeconds > 0) {
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const std::int64_t left = std::max<std::int64_t>(0, schedule.nextCallUnix - now);
    out << "A call every " << withThousands(schedule.periodSeconds) << " s; the next in " << left / 60 << " min "
        << left % 60 << " s.\n";
  }
  if (schedule.atEachHour) out << "A call at every step of the exchange clock (each hour).\n";
  auto printReport = [&](const CallReport& r) {
    out << withThousands(r.orders) << " orders, welfare " << toDollars(r.welfare)
        << (r.optimal ? "" : " (not proven optimal, gap " + std::to_string(r.gap) + ")") << "\n";
    for (const CallPrice& p : r.prices)
      out << "  " << clusterName(p.cluster) << "  " << isoHour(p.hour) << "  $" << dollars(p.price) << "/GPU-h  "
          << withThousands(p.volume) << " GPUs\n";
    for (const CallBlock& b : r.blocks)
      out << "  block " << (b.side == Side::Buy ? "bid" : "ask") << ": " << clusterName(b.cluster) << "  "
          << isoHour(b.start) << " to " << isoHour(b.end) << "  " << withThousands(b.gpus) << " GPUs\n";
    if (r.prices.empty()) out << "  nothing would trade\n";
  };
  out << "Next call, if it ran now: ";
  printReport(next);
  if (last) {
    out << "Last call (#" << last->call << ", at " << isoHour(last->clock) << "): ";
    printReport(*last);
  }
}

// Collects the replies of one command and lets the main thread wait for the one it needs.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool failed = false;
  bool loggedOn = false;
  std::string failure;
  void finish(bool ok, std::string why = {}) {
    std::lock_guard lock(mu);
    if (done) return;  // the first answer decides
    done = true;
    failed = !ok;
    failure = std::move(why);
    cv.notify_all();
  }
  bool wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return done; });
  }
  bool isDone() {
    std::lock_guard lock(mu);
    return done;
  }
  void reset() {  // for an answer asked for again
    std::lock_guard lock(mu);
    done = failed = false;
    failure.clear();
  }
};

// $XDG_CONFIG_HOME/tessera/cli.toml, or ~/.config/tessera/cli.toml; empty without either.
std::string defaultConfigFile() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera/cli.toml";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/tessera/cli.toml";
  return {};
}

// Everything the command line can say, filled in by CLI11.
struct Args {
  std::string endpoint, account, key, caFile;
  bool tls = false;
  bool json = false;
  int timeoutSeconds = 10;

  // place, quote, buy, sell
  std::string side, fill, tif, clOrdId, orderJson;
  ClusterId cluster = 0;
  long long gpus = 0, duration = 0;
  std::string startText = "now", endText, forText;  // times as people write them (HourText)
  double limitUsd = 0;
  bool yes = false;          // buy/sell: no confirmation question
  std::string onFill;        // buy: run this once per contract the order fills
  std::string workloadFile;  // quote/buy --effective-cost, plan --workload
  // plan
  std::vector<std::string> kinds;
  double startIn = 24, latestStartIn = 168, budgetUsd = 0;
  // quote/buy: any cluster matching these instead of --cluster (all-or-none buys)
  std::vector<std::string> accelerators, regions;
  std::string minFabric;
  int maxCarbon = 0, minGpuMemory = 0;
  ContractId sellBack = 0;  // sell --contract
  // place/quote/buy/sell: interruptible capacity (docs/protocol.md, "Interruptible capacity")
  bool interruptible = false;
  long long checkpointHours = 0;
  // cancel, amend, forward-cancel, report-delivery (contract), outage (cluster)
  std::uint64_t id = 0;
  // report-delivery / outage
  long long amountGpus = 0;
  std::string problem = "missing_gpus";
  // scale
  std::string horizonText = "7d", leadText = "0h", everyText;
  double sellFloorUsd = 0;
  int rounds = 0;
  // forward
  std::string accelerator;
  long long weekStart = 0, gpuHours = 0;
  double priceUsd = 0;
  // option (also --side, --accelerator, --gpu-hours; option-cancel takes `id`)
  std::string optionKind, periodKind = "month", periodStartText;
  double strikeUsd = 0, premiumUsd = 0;
};

// --interruptible and --checkpoint-hours, on every command that places or quotes an order.
void addInterruptible(CLI::App* c, Args& a) {
  c->add_flag("--interruptible", a.interruptible,
              "trade interruptible capacity (cheaper; its provider may reclaim it with notice): a named "
              "--cluster must be an interruptible one, constraints also match interruptible clusters");
  c->add_option("--checkpoint-hours", a.checkpointHours,
                "with --interruptible, all-or-none buys: how often the job checkpoints, hours")
      ->check(cli::Positive);
}

// The subcommands and their options. `given` answers whether an option was on the command line.
class Parser {
 public:
  explicit Parser(Args& a) : app_("trade on a running tessera-exchange", "tessera-cli") {
    app_.footer(kFooter);
    app_.fallthrough();  // global options may also follow the command
    app_.require_subcommand(1, 1);
    app_.add_option("--connect", a.endpoint, "the exchange, HOST:PORT (or `connect` in the config file)")->required();
    app_.add_option("--account", a.account, "the account to log on as (or `account` in the config file)")->required();
    app_.add_option("--key", a.key, "its API key")->envname("TESSERA_API_KEY");
    app_.add_flag("--tls", a.tls, "speak TLS, verifying the exchange's certificate against the system's roots");
    app_.add_option("--ca", a.caFile, "speak TLS, verifying it against this CA certificate (PEM) instead")
        ->check(CLI::ExistingFile);
    app_.add_option("--timeout", a.timeoutSeconds, "seconds to wait for the logon and for the answer (default 10)")
        ->check(CLI::Range(1, 3600));
    app_.add_flag("--json", a.json, "JSON for scripts instead of lines for a person");
    // The daily options in a file (TOML: connect = "host:port", account, key, ca, tls,
    // timeout); the command line wins over it.
    app_.set_config("--config", defaultConfigFile(),
                    "read the options above from this TOML file (default $XDG_CONFIG_HOME/tessera/cli.toml, "
                    "else ~/.config/tessera/cli.toml, if it exists)");

    auto* place = command("place", "place an order as given (fields as in docs/protocol.md), no questions");
    opt(place, "--side", a.side, "buy or sell")->check(CLI::IsMember({"buy", "sell"}));
    opt(place, "--cluster", a.cluster, "cluster id (`clusters` lists them)");
    opt(place, "--gpus", a.gpus, "GPUs")->check(cli::Positive);
    opt(place, "--start", a.startText, "first delivery hour (a time, see below)");
    opt(place, "--end", a.endText, "end of the window, exclusive (a time)");
    opt(place, "--limit-usd", a.limitUsd, "worst price, dollars per GPU-hour")->check(cli::Positive);
    opt(place, "--fill", a.fill, "divisible (default) or all_or_none")
        ->check(CLI::IsMember({"divisible", "all_or_none"}));
    opt(place, "--tif", a.tif, "GTC (default), IOC or FOK")->check(CLI::IsMember({"GTC", "IOC", "FOK"}));
    opt(place, "--duration", a.duration, "flexible window: this many consecutive hours within it")
        ->check(cli::Positive);
    opt(place, "--cl-ord-id", a.clOrdId, "your id for the order (default: derived from the order)");
    addInterruptible(place, a);
    // Named --json for compatibility: on `place` it takes the order, not the output format.
    opt(place, "--json", a.orderJson, "the whole order as a JSON object instead of the options above");

    // quote, buy and sell describe a rectangle the same way.
    for (const char* name : {"quote", "buy", "sell"}) {
      const std::string verb = name;
      auto* c = command(name, verb == "quote" ? "what a rectangle would cost (or fetch) from the book now"
                              : verb == "buy" ? "quote, then buy a rectangle of GPUs once you confirm"
                                              : "quote, then sell (or sell back --contract N) once you confirm");
      if (verb == "quote")
        opt(c, "--side", a.side, "buy (default: what buying costs) or sell (what selling fetches)")
            ->check(CLI::IsMember({"buy", "sell"}));
      if (verb == "sell")
        opt(c, "--contract", a.sellBack, "sell back part of this contract you hold (default: all its hours to come)");
      opt(c, "--cluster", a.cluster, "cluster id (`clusters` lists them)");
      if (verb != "sell") {
        // Constraints instead of a cluster: the exchange picks the best matching cluster for an
        // all-or-none buy (docs/matching.md).
        opt(c, "--accelerator", a.accelerators, "instead of --cluster: any of these, e.g. H100,H200")->delimiter(',');
        opt(c, "--region", a.regions, "instead of --cluster: in any of these regions, e.g. us-east")->delimiter(',');
        opt(c, "--min-fabric", a.minFabric, "instead of --cluster: at least this fabric (Ethernet, RoCE, InfiniBand)")
            ->check(CLI::IsMember({"Ethernet", "RoCE", "InfiniBand"}));
        opt(c, "--max-carbon", a.maxCarbon, "instead of --cluster: at most this many gCO2/kWh")
            ->check(cli::NonNegative);
        opt(c, "--min-gpu-memory", a.minGpuMemory, "instead of --cluster: at least this many GB per GPU")
            ->check(cli::Positive);
      }
      opt(c, "--gpus", a.gpus, "GPUs")->check(cli::Positive);
      addInterruptible(c, a);
      if (verb != "sell")
        opt(c, "--effective-cost", a.workloadFile,
            "rank the matching clusters by what this workload's work costs on each (docs/cost-model.md), "
            "and send those factors with the all-or-none order")
            ->check(CLI::ExistingFile);
      opt(c, "--start", a.startText, "first hour (default now)");
      opt(c, "--end", a.endText, "end of the window, exclusive");
      opt(c, "--for", a.forText, "length of the window instead of --end: 72h, 3d, 3 days");
      opt(c, "--duration", a.duration, "flexible: this many consecutive hours anywhere in the window")
          ->check(cli::Positive);
      opt(c, "--limit-usd", a.limitUsd,
          verb == "quote" ? "take no level worse than this"
                          : "worst price per GPU-hour (default: the worst level the quote reaches)")
          ->check(cli::Positive);
      if (verb != "quote") {
        opt(c, "--fill", a.fill, "divisible (default) or all_or_none")
            ->check(CLI::IsMember({"divisible", "all_or_none"}));
        opt(c, "--tif", a.tif, "GTC (default), IOC or FOK")->check(CLI::IsMember({"GTC", "IOC", "FOK"}));
        opt(c, "--cl-ord-id", a.clOrdId, "your id for the order (default: derived from the order)");
        c->add_flag("--yes,-y", a.yes, "do not ask for confirmation (scripts)");
        if (verb == "buy")
          opt(c, "--on-fill", a.onFill,
              "keep watching the order and run this shell command once for each contract it fills, "
              "the contract in TESSERA_* variables (docs/cli.md)");
      }
    }

    auto* scale = command("scale",
                          "keep N GPUs held in every hour of a rolling horizon: buy what is missing, "
                          "sell back what is over, now and then every --every");
    opt(scale, "--gpus", a.gpus, "GPUs to hold in every hour")->required()->check(cli::Positive);
    opt(scale, "--cluster", a.cluster, "on this cluster, or on any cluster matching the constraints below");
    opt(scale, "--accelerator", a.accelerators, "any of these accelerators, e.g. H100,H200")->delimiter(',');
    opt(scale, "--region", a.regions, "in any of these regions, e.g. us-east")->delimiter(',');
    opt(scale, "--min-fabric", a.minFabric, "at least this fabric (Ethernet, RoCE, InfiniBand)")
        ->check(CLI::IsMember({"Ethernet", "RoCE", "InfiniBand"}));
    opt(scale, "--max-carbon", a.maxCarbon, "at most this many gCO2/kWh")->check(cli::NonNegative);
    opt(scale, "--min-gpu-memory", a.minGpuMemory, "at least this many GB per GPU")->check(cli::Positive);
    opt(scale, "--horizon", a.horizonText, "hold every hour of this long a window (default 7d): 72h, 3d, 1w");
    opt(scale, "--lead", a.leadText,
        "the window starts this long after the exchange clock (default 0h: the current hour)");
    opt(scale, "--limit-usd", a.limitUsd, "pay at most this per GPU-hour")->required()->check(cli::Positive);
    opt(scale, "--sell-floor-usd", a.sellFloorUsd,
        "sell back hours over the target for at least this per GPU-hour (default: never sell)")
        ->check(cli::Positive);
    opt(scale, "--every", a.everyText, "then again every this long, until Ctrl+C: 30s, 10m, 1h (default: one round)");
    opt(scale, "--rounds", a.rounds, "stop after this many rounds")->check(cli::Positive);

    auto* plan = command("plan",
                         "where a workload can run on the exchange's book now, ranked by effective cost, "
                         "with the order that buys each placement");
    opt(plan, "--workload", a.workloadFile, "the workload (docs/cost-model.md)")->required()->check(CLI::ExistingFile);
    opt(plan, "--kinds", a.kinds, "only these accelerators, e.g. H100,B200")
        ->delimiter(',')
        ->check(cli::AcceleratorName);
    opt(plan, "--start-in", a.startIn, "earliest start, hours from now (default 24)")->check(cli::NonNegative);
    opt(plan, "--latest-start-in", a.latestStartIn, "latest start, hours from now (default 168)")
        ->check(cli::NonNegative);
    opt(plan, "--budget", a.budgetUsd, "at most this effective cost, dollars")->check(cli::Positive);

    auto* cancel = command("cancel", "cancel a working order");
    cancel->add_option("order_id", a.id, "the exchange's order id")->required();
    auto* amend = command("amend", "change a working order's limit and/or GPUs");
    amend->add_option("order_id", a.id, "the exchange's order id")->required();
    opt(amend, "--limit-usd", a.limitUsd, "new limit, dollars per GPU-hour")->check(cli::Positive);
    opt(amend, "--gpus", a.gpus, "new GPU count")->check(cli::Positive);
    command("mass-cancel", "cancel every working order of the account");
    command("orders", "the account's working orders");
    command("balance", "cash, reserved, available, escrow and credits");
    command("positions", "the account's contracts, bought and sold, with their settlement state");
    command("contracts", "the account's contracts as a table: state, delivered GPU-hours, escrow, replacements");
    command("clusters", "the clusters the exchange announced at logon");
    command("call",
            "the call auction: which clusters trade in calls, the next call's indicative clearing and the "
            "last call's result");
    auto* book = command("book", "price levels of the current book");
    opt(book, "--cluster", a.cluster, "only this cluster");

    for (const char* name : {"report-delivery", "outage"}) {
      const bool outage = std::string_view(name) == "outage";
      auto* c = command(name, outage ? "providers: GPUs of one of your clusters were down"
                                     : "providers: only some of a contract's GPUs worked");
      c->add_option(outage ? "cluster" : "contract", a.id, outage ? "cluster id" : "contract id")->required();
      opt(c, "--start", a.startText, "first hour (a time)")->required();
      opt(c, "--end", a.endText, "end hour, exclusive (a time)")->required();
      opt(c, outage ? "--lost" : "--usable", a.amountGpus, outage ? "GPUs lost" : "GPUs that worked")
          ->required()
          ->check(cli::NonNegative);
      opt(c, "--problem", a.problem, "missing_gpus (default), link_degraded or power_curtailed")
          ->check(CLI::IsMember({"missing_gpus", "link_degraded", "power_curtailed"}));
    }

    auto* reclaim = command("reclaim",
                            "providers: take back GPUs of an interruptible contract you sold, "
                            "at least the cluster's notice ahead (the buyer is refunded)");
    reclaim->add_option("contract", a.id, "contract id")->required();
    opt(reclaim, "--start", a.startText, "first hour taken back (a time)")->required();
    opt(reclaim, "--end", a.endText, "end hour, exclusive (a time)")->required();
    opt(reclaim, "--gpus", a.amountGpus, "GPUs taken back")->required()->check(cli::Positive);

    auto* forward = command("forward", "a cash-settled forward on the next-day index");
    opt(forward, "--side", a.side, "buy (long the index) or sell (short)")
        ->required()
        ->check(CLI::IsMember({"buy", "sell"}));
    opt(forward, "--accelerator", a.accelerator, "accelerator class, e.g. H100")->required();
    opt(forward, "--week-start", a.weekStart, "a Monday 00:00 UTC hour")->required();
    opt(forward, "--gpu-hours", a.gpuHours, "quantity")->required()->check(cli::Positive);
    opt(forward, "--price-usd", a.priceUsd, "index level, dollars per GPU-hour")->required()->check(cli::Positive);
    auto* forwardCancel = command("forward-cancel", "cancel a working forward order");
    forwardCancel->add_option("order_id", a.id, "the forward order id")->required();
    command("forward-orders", "working forward orders and the margin they hold");
    command("forward-positions", "forward positions");

    auto* option = command("option", "buy or write a cash-settled option on the index (docs/settlement.md, Options)");
    opt(option, "--side", a.side, "buy, or sell (write)")->required()->check(CLI::IsMember({"buy", "sell"}));
    opt(option, "--accelerator", a.accelerator, "accelerator class, e.g. H100")->required();
    opt(option, "--kind", a.optionKind, "call or put")->required()->check(CLI::IsMember({"call", "put"}));
    opt(option, "--period", a.periodKind, "month (default), quarter or year")
        ->check(CLI::IsMember({"month", "quarter", "year"}));
    opt(option, "--start", a.periodStartText, "the period's first day, e.g. 2027-01-01")->required();
    opt(option, "--strike-usd", a.strikeUsd, "strike, dollars per GPU-hour")->required()->check(cli::Positive);
    opt(option, "--gpu-hours", a.gpuHours, "notional GPU-hours")->required()->check(cli::Positive);
    opt(option, "--premium-usd", a.premiumUsd, "premium, dollars per GPU-hour")->required()->check(cli::Positive);
    auto* optionCancel = command("option-cancel", "cancel a working option order");
    optionCancel->add_option("order_id", a.id, "the option order id")->required();
    auto* chain = command("option-chain", "the option chain of a class: bid, ask, reference value, IV, delta");
    opt(chain, "--accelerator", a.accelerator, "accelerator class, e.g. H100")->required();
    command("option-orders", "working option orders and what they hold");
    command("option-positions", "option positions");
  }

  CLI::App& app() { return app_; }
  std::string command() const {
    return app_.get_subcommands().empty() ? "" : app_.get_subcommands().front()->get_name();
  }
  bool given(const std::string& option) const {
    const auto subs = app_.get_subcommands();
    if (subs.empty()) return false;
    const CLI::Option* o = subs.front()->get_option_no_throw(option);
    return o != nullptr && o->count() > 0;
  }

 private:
  CLI::App* command(const std::string& name, const std::string& what) { return app_.add_subcommand(name, what); }
  template <class T>
  static CLI::Option* opt(CLI::App* c, const std::string& name, T& value, const std::string& what) {
    return c->add_option(name, value, what);
  }

  CLI::App app_;
};

int runChecked(const Args& args, const Parser& parser, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace

bool isClientCommand(std::string_view first) {
  if (first.rfind("--", 0) == 0) return first != "--help" && first != "--version";
  Args a;
  Parser p(a);
  try {
    return p.app().get_subcommand(std::string(first)) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  return runClientCommand(argc, argv, std::cin, out, err);
}

int runClientCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  Args args;
  Parser parser(args);
  // CLI11 wants the program's name first; argv[0] is already the first option or the verb.
  std::vector<char*> all{const_cast<char*>("tessera-cli")};
  all.insert(all.end(), argv, argv + argc);
  try {
    parser.app().parse(static_cast<int>(all.size()), all.data());
  } catch (const CLI::CallForHelp& e) {
    return parser.app().exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return parser.app().exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "tessera-cli: " << e.what() << "\n";
    const std::string command = parser.command();
    err << "Run 'tessera-cli --connect HOST:PORT --account A" << (command.empty() ? "" : " " + command)
        << " --help' for the options.\n";
    return 2;
  }
  return runChecked(args, parser, in, out, err);
}

namespace {

struct Window {
  Hour start = 0;
  Hour end = 0;
};

// --start and --end (or --for), resolved against the exchange's clock `now`; `fallback` fills in
// what was not given (a sell-back's contract). Returns the window or what is wrong with it.
std::variant<Window, std::string> resolveWindow(const Args& a, const Parser& p, Hour now,
                                                std::optional<Window> fallback) {
  Window w;
  if (p.given("--start") || !fallback) {
    auto start = parseHourText(a.startText, now);
    if (auto* e = std::get_if<HourTextError>(&start)) return "--start: " + e->message;
    w.start = std::get<Hour>(start);
  } else {
    w.start = fallback->start;
  }
  if (p.given("--end") && p.given("--for")) return std::string("give --end or --for, not both");
  if (p.given("--end")) {
    auto end = parseHourText(a.endText, now);
    if (auto* e = std::get_if<HourTextError>(&end)) return "--end: " + e->message;
    w.end = std::get<Hour>(end);
  } else if (p.given("--for")) {
    auto hours = parseHoursText(a.forText);
    if (auto* e = std::get_if<HourTextError>(&hours)) return "--for: " + e->message;
    w.end = w.start + std::get<Hour>(hours);
  } else if (fallback) {
    w.end = fallback->end;
  } else {
    return std::string("give --end or --for (the length of the window)");
  }
  if (w.end <= w.start) return "the window ends (" + isoHour(w.end) + ") before it starts (" + isoHour(w.start) + ")";
  return w;
}

// The levels an order on `side` takes on one cluster of a book copy: asks for a buy, bids for
// a sell. A cell the mirror lacks is empty (it holds every cell that has anything).
HourLevels levelsOf(const BookMirror& book, ClusterId cluster, Side side) {
  static const std::vector<BookLevel> kNone;
  return [&book, cluster, side](Hour h) -> const std::vector<BookLevel>* {
    const auto* l = book.levels(CellKey{cluster, h, opposite(side)});
    return l ? l : &kNone;
  };
}

std::string clusterName(const std::vector<Cluster>& clusters, ClusterId id) {
  for (const Cluster& c : clusters)
    if (c.id == id) return c.name;
  return "?";
}

void printQuote(std::ostream& out, bool json, Side side, ClusterId cluster, const std::string& name, GpuCount gpus,
                Window asked, const FillQuote& q) {
  const Hour hours = q.end - q.start;
  if (json) {
    nlohmann::json j{{"quote", side == Side::Buy ? "buy" : "sell"},
                     {"cluster", cluster},
                     {"gpus", gpus},
                     {"start", q.start},
                     {"end", q.end},
                     {"start_utc", isoHour(q.start)},
                     {"end_utc", isoHour(q.end)},
                     {"hours", hours},
                     {"wanted_gpu_hours", q.wantedGpuHours},
                     {"available_gpu_hours", q.availableGpuHours},
                     {"total_usd", usd(q.total)},
                     {"worst_usd", usd(q.worstPrice)},
                     {"all_or_none_now", q.allOrNoneNow}};
    if (auto avg = q.averagePrice()) j["average_usd"] = *avg / kMicrosPerDollar;
    out << j.dump() << "\n";
    return;
  }
  out << "quote: " << (side == Side::Buy ? "buy " : "sell ") << gpus << " GPUs on cluster " << cluster << " (" << name
      << "), " << isoHour(q.start) << " to " << isoHour(q.end) << " UTC (" << hours << " h)";
  if (q.start != asked.start || q.end != asked.end)
    out << ", the best " << hours << " h within " << isoHour(asked.start) << " to " << isoHour(asked.end);
  out << "\n  the book " << (side == Side::Buy ? "offers " : "bids for ") << q.availableGpuHours << " of "
      << q.wantedGpuHours << " GPU-hours now";
  if (auto avg = q.averagePrice()) {
    out << ": " << toDollars(q.total) << " in all, average $" << dollars(std::llround(*avg)) << "/GPU-h, worst $"
        << dollars(q.worstPrice) << "/GPU-h";
  }
  out << "\n  all-or-none: " << (q.allOrNoneNow ? "fills now" : "does not fill now") << "\n";
}

// The order a request had already placed (the exchange refused its copy as a duplicate).
void printExisting(std::ostream& out, bool json, const OrderStatusReply& s) {
  if (json) {
    out << nlohmann::json{{"state", "already_placed"},
                          {"order_id", s.orderId},
                          {"cl_ord_id", s.clOrdId},
                          {"status", s.status},
                          {"filled_gpu_hours", s.filledGpuHours},
                          {"leaves_gpu_hours", s.leavesGpuHours}}
               .dump()
        << "\n";
    return;
  }
  out << "already_placed order_id=" << s.orderId << " cl_ord_id=" << s.clOrdId << " status=" << s.status
      << " filled_gpu_hours=" << s.filledGpuHours << " leaves_gpu_hours=" << s.leavesGpuHours << "\n"
      << "(this order was placed before, by this command or an earlier run of it; nothing new was "
         "placed. To place it again, give it another --cl-ord-id.)\n";
}

// What the account holds on each cluster, hour by hour, as steps: "8 GPUs from .. to ..".
void printHeldShape(std::ostream& out, const std::vector<Cluster>& clusters, const std::vector<Contract>& contracts,
                    const std::map<ContractId, ContractStatus>& status) {
  const std::vector<HeldContract> held = heldContracts(contracts, status);
  // Per cluster bought on: the first and end hour of what was bought there (a provider's sales
  // alone are not a holding).
  std::map<ClusterId, std::pair<Hour, Hour>> span;
  for (const HeldContract& c : held) {
    if (!c.bought) continue;
    auto [it, fresh] = span.try_emplace(c.cluster, c.start, c.end);
    if (!fresh) it->second = {std::min(it->second.first, c.start), std::max(it->second.second, c.end)};
  }
  if (span.empty()) return;
  out << "held after sell-backs, replacements and reclaims, GPUs by hour (UTC):\n";
  for (const auto& [cluster, hours] : span) {
    const auto shape = heldShape(
        held, [c = cluster](ClusterId id) { return id == c; }, hours.first, hours.second);
    out << "  cluster " << cluster << " (" << clusterName(clusters, cluster) << "):";
    const auto steps = heldSteps(shape, hours.first);
    for (std::size_t i = 0; i < steps.size(); ++i)
      out << (i == 0 ? " " : ", ") << withThousands(steps[i].gpus) << " from " << isoHour(steps[i].start) << " to "
          << isoHour(steps[i].end);
    out << "\n";
  }
}

void printContracts(std::ostream& out, bool json, bool table, const std::vector<Contract>& contracts,
                    std::map<ContractId, ContractStatus> status) {
  nlohmann::json rows = nlohmann::json::array();
  char line[256];
  if (table && !json && !contracts.empty()) {
    std::snprintf(line, sizeof line, "%-9s %-6s %-7s %5s  %-17s  %-17s  %11s  %-16s %-17s %12s  %s\n", "contract",
                  "side", "cluster", "GPUs", "from (UTC)", "to (UTC)", "$/GPU-h", "state", "delivered GPU-h", "escrow",
                  "replaces");
    out << line;
  }
  for (const Contract& c : contracts) {
    const ContractStatus& s = status[c.id];
    // Not from buy_order: a replacement contract has none, and its buyer still bought it.
    const char* side = c.buyer == kOwnAccount ? "bought" : "sold";
    const std::int64_t gpuHours = static_cast<std::int64_t>(c.gpus) * (c.end - c.start);
    if (json) {
      rows.push_back({{"contract", c.id},
                      {"side", side},
                      {"cluster", c.cluster},
                      {"gpus", c.gpus},
                      {"start", c.start},
                      {"end", c.end},
                      {"start_utc", isoHour(c.start)},
                      {"end_utc", isoHour(c.end)},
                      {"price_usd", usd(c.price)},
                      {"state", s.state},
                      {"delivered_gpu_hours", s.deliveredGpuHours},
                      {"gpu_hours", gpuHours},
                      {"escrow_usd", usd(s.escrow)},
                      {"replaces", s.replaces}});
    } else if (table) {
      const std::string delivered = std::to_string(s.deliveredGpuHours) + "/" + std::to_string(gpuHours);
      std::snprintf(line, sizeof line, "%-9llu %-6s %-7u %5d  %-17s  %-17s  %11s  %-16s %-17s %12s  %s\n",
                    static_cast<unsigned long long>(c.id), side, static_cast<unsigned>(c.cluster), c.gpus,
                    isoHour(c.start).c_str(), isoHour(c.end).c_str(), ("$" + dollars(c.price)).c_str(), s.state.c_str(),
                    delivered.c_str(), toDollars(s.escrow).c_str(),
                    s.replaces ? std::to_string(s.replaces).c_str() : "");
      out << line;
    } else {
      out << "contract=" << c.id << " " << side << " cluster=" << c.cluster << " gpus=" << c.gpus << " hours=["
          << c.start << "," << c.end << ") price=$" << dollars(c.price) << " state=" << s.state
          << " delivered_gpu_hours=" << s.deliveredGpuHours << "/" << gpuHours << " escrow=$" << dollars(s.escrow);
      if (s.replaces) out << " replaces=" << s.replaces;
      out << "\n";
    }
  }
  if (json)
    out << rows.dump() << "\n";
  else if (contracts.empty())
    out << "no contracts\n";
}

void printBook(std::ostream& out, bool json, const std::vector<BookCell>& all, std::optional<ClusterId> cluster) {
  std::vector<BookCell> cells;
  for (const BookCell& c : all)
    if (!cluster || c.key.cluster == *cluster) cells.push_back(c);
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const BookCell& c : cells) {
      nlohmann::json levels = nlohmann::json::array();
      for (const BookLevel& l : c.levels) levels.push_back({{"price_usd", usd(l.price)}, {"gpus", l.gpus}});
      a.push_back({{"cluster", c.key.cluster},
                   {"hour", c.key.hour},
                   {"hour_utc", isoHour(c.key.hour)},
                   {"side", c.key.side == Side::Buy ? "bids" : "asks"},
                   {"levels", levels}});
    }
    out << a.dump() << "\n";
    return;
  }
  for (const BookCell& c : cells) {
    out << "cluster=" << c.key.cluster << " hour=" << c.key.hour << " " << (c.key.side == Side::Buy ? "bids" : "asks")
        << ":";
    for (const BookLevel& l : c.levels) out << " " << l.gpus << "@$" << dollars(l.price);
    out << "\n";
  }
  if (cells.empty()) {
    if (cluster)
      out << "nothing rests on cluster " << *cluster << ": no bids, no asks\n";
    else
      out << "the book is empty\n";
  }
}

// "30s", "10m", "1h", "2h" as seconds (at least one); nothing for anything else.
std::optional<long long> parseSecondsText(const std::string& text) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  const long long scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (scale == 0 || n <= 0 || n > 366LL * 24 * 3600 / scale) return std::nullopt;
  return n * scale;
}

// An order's news (accepted, filled, cancelled, ...) as one line of text or JSON.
void printOrderUpdate(std::ostream& out, bool json, const OrderUpdate& u) {
  if (json) {
    nlohmann::json j{{"state", stateName(u.state)}, {"order_id", u.orderId}, {"cl_ord_id", u.clOrdId}};
    if (u.state == OrderState::Rejected) j.update({{"code", u.code}, {"reason", u.reason}});
    if (u.state == OrderState::Filled || u.state == OrderState::PartiallyFilled)
      j.update({{"cluster", u.cluster},
                {"gpus", u.gpus},
                {"start", u.start},
                {"end", u.end},
                {"price_usd", usd(u.price)},
                {"leaves_gpu_hours", u.leavesGpuHours}});
    if (u.state == OrderState::Cancelled) j["code"] = u.code;
    if (u.state == OrderState::Amended) j.update({{"limit_usd", usd(u.limit)}, {"gpus", u.gpus}});
    out << j.dump() << "\n";
  } else {
    out << stateName(u.state) << " order_id=" << u.orderId << " cl_ord_id=" << u.clOrdId;
    if (u.state == OrderState::Rejected) out << " code=" << u.code << " reason=\"" << u.reason << "\"";
    if (u.state == OrderState::Filled || u.state == OrderState::PartiallyFilled) {
      out << " gpus=" << u.gpus << " hours=[" << u.start << "," << u.end << ") price=$" << dollars(u.price)
          << " leaves_gpu_hours=" << u.leavesGpuHours;
    }
    if (u.state == OrderState::Cancelled) out << " code=" << u.code;
    if (u.state == OrderState::Amended) out << " limit=$" << dollars(u.limit) << " gpus=" << u.gpus;
    out << "\n";
  }
}

// The account's resting forward orders and the margin they hold.
void printForwardOrders(std::ostream& out, bool json, const std::vector<ForwardWorkingOrder>& list, Money held) {
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const ForwardWorkingOrder& o : list)
      a.push_back({{"order_id", o.orderId},
                   {"cl_ord_id", o.clOrdId},
                   {"side", std::string(toString(o.side))},
                   {"accelerator", std::string(toString(o.accelerator))},
                   {"week_start", o.weekStart},
                   {"leaves_gpu_hours", o.leavesGpuHours},
                   {"price_usd", usd(o.price)}});
    out << nlohmann::json{{"orders", a}, {"margin_held_usd", usd(held)}}.dump() << "\n";
  } else {
    for (const ForwardWorkingOrder& o : list)
      out << "order_id=" << o.orderId << " cl_ord_id=" << o.clOrdId << " " << toString(o.side) << " "
          << toString(o.accelerator) << " week_start=" << o.weekStart << " leaves_gpu_hours=" << o.leavesGpuHours
          << " price=$" << dollars(o.price) << "\n";
    out << "margin held by resting orders: $" << dollars(held) << "\n";
  }
}

// The account's forward positions.
void printForwardPositions(std::ostream& out, bool json, const std::vector<ForwardPositionView>& list) {
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const ForwardPositionView& p : list)
      a.push_back({{"position", p.position},
                   {"side", p.isLong ? "long" : "short"},
                   {"accelerator", std::string(toString(p.accelerator))},
                   {"week_start", p.weekStart},
                   {"gpu_hours", p.gpuHours},
                   {"price_usd", usd(p.price)},
                   {"status", p.status},
                   {"margin_usd", usd(p.margin)},
                   {"last_mark_usd", usd(p.lastMark)}});
    out << a.dump() << "\n";
  } else {
    for (const ForwardPositionView& p : list)
      out << "position=" << p.position << " " << (p.isLong ? "long" : "short") << " " << toString(p.accelerator)
          << " week_start=" << p.weekStart << " gpu_hours=" << p.gpuHours << " price=$" << dollars(p.price)
          << " status=" << p.status << " margin=$" << dollars(p.margin) << " last_mark=$" << dollars(p.lastMark)
          << "\n";
    if (list.empty()) out << "no forward positions\n";
  }
}

// The account's resting option orders and what they hold.
void printOptionOrders(std::ostream& out, bool json, const std::vector<OptionWorkingOrder>& list, Money held) {
  for (const OptionWorkingOrder& o : list)
    out << (json ? nlohmann::json{{"order_id", o.orderId},
                                  {"cl_ord_id", o.clOrdId},
                                  {"side", std::string(toString(o.side))},
                                  {"series", indexoptions::seriesName(o.series)},
                                  {"leaves_gpu_hours", o.leavesGpuHours},
                                  {"premium_usd", usd(o.premium)}}
                       .dump()
                 : "order_id=" + std::to_string(o.orderId) + " " + std::string(toString(o.side)) + " " +
                       indexoptions::seriesName(o.series) + " leaves_gpu_hours=" + std::to_string(o.leavesGpuHours) +
                       " premium=" + toDollars(o.premium))
        << "\n";
  if (!json) out << "held by resting option orders: " << toDollars(held) << "\n";
}

// The account's option positions.
void printOptionPositions(std::ostream& out, bool json, const std::vector<OptionPositionView>& list) {
  for (const OptionPositionView& p : list)
    out << (json ? nlohmann::json{{"position", p.position},
                                  {"side", p.isLong ? "long" : "short"},
                                  {"series", indexoptions::seriesName(p.series)},
                                  {"gpu_hours", p.gpuHours},
                                  {"premium_usd", usd(p.premium)},
                                  {"status", p.status},
                                  {"margin_usd", usd(p.margin)},
                                  {"value_usd", usd(p.value)},
                                  {"paid_usd", usd(p.paid)},
                                  {"unpaid_usd", usd(p.unpaid)}}
                       .dump()
                 : "position=" + std::to_string(p.position) + " " + (p.isLong ? "long " : "short ") +
                       indexoptions::seriesName(p.series) + " gpu_hours=" + std::to_string(p.gpuHours) +
                       " premium=" + toDollars(p.premium) + " status=" + p.status + " margin=" + toDollars(p.margin) +
                       " value=" + toDollars(p.value))
        << "\n";
  if (list.empty() && !json) out << "no option positions\n";
}

// An accelerator's option chain: each listed series with its bid, ask, reference value and greeks.
void printOptionChain(std::ostream& out, bool json, const OptionChainView& chain) {
  auto cell = [](const std::optional<Price>& p) { return p ? toDollars(*p) : std::string("-"); };
  for (const OptionChainRow& r : chain.rows) {
    if (json) {
      nlohmann::json row{{"series", indexoptions::seriesName(r.series)}};
      if (r.bid) row["bid_usd"] = usd(*r.bid);
      if (r.ask) row["ask_usd"] = usd(*r.ask);
      if (r.value) row["value_usd"] = usd(*r.value);
      if (r.iv) row["iv"] = *r.iv;
      if (r.delta) row["delta"] = *r.delta;
      out << row.dump() << "\n";
    } else {
      char greek[64];
      std::snprintf(greek, sizeof greek, " iv=%s delta=%s",
                    r.iv ? (std::to_string(std::llround(*r.iv * 100)) + "%").c_str() : "-",
                    r.delta ? std::to_string(*r.delta).substr(0, 6).c_str() : "-");
      out << indexoptions::seriesName(r.series) << " bid=" << cell(r.bid) << " ask=" << cell(r.ask)
          << " value=" << cell(r.value) << greek << "\n";
    }
  }
  if (chain.rows.empty() && !json) out << "no listed option series have a reference value yet\n";
}

// The account's cash, reserved, available, escrow and credits.
void printBalance(std::ostream& out, bool json, const Balance& b) {
  if (json) {
    out << nlohmann::json{{"cash_usd", usd(b.cash)},
                          {"reserved_usd", usd(b.reserved)},
                          {"available_usd", usd(b.available())},
                          {"escrow_usd", usd(b.escrow)},
                          {"credits_usd", usd(b.credits)}}
               .dump()
        << "\n";
  } else {
    out << "cash=$" << dollars(b.cash) << " reserved=$" << dollars(b.reserved) << " available=$"
        << dollars(b.available()) << " escrow=$" << dollars(b.escrow) << " credits=$" << dollars(b.credits) << "\n";
  }
}

// --effective-cost: what the workload costs on each candidate cluster, best first.
void printEffectiveCost(std::ostream& out, bool json, const cost::WorkloadProfile& workload, const FillQuote& quote,
                        const std::vector<cost::ClusterRanking>& ranking) {
  nlohmann::json rows = nlohmann::json::array();
  if (!json)
    out << "effective cost of " << workload.name << " (" << workload.gpus() << " GPUs), " << isoHour(quote.start)
        << " to " << isoHour(quote.end) << " UTC:\n";
  for (const cost::ClusterRanking& r : ranking) {
    const auto* b = std::get_if<cost::CostBreakdown>(&r.result);
    if (json) {
      nlohmann::json row{{"cluster", r.cluster.id}};
      if (b)
        row.update({{"ask_usd", b->pricePerGpuHour},
                    {"effective_usd", b->effectivePricePerGpuHour},
                    {"factor_ppm", b->pricePerGpuHour > 0 ? cost::costFactorPpm(*b) : 0}});
      else
        row["cannot"] = std::get<cost::CostError>(r.result).message;
      rows.push_back(row);
    } else if (b) {
      char line[200];
      std::snprintf(line, sizeof line, "  cluster %u (%s): ask $%.4f/GPU-h, $%.4f per GPU-hour of compute (x%.3f)\n",
                    static_cast<unsigned>(r.cluster.id), r.cluster.name.c_str(), b->pricePerGpuHour,
                    b->effectivePricePerGpuHour,
                    b->pricePerGpuHour > 0 ? b->effectivePricePerGpuHour / b->pricePerGpuHour : 0.0);
      out << line;
    } else {
      out << "  cluster " << r.cluster.id << " (" << r.cluster.name
          << "): " << std::get<cost::CostError>(r.result).message << "\n";
    }
  }
  if (json) out << nlohmann::json{{"effective_cost", rows}}.dump() << "\n";
}

// place's order as the engine's JSON (from --json, or from the options; the window is resolved
// after logon, against the exchange's clock); nullopt after saying what is missing.
std::optional<nlohmann::json> placeRequest(const Args& args, const Parser& parser, std::ostream& err) {
  nlohmann::json j;
  if (parser.given("--json")) {
    j = nlohmann::json::parse(args.orderJson, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      err << "tessera-cli: --json is not a JSON object\n";
      return std::nullopt;
    }
  } else {
    for (const char* required : {"--side", "--cluster", "--gpus", "--start", "--end", "--limit-usd"}) {
      if (!parser.given(required)) {
        err << "tessera-cli: place needs " << required << " (or --json)\n";
        return std::nullopt;
      }
    }
    j["side"] = args.side;
    j["cluster"] = args.cluster;
    j["gpus"] = args.gpus;
    j["limit"] = std::llround(args.limitUsd * kMicrosPerDollar);
    if (parser.given("--fill")) j["fill"] = args.fill;
    if (parser.given("--tif")) j["tif"] = args.tif;
    if (parser.given("--duration")) j["duration"] = args.duration;
    if (args.interruptible) j["interruptible"] = true;
    if (parser.given("--checkpoint-hours")) j["checkpoint_hours"] = args.checkpointHours;
  }
  return j;
}

// Where and how to connect (--connect HOST:PORT, account, key, TLS); nullopt after saying
// what is wrong with the endpoint.
std::optional<ClientOptions> clientOptions(const Args& args, const std::string& command, bool quoting,
                                           std::ostream& err) {
  const auto colon = args.endpoint.rfind(':');
  char* portEnd = nullptr;
  const long port = colon == std::string::npos ? 0 : std::strtol(args.endpoint.c_str() + colon + 1, &portEnd, 10);
  if (colon == std::string::npos || colon == 0 || *portEnd != '\0' || port <= 0 || port > 65535) {
    err << "tessera-cli: --connect wants HOST:PORT, got '" << args.endpoint << "'\n";
    return std::nullopt;
  }
  ClientOptions options;
  options.host = args.endpoint.substr(0, colon);
  options.port = static_cast<std::uint16_t>(port);
  options.account = args.account;
  options.key = args.key;
  options.marketData = command == "book" || command == "plan" || quoting;
  options.backoffMax = std::chrono::milliseconds(500);
  options.tls = args.tls || !args.caFile.empty();
  options.caFile = args.caFile;
  return options;
}

// The constraints of a buy by constraints (--accelerator, --region, ...; nothing when none is
// given) and the options quote, buy, sell and scale need beside them; nullopt after saying what
// is wrong.
std::optional<std::optional<ClusterConstraints>> readConstraints(const Args& args, const Parser& parser,
                                                                 const std::string& command, bool sellBack,
                                                                 std::ostream& err) {
  std::optional<ClusterConstraints> constraints;
  ClusterConstraints c;
  for (const std::string& name : args.accelerators) {
    auto a = parseAccelerator(name);
    if (!a) {
      err << "tessera-cli: unknown accelerator '" << name << "'\n";
      return std::nullopt;
    }
    c.accelerators.push_back(*a);
  }
  c.regions = args.regions;
  if (parser.given("--min-fabric")) c.minFabric = parseFabricClass(args.minFabric);
  if (parser.given("--max-carbon")) c.maxCarbonGramsPerKwh = args.maxCarbon;
  c.minGpuMemoryGb = args.minGpuMemory;
  if (!(c == ClusterConstraints{})) constraints = c;
  if (constraints) constraints->acceptsInterruptible = args.interruptible;
  if (constraints && parser.given("--cluster")) {
    err << "tessera-cli: give --cluster or constraints (--accelerator, --region, ...), not both\n";
    return std::nullopt;
  }
  if (constraints && command == "quote" && args.side == "sell") {
    err << "tessera-cli: constraints are for buying; a sell names its --cluster\n";
    return std::nullopt;
  }
  if (constraints && args.fill == "divisible") {
    err << "tessera-cli: a buy by constraints is all-or-none (it takes one whole cluster)\n";
    return std::nullopt;
  }
  std::vector<const char*> required;
  if (!parser.given("--effective-cost")) required.push_back("--gpus");  // else the workload's
  if (!constraints) required.push_back("--cluster");
  for (const char* option : sellBack ? std::vector<const char*>{} : required) {
    if (!parser.given(option)) {
      err << "tessera-cli: " << command << " needs " << option
          << (std::string_view(option) == "--cluster" ? " (or constraints: --accelerator, --region, ...)" : "") << "\n";
      return std::nullopt;
    }
  }
  return constraints;
}

// tessera-cli scale: the target from the options, then rounds of buying and selling towards it.
int runScaleCommand(const Args& args, const Parser& parser, const std::optional<ClusterConstraints>& constraints,
                    const ClientOptions& options, std::ostream& out, std::ostream& err) {
  const bool json = args.json;
  const std::chrono::seconds timeout(args.timeoutSeconds);
  ScaleSettings s;
  s.target.gpus = static_cast<GpuCount>(args.gpus);
  if (constraints)
    s.target.constraints = *constraints;
  else
    s.target.cluster = args.cluster;
  for (auto [text, into, name] : {std::tuple{&args.horizonText, &s.target.horizonHours, "--horizon"},
                                  std::tuple{&args.leadText, &s.target.leadHours, "--lead"}}) {
    // A lead may be nothing; a horizon may not (parseHoursText wants a positive span).
    if (std::string_view(name) == "--lead" && (*text == "0" || *text == "0h")) {
      *into = 0;
      continue;
    }
    auto hours = parseHoursText(*text);
    if (auto* e = std::get_if<HourTextError>(&hours)) {
      err << "tessera-cli: " << name << ": " << e->message << "\n";
      return 2;
    }
    *into = std::get<Hour>(hours);
  }
  if (s.target.horizonHours <= 0 || s.target.horizonHours > 24 * 366) {
    err << "tessera-cli: --horizon: between 1 hour and a year\n";
    return 2;
  }
  s.target.limit = std::llround(args.limitUsd * kMicrosPerDollar);
  if (parser.given("--sell-floor-usd")) s.target.sellFloor = std::llround(args.sellFloorUsd * kMicrosPerDollar);
  if (parser.given("--every")) {
    auto seconds = parseSecondsText(args.everyText);
    if (!seconds) {
      err << "tessera-cli: --every: a length such as 30s, 10m or 1h was expected, got '" << args.everyText << "'\n";
      return 2;
    }
    s.every = std::chrono::seconds(*seconds);
  }
  s.rounds = args.rounds;
  s.json = json;
  s.timeout = timeout;
  return runScale(options, s, out, err);
}

// What a command's run shares between the client's io thread (the callbacks) and the command's
// own thread: the waiters of the answers it wants, and what the answers brought.
struct CommandState {
  std::string command;
  bool trading = false;  // place, buy, sell: an order goes under placedClOrdId
  bool json = false;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  Waiter w;               // the command's answer
  Waiter bookReady;       // the first book snapshot (book, quote, buy, sell)
  Waiter positionsReady;  // the contracts and their status (positions, contracts, sell --contract)
  Waiter ratesReady;      // the observed reclaim rates (--effective-cost with interruptible candidates)
  Waiter statusW;         // buy/sell's order_status of their own id (precheck)
  std::map<ClusterId, ReclaimRate> reclaimRates;
  std::mutex outMu;
  std::string placedClOrdId;        // the id the order goes under; guarded by outMu
  std::vector<Contract> contracts;  // positions: the contracts, then their status
  std::map<ContractId, ContractStatus> contractStatus;
  ExchangeClient* client = nullptr;       // set before the client starts; callbacks run only after
  OrderId ourOrder = 0;                   // --on-fill: the order watched; guarded by outMu
  bool ourOrderDone = false;              // filled completely, cancelled or refused; guarded by outMu
  std::uint64_t ourOrderMoves = 0;        // fills and ends seen; guarded by outMu
  std::condition_variable ourOrderMoved;  // a fill or the end of the order (with outMu)
  // buy/sell ask for their order by id before quoting (precheck); a duplicate's status comes after.
  bool precheck = false;  // guarded by outMu
  std::optional<OrderStatusReply> existing;
};

// The client's callbacks for the command: each prints what its answer brought (under outMu) and
// wakes the waiter the command waits on.
ClientCallbacks commandCallbacks(CommandState& st) {
  const std::string& command = st.command;
  const bool& trading = st.trading;
  const bool& json = st.json;
  std::ostream& out = *st.out;
  std::ostream& err = *st.err;
  // The shared state under the names the callbacks use (each lambda captures these references).
  Waiter& w = st.w;
  Waiter& bookReady = st.bookReady;
  Waiter& positionsReady = st.positionsReady;
  Waiter& ratesReady = st.ratesReady;
  Waiter& statusW = st.statusW;
  std::mutex& outMu = st.outMu;
  auto& reclaimRates = st.reclaimRates;
  auto& placedClOrdId = st.placedClOrdId;
  auto& contracts = st.contracts;
  auto& contractStatus = st.contractStatus;
  auto& ourOrder = st.ourOrder;
  auto& ourOrderDone = st.ourOrderDone;
  auto& ourOrderMoves = st.ourOrderMoves;
  auto& ourOrderMoved = st.ourOrderMoved;
  auto& precheck = st.precheck;
  auto& existing = st.existing;
  ClientCallbacks cb;
  cb.onConnection = [&](ConnectionState s, const std::string& detail) {
    if (s == ConnectionState::LoggedOn) {
      std::lock_guard lock(w.mu);
      w.loggedOn = true;
      w.cv.notify_all();
    } else if (s == ConnectionState::AuthFailed) {
      w.finish(false, "logon refused: " + detail);
    } else if (s == ConnectionState::Disconnected) {
      std::lock_guard lock(outMu);
      err << "tessera-cli: " << detail << "\n";
    }
  };
  cb.onOrder = [&](const OrderUpdate& u) {
    bool ours;
    {
      std::lock_guard lock(outMu);
      ours = trading && !placedClOrdId.empty() && u.clOrdId == placedClOrdId;
    }
    // The copy of an order already placed: report the order that exists instead.
    if (ours && u.state == OrderState::Rejected && u.code == "duplicate_cl_ord_id") {
      st.client->requestOrderStatus(u.clOrdId);
      return;
    }
    if (ours) {
      std::lock_guard lock(outMu);
      if (u.orderId != 0) ourOrder = u.orderId;
      if ((u.state == OrderState::Filled && u.leavesGpuHours == 0) || u.state == OrderState::Cancelled ||
          u.state == OrderState::Rejected)
        ourOrderDone = true;
      ++ourOrderMoves;
      ourOrderMoved.notify_all();
    }
    {
      std::lock_guard lock(outMu);
      printOrderUpdate(out, json, u);
    }
    if (ours && (u.state == OrderState::Accepted || u.state == OrderState::Rejected)) {
      w.finish(u.state == OrderState::Accepted, u.reason);
    }
    if ((command == "cancel" && u.state == OrderState::Cancelled) ||
        (command == "amend" && u.state == OrderState::Amended)) {
      w.finish(true);
    }
  };
  cb.onOrderStatus = [&](const OrderStatusReply& s) {
    {
      std::lock_guard lock(outMu);
      if (!trading || s.clOrdId != placedClOrdId) return;
      if (precheck) {
        existing = s;
      } else {
        printExisting(out, json, s);
      }
    }
    statusW.finish(true);
    if (!precheck) w.finish(true);
  };
  cb.onError = [&](const RequestError& e) {
    if (e.requestType == "order_status") {
      bool before;
      {
        std::lock_guard lock(outMu);
        before = precheck;
      }
      if (before) {
        statusW.finish(false, e.code);  // unknown_order: not placed yet
        return;
      }
    }
    w.finish(false, e.code + ": " + e.reason);
    positionsReady.finish(false, e.code + ": " + e.reason);
  };
  cb.onReportAck = [&](const std::string& type) {
    {
      std::lock_guard lock(outMu);
      out << (json ? nlohmann::json{{"ack", type}}.dump() : type) << "\n";
    }
    w.finish(true);
  };
  const bool forwardCommand = command.rfind("forward", 0) == 0;
  if (forwardCommand) {
    cb.onForwardEvent = [&](const std::string& type, const std::string& text) {
      {
        std::lock_guard lock(outMu);
        out << (json ? nlohmann::json{{"event", type}, {"text", text}}.dump() : text) << "\n";
      }
      if (type == "forward_rejected")
        w.finish(false, text);
      else if ((command == "forward" && type == "forward_accepted") ||
               (command == "forward-cancel" && type == "forward_cancelled"))
        w.finish(true);
    };
    cb.onForwardOrders = [&](const std::vector<ForwardWorkingOrder>& list, Money held) {
      if (command != "forward-orders") return;
      {
        std::lock_guard lock(outMu);
        printForwardOrders(out, json, list, held);
      }
      w.finish(true);
    };
    cb.onForwardPositions = [&](const std::vector<ForwardPositionView>& list) {
      if (command != "forward-positions") return;
      {
        std::lock_guard lock(outMu);
        printForwardPositions(out, json, list);
      }
      w.finish(true);
    };
  }
  if (command.rfind("option", 0) == 0) {
    cb.onOptionEvent = [&](const OptionEventView& e) {
      const std::string& type = e.type;
      const std::string& text = e.text;
      {
        std::lock_guard lock(outMu);
        out << (json ? nlohmann::json{{"event", type}, {"text", text}}.dump() : text) << "\n";
      }
      if (type == "option_rejected")
        w.finish(false, text);
      else if ((command == "option" && type == "option_accepted") ||
               (command == "option-cancel" && type == "option_cancelled"))
        w.finish(true);
    };
    cb.onOptionOrders = [&](const std::vector<OptionWorkingOrder>& list, Money held) {
      if (command != "option-orders") return;
      {
        std::lock_guard lock(outMu);
        printOptionOrders(out, json, list, held);
      }
      w.finish(true);
    };
    cb.onOptionPositions = [&](const std::vector<OptionPositionView>& list) {
      if (command != "option-positions") return;
      {
        std::lock_guard lock(outMu);
        printOptionPositions(out, json, list);
      }
      w.finish(true);
    };
    cb.onOptionChain = [&](const OptionChainView& chain) {
      if (command != "option-chain") return;
      {
        std::lock_guard lock(outMu);
        printOptionChain(out, json, chain);
      }
      w.finish(true);
    };
  }
  cb.onSettlement = [&](const SettlementNotice& n) {
    std::lock_guard lock(outMu);
    if (json) {
      out << nlohmann::json{{"settlement", n.contract}, {"state", n.state}, {"what", n.what}}.dump() << "\n";
    } else {
      out << "settlement contract=" << n.contract << " state=" << n.state << " " << n.what << "\n";
    }
  };
  cb.onCall = [&](const CallReport& report, bool indicative) {
    if (command != "call" || !indicative || w.isDone()) return;
    {
      std::lock_guard lock(outMu);
      printCall(out, json, report, st.client ? st.client->lastCall() : std::nullopt,
                st.client ? st.client->callSchedule() : CallSchedule{},
                st.client ? st.client->clusters() : std::vector<Cluster>{});
    }
    w.finish(true);
  };
  cb.onBalance = [&](const Balance& b) {
    if (command != "balance" || w.isDone()) return;  // the answer, not a later push
    {
      std::lock_guard lock(outMu);
      printBalance(out, json, b);
    }
    w.finish(true);
  };
  cb.onOrders = [&](const std::vector<WorkingOrder>& list) {
    if (w.isDone()) return;
    {
      std::lock_guard lock(outMu);
      for (const WorkingOrder& o : list) {
        nlohmann::json j = toJson(o.request);
        j["cl_ord_id"] = o.clOrdId;
        j["filled_gpu_hours"] = o.filledGpuHours;
        j["leaves_gpu_hours"] = o.leavesGpuHours;
        out << j.dump() << "\n";
      }
      if (list.empty() && !json) out << "no working orders\n";
    }
    w.finish(true);
  };
  // The contracts come first, their settlement status right after on the same thread.
  cb.onPositions = [&](const std::vector<Contract>& list) {
    std::lock_guard lock(outMu);
    contracts = list;
  };
  cb.onContractStatus = [&](const std::vector<ContractStatus>& status) {
    {
      std::lock_guard lock(outMu);
      for (const ContractStatus& s : status) contractStatus[s.contract] = s;
    }
    positionsReady.finish(true);
    if (command == "positions" || command == "contracts") w.finish(true);
  };
  cb.onReclaimRates = [&](const std::vector<ReclaimRate>& rates) {
    {
      std::lock_guard lock(outMu);
      for (const ReclaimRate& r : rates) reclaimRates[r.cluster] = r;
    }
    ratesReady.finish(true);
  };
  cb.onBook = [&](const std::vector<BookCell>&, bool snapshot) {
    if (!snapshot) return;
    bookReady.finish(true);
    if (command == "book") w.finish(true);
  };

  return cb;
}

// buy --on-fill: after the order is placed (or found placed by an earlier run), list the
// account's contracts after every fill (and every few seconds) and run the command once for
// each contract of the order that the state file has not seen, until the order is done.
int watchFills(CommandState& st, ExchangeClient& client, const Args& args, const std::vector<Cluster>& clusters,
               std::chrono::seconds timeout) {
  std::ostream& out = *st.out;
  std::ostream& err = *st.err;
  OnFillState state(defaultOnFillStatePath(args.endpoint, args.account));
  if (state.error()) {
    err << "tessera-cli: --on-fill: " << *state.error() << "\n";
    client.stop();
    return 1;
  }
  OrderId order;
  std::string clOrdId;
  {
    std::lock_guard lock(st.outMu);
    order = st.ourOrder;
    clOrdId = st.placedClOrdId;
    out << "on-fill: watching order " << order << "; `" << args.onFill
        << "` runs once for each contract it fills (state: " << state.path() << ")\n"
        << std::flush;
  }
  for (;;) {
    bool doneBefore;
    std::uint64_t movesBefore;
    {
      std::lock_guard lock(st.outMu);
      doneBefore = st.ourOrderDone;
      movesBefore = st.ourOrderMoves;
    }
    st.positionsReady.reset();
    client.requestPositions();
    if (!st.positionsReady.wait(timeout) || st.positionsReady.failed) {
      err << "tessera-cli: --on-fill: could not list the account's contracts (" << st.positionsReady.failure
          << "); trying again\n";
    } else {
      std::vector<Contract> filled;
      {
        std::lock_guard lock(st.outMu);
        for (const Contract& c : st.contracts)
          if (c.buyer == kOwnAccount && c.buyOrder == order && !state.started(c.id)) filled.push_back(c);
      }
      for (const Contract& c : filled) {
        if (!state.markStarted(c.id)) {
          err << "tessera-cli: --on-fill: cannot write " << state.path() << "; the command was not run for contract "
              << c.id << "\n";
          client.stop();
          return 1;
        }
        {
          std::lock_guard lock(st.outMu);
          out << "on-fill: contract " << c.id << " (" << withThousands(c.gpus) << " GPUs on cluster " << c.cluster
              << ", " << isoHour(c.start) << " to " << isoHour(c.end) << " UTC): running `" << args.onFill << "`\n"
              << std::flush;
        }
        const int status = runOnFillCommand(
            args.onFill, OnFillContract{c, clusterName(clusters, c.cluster), clOrdId, args.account, args.endpoint});
        state.markExited(c.id, status);
        std::lock_guard lock(st.outMu);
        out << "on-fill: contract " << c.id << ": the command "
            << (status < 0 ? std::string("could not be started") : "exited with status " + std::to_string(status))
            << "\n"
            << std::flush;
      }
      if (doneBefore) break;
    }
    std::unique_lock lock(st.outMu);
    st.ourOrderMoved.wait_for(lock, std::chrono::seconds(5), [&] { return st.ourOrderMoves != movesBefore; });
  }
  {
    std::lock_guard lock(st.outMu);
    out << "on-fill: order " << order << " is done; every contract it filled has had its command\n";
  }
  client.stop();
  return 0;
}

int runChecked(const Args& args, const Parser& parser, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string command = parser.command();
  const bool quoting = command == "quote" || command == "buy" || command == "sell";
  const bool trading = command == "place" || command == "buy" || command == "sell";
  const auto connect = clientOptions(args, command, quoting, err);
  if (!connect) return 2;
  const ClientOptions& options = *connect;
  const std::chrono::seconds timeout(args.timeoutSeconds);
  const bool json = args.json;

  // What can be checked before connecting is checked before connecting: a bad command never
  // costs a logon.
  std::optional<nlohmann::json> placeJson;
  if (command == "place") {
    placeJson = placeRequest(args, parser, err);
    if (!placeJson) return 2;
  }
  const bool sellBack = command == "sell" && parser.given("--contract");
  std::optional<ClusterConstraints> constraints;
  if (quoting || command == "scale") {
    auto read = readConstraints(args, parser, command, sellBack, err);
    if (!read) return 2;
    constraints = *read;
  }
  // The workload of --effective-cost and plan, read before connecting.
  std::optional<cost::WorkloadProfile> workload;
  if (!args.workloadFile.empty()) {
    auto loaded = cost::loadWorkloadFile(args.workloadFile);
    if (auto* e = std::get_if<cost::LoadError>(&loaded)) {
      err << "tessera-cli: " << e->message << "\n";
      return 2;
    }
    workload = std::get<cost::WorkloadProfile>(loaded);
    if (workload->name.empty()) workload->name = args.workloadFile;
    if (quoting && parser.given("--gpus") && args.gpus != workload->gpus()) {
      err << "tessera-cli: the workload runs on " << workload->gpus() << " GPUs; --gpus says " << args.gpus << "\n";
      return 2;
    }
    if (command == "buy" && !constraints && args.fill != "all_or_none") {
      err << "tessera-cli: --effective-cost ranks the clusters of an all-or-none buy: give constraints "
             "(--accelerator, --region, ...) or --fill all_or_none\n";
      return 2;
    }
  }
  cost::PlanRequest planRequest;
  if (command == "plan") {
    for (const std::string& name : args.kinds) {
      auto a = parseAccelerator(name);
      if (!a) {
        err << "tessera-cli: unknown accelerator '" << name << "' in --kinds\n";
        return 2;
      }
      planRequest.accelerators.push_back(*a);
    }
    planRequest.workload = *workload;
    if (parser.given("--budget")) planRequest.budgetDollars = args.budgetUsd;
  }
  if (command == "amend" && !parser.given("--limit-usd") && !parser.given("--gpus")) {
    err << "tessera-cli: amend needs --limit-usd and/or --gpus\n";
    return 2;
  }
  if (command == "scale") return runScaleCommand(args, parser, constraints, options, out, err);
  std::optional<Accelerator> accelerator;
  if (command == "forward" || command == "option" || command == "option-chain") {
    accelerator = parseAccelerator(args.accelerator);
    if (!accelerator) {
      err << "tessera-cli: unknown accelerator '" << args.accelerator << "'\n";
      return 2;
    }
  }

  CommandState st;
  st.command = command;
  st.trading = trading;
  st.json = json;
  st.out = &out;
  st.err = &err;
  ExchangeClient client(options, commandCallbacks(st));
  st.client = &client;
  client.start();
  {
    std::unique_lock lock(st.w.mu);
    if (!st.w.cv.wait_for(lock, timeout, [&] { return st.w.loggedOn || st.w.done; })) {
      err << "tessera-cli: could not log on to " << args.endpoint << " within " << timeout.count() << " s\n";
      return 1;
    }
    // Done already is a failure only if it failed: a book snapshot can beat this wake-up.
    if (st.w.done && st.w.failed) {
      err << "tessera-cli: " << st.w.failure << "\n";
      return 1;
    }
  }
  const Hour now = client.now();
  const std::vector<Cluster> clusters = client.clusters();
  auto knownCluster = [&](ClusterId id) {
    return std::any_of(clusters.begin(), clusters.end(), [&](const Cluster& c) { return c.id == id; });
  };
  auto unknownCluster = [&](ClusterId id) {
    err << "tessera-cli: the exchange has no cluster " << id << " (it has:";
    for (const Cluster& c : clusters) err << " " << c.id << " " << c.name;
    err << ")\n";
    return 2;
  };
  auto usageError = [&](const std::string& what) {
    err << "tessera-cli: " << what << "\n";
    return 2;
  };
  std::optional<ClusterId> bookCluster;
  if (command == "book" && parser.given("--cluster")) bookCluster = args.cluster;

  if (command == "plan") {
    if (!st.bookReady.wait(timeout)) {
      err << "tessera-cli: no book from the exchange within " << timeout.count() << " s\n";
      return 1;
    }
    const auto replica = replicateAsks(clusters, now, client.book());
    client.stop();
    return printPlan(*replica, planRequest, static_cast<Hour>(args.startIn), static_cast<Hour>(args.latestStartIn),
                     json, out, err);
  }
  if (command == "place") {
    nlohmann::json j = *placeJson;
    if (!parser.given("--json")) {
      auto window = resolveWindow(args, parser, now, std::nullopt);
      if (auto* e = std::get_if<std::string>(&window)) return usageError(*e);
      j["start"] = std::get<Window>(window).start;
      j["end"] = std::get<Window>(window).end;
    }
    j["id"] = 1;  // placeholder: the exchange assigns the id
    auto parsed = orderFromJson(j, 0);
    if (auto* e = std::get_if<JsonError>(&parsed)) return usageError(e->message);
    const OrderRequest order = std::get<OrderRequest>(parsed);
    if (order.cluster && !knownCluster(*order.cluster)) return unknownCluster(*order.cluster);
    {
      std::lock_guard lock(st.outMu);
      st.placedClOrdId = parser.given("--cl-ord-id") ? args.clOrdId : clOrdIdFor(args.account, order);
      // The times as resolved, so "tomorrow 9am" can be checked against what was meant.
      if (!json)
        out << "order: " << toString(order.side) << " " << order.gpus << " GPUs, " << isoHour(order.start) << " to "
            << isoHour(order.end) << " UTC, limit $" << dollars(order.limit) << "/GPU-h, client order id "
            << st.placedClOrdId << "\n";
    }
    client.placeOrder(order, st.placedClOrdId);
  } else if (quoting) {
    const Side side = command == "buy"    ? Side::Buy
                      : command == "sell" ? Side::Sell
                                          : (args.side == "sell" ? Side::Sell : Side::Buy);
    ClusterId cluster = args.cluster;
    GpuCount gpus = static_cast<GpuCount>(parser.given("--gpus") || !workload ? args.gpus : workload->gpus());
    std::optional<Window> fallback;
    if (sellBack) {
      client.requestPositions();
      if (!st.positionsReady.wait(timeout) || st.positionsReady.failed) {
        err << "tessera-cli: could not list the account's contracts: " << st.positionsReady.failure << "\n";
        return 1;
      }
      std::optional<Contract> held;
      {
        std::lock_guard lock(st.outMu);
        for (const Contract& c : st.contracts)
          if (c.id == args.sellBack && c.buyer == kOwnAccount) held = c;
      }
      if (!held) return usageError("you hold no contract " + std::to_string(args.sellBack));
      if (parser.given("--cluster") && args.cluster != held->cluster)
        return usageError("contract " + std::to_string(held->id) + " is on cluster " + std::to_string(held->cluster));
      cluster = held->cluster;
      if (!parser.given("--gpus")) gpus = held->gpus;
      fallback = Window{std::max(held->start, now), held->end};
      if (fallback->end <= fallback->start) return usageError("contract " + std::to_string(held->id) + " is over");
    }
    if (!constraints && !knownCluster(cluster)) return unknownCluster(cluster);
    std::vector<ClusterId> candidates;  // the clusters the order may trade on
    if (constraints) {
      for (const Cluster& c : clusters)
        if (constraints->matches(c)) candidates.push_back(c.id);
      if (candidates.empty()) return usageError("no cluster of the exchange matches those constraints");
    } else {
      candidates.push_back(cluster);
    }
    auto resolved = resolveWindow(args, parser, now, fallback);
    if (auto* e = std::get_if<std::string>(&resolved)) return usageError(*e);
    const Window window = std::get<Window>(resolved);
    std::optional<Hour> duration;
    if (parser.given("--duration")) duration = args.duration;
    std::optional<Price> limit;
    if (parser.given("--limit-usd")) limit = std::llround(args.limitUsd * kMicrosPerDollar);
    OrderRequest order;
    order.side = side;
    order.interruptible = args.interruptible;
    if (parser.given("--checkpoint-hours")) order.checkpointHours = args.checkpointHours;
    if (constraints) {
      order.constraints = constraints;
      order.fill = FillStyle::AllOrNone;
    } else {
      order.cluster = cluster;
    }
    order.gpus = gpus;
    order.start = window.start;
    order.end = window.end;
    order.duration = duration;
    order.limit = limit.value_or(0);  // a limit taken from the quote is not part of the request
    if (sellBack) order.sellBack = args.sellBack;
    if (args.fill == "all_or_none") order.fill = FillStyle::AllOrNone;
    if (args.tif == "IOC") order.tif = TimeInForce::IOC;
    if (args.tif == "FOK") order.tif = TimeInForce::FOK;
    // The id comes from the request as given, before the book is read, so a retry names the
    // same order even when the book (and so a default limit) has moved since the first run.
    const std::string id = parser.given("--cl-ord-id") ? args.clOrdId : clOrdIdFor(args.account, order);
    bool restartedWatcher = false;  // buy --on-fill run again for an order already placed
    if (command != "quote") {
      {
        std::lock_guard lock(st.outMu);
        st.placedClOrdId = id;
        st.precheck = true;
      }
      client.requestOrderStatus(id);
      if (!st.statusW.wait(timeout)) {
        err << "tessera-cli: no answer from the exchange within " << timeout.count() << " s\n";
        return 1;
      }
      std::lock_guard lock(st.outMu);
      st.precheck = false;
      if (st.existing) {
        printExisting(out, json, *st.existing);
        if (args.onFill.empty()) return 0;
        st.ourOrder = st.existing->orderId;
        st.ourOrderDone = st.existing->status != "working";
        restartedWatcher = true;
      }
    }
    if (restartedWatcher) return watchFills(st, client, args, clusters, timeout);
    if (!st.bookReady.wait(timeout)) {
      err << "tessera-cli: no book from the exchange within " << timeout.count() << " s\n";
      return 1;
    }
    const BookMirror book = client.book();
    // By constraints: the cluster where the whole rectangle is cheapest now, as the engine
    // would pick it for an all-or-none bid.
    std::optional<FillQuote> best;
    for (ClusterId id : candidates) {
      const FillQuote q = quoteFill(levelsOf(book, id, side), side, gpus, window.start, window.end, duration, limit);
      const bool better =
          !best || (q.allOrNoneNow != best->allOrNoneNow             ? q.allOrNoneNow
                    : q.availableGpuHours != best->availableGpuHours ? q.availableGpuHours > best->availableGpuHours
                                                                     : q.total < best->total);
      if (better) {
        best = q;
        cluster = id;
      }
    }
    FillQuote quote = *best;
    // --effective-cost: what the work costs on each candidate, the factors the engine ranks an
    // all-or-none bid's placements by, and by constraints the cluster that is best by them.
    std::vector<ClusterCostFactor> factors;
    if (workload) {
      const auto replica = replicateAsks(clusters, now, book);
      // Interruptible candidates are priced at the reclaim rate the exchange observed on them,
      // not an assumed one (cost/Interruption.h: reclaims per day of contracted time).
      const bool anyInterruptible = std::any_of(clusters.begin(), clusters.end(), [&](const Cluster& c) {
        return c.interruptible() && std::find(candidates.begin(), candidates.end(), c.id) != candidates.end();
      });
      if (anyInterruptible) {
        client.requestReclaimRates();
        if (!st.ratesReady.wait(timeout)) {
          err << "tessera-cli: no reclaim rates from the exchange within " << timeout.count() << " s\n";
          return 1;
        }
      }
      auto observedPerDay = [&](const Cluster& c) {
        std::lock_guard lock(st.outMu);
        const auto it = st.reclaimRates.find(c.id);
        if (it == st.reclaimRates.end()) return cost::reclaimsPerDay({});
        return cost::reclaimsPerDay({it->second.reclaimedContracts, static_cast<double>(it->second.contractedHours)});
      };
      auto ranking = cost::rankClustersByEffectiveCost(*replica, *workload, constraints.value_or(ClusterConstraints{}),
                                                       quote.start, quote.end, cost::deriveTopology, observedPerDay);
      std::erase_if(ranking, [&](const cost::ClusterRanking& r) {
        return std::find(candidates.begin(), candidates.end(), r.cluster.id) == candidates.end();
      });
      factors = cost::effectiveCostFactors(ranking);
      {
        std::lock_guard lock(st.outMu);
        printEffectiveCost(out, json, *workload, quote, ranking);
      }
      if (constraints && !ranking.empty() && std::holds_alternative<cost::CostBreakdown>(ranking.front().result) &&
          ranking.front().cluster.id != cluster) {
        cluster = ranking.front().cluster.id;
        quote = quoteFill(levelsOf(book, cluster, side), side, gpus, window.start, window.end, duration, limit);
      }
    }
    {
      std::lock_guard lock(st.outMu);
      if (constraints && !json) {
        out << "matching clusters:";
        for (ClusterId id : candidates) out << " " << id << " " << clusterName(clusters, id);
        out << "; the best now is " << cluster << "\n";
      }
      printQuote(out, json, side, cluster, clusterName(clusters, cluster), gpus, window, quote);
    }
    if (command == "quote") {
      client.stop();
      return 0;
    }
    if (!limit) {
      if (quote.availableGpuHours == 0) {
        client.stop();
        err << "tessera-cli: nothing on the book to " << command << " against now; give --limit-usd to rest an order\n";
        return 1;
      }
      // All-or-none by constraints: the limit bounds the average, and the quote's average is
      // what the best cluster costs now (rounded up to a micro-dollar).
      if (constraints && !quote.allOrNoneNow) {
        client.stop();
        err << "tessera-cli: no matching cluster can fill all of it now; give --limit-usd to rest a bid\n";
        return 1;
      }
      limit = constraints ? (quote.total + quote.availableGpuHours - 1) / quote.availableGpuHours : quote.worstPrice;
    }
    order.limit = *limit;
    order.costFactors = factors;
    if (!json) {
      std::lock_guard lock(st.outMu);
      out << "order: " << command << " " << gpus << " GPUs on "
          << (constraints ? "the best matching cluster" : "cluster " + std::to_string(cluster)) << ", "
          << isoHour(order.start) << " to " << isoHour(order.end) << " UTC";
      if (duration) out << " (any " << *duration << " h within)";
      if (sellBack) out << ", sell-back of contract " << args.sellBack;
      if (!factors.empty()) out << ", ranked by effective cost on " << factors.size() << " cluster(s)";
      out << ", limit $" << dollars(order.limit) << "/GPU-h, " << toString(order.fill) << ", " << toString(order.tif)
          << ", client order id " << id << "\n";
    }
    if (!args.yes) {
      err << "Place this order? [y/N] " << std::flush;
      std::string answer;
      if (!std::getline(in, answer)) {
        client.stop();
        err << "\ntessera-cli: no answer (input closed): nothing placed; give --yes to place without asking\n";
        return 1;
      }
      if (answer != "y" && answer != "Y" && answer != "yes") {
        client.stop();
        out << "nothing placed\n";
        return 0;
      }
    }
    client.placeOrder(order, id);
  } else if (command == "cancel") {
    client.cancel(args.id);
  } else if (command == "amend") {
    std::optional<Price> limit;
    std::optional<GpuCount> gpus;
    if (parser.given("--limit-usd")) limit = std::llround(args.limitUsd * kMicrosPerDollar);
    if (parser.given("--gpus")) gpus = static_cast<GpuCount>(args.gpus);
    client.amend(args.id, limit, gpus);
  } else if (command == "mass-cancel") {
    client.massCancel();
    client.requestOrders();  // the mass cancel's own ack is not surfaced; list what is left
  } else if (command == "orders") {
    client.requestOrders();
  } else if (command == "balance") {
    client.requestBalance();
  } else if (command == "call") {
    client.requestIndicative();
  } else if (command == "positions" || command == "contracts") {
    client.requestPositions();
  } else if (command == "clusters") {
    if (json) {
      nlohmann::json a = nlohmann::json::array();
      for (const Cluster& c : clusters) a.push_back(toJson(c));
      out << a.dump() << "\n";
    } else {
      for (const Cluster& c : clusters) out << toJson(c).dump() << "\n";
    }
    st.w.finish(true);
  } else if (command == "book") {
    if (bookCluster && !knownCluster(*bookCluster)) return unknownCluster(*bookCluster);
    // The snapshot arrives by itself after logon.
  } else if (command == "report-delivery" || command == "outage") {
    const auto problem = parseDeliveryProblem(args.problem);  // CLI11 checked the name
    const auto gpus = static_cast<GpuCount>(args.amountGpus);
    auto resolved = resolveWindow(args, parser, now, std::nullopt);
    if (auto* e = std::get_if<std::string>(&resolved)) return usageError(*e);
    const Window hours = std::get<Window>(resolved);
    if (command == "outage") {
      if (!knownCluster(static_cast<ClusterId>(args.id))) return unknownCluster(static_cast<ClusterId>(args.id));
      client.reportOutage(static_cast<ClusterId>(args.id), hours.start, hours.end, gpus, *problem);
    } else {
      client.reportDelivery(static_cast<ContractId>(args.id), hours.start, hours.end, gpus, *problem);
    }
  } else if (command == "reclaim") {
    auto resolved = resolveWindow(args, parser, now, std::nullopt);
    if (auto* e = std::get_if<std::string>(&resolved)) return usageError(*e);
    const Window hours = std::get<Window>(resolved);
    client.reclaim(static_cast<ContractId>(args.id), hours.start, hours.end, static_cast<GpuCount>(args.amountGpus));
  } else if (command == "forward") {
    ForwardNewOrder o;
    o.side = args.side == "buy" ? Side::Buy : Side::Sell;
    o.accelerator = *accelerator;
    o.weekStart = args.weekStart;
    o.gpuHours = args.gpuHours;
    o.price = std::llround(args.priceUsd * kMicrosPerDollar);
    client.placeForward(o);
  } else if (command == "forward-cancel") {
    client.cancelForward(args.id);
  } else if (command == "forward-orders" || command == "forward-positions") {
    // Both lists arrive by themselves after logon (the client asks when it has the callbacks).
  } else if (command == "option") {
    auto start = parseHourText(args.periodStartText, now);
    if (auto* e = std::get_if<HourTextError>(&start)) return usageError(e->message);
    OptionNewOrder o;
    o.side = args.side == "buy" ? Side::Buy : Side::Sell;
    o.series = indexoptions::OptionSeries{*accelerator, *indexoptions::parseOptionKind(args.optionKind),
                                          *indexoptions::parsePeriodKind(args.periodKind), std::get<Hour>(start),
                                          std::llround(args.strikeUsd * kMicrosPerDollar)};
    o.gpuHours = args.gpuHours;
    o.premium = std::llround(args.premiumUsd * kMicrosPerDollar);
    client.placeOption(o);
  } else if (command == "option-cancel") {
    client.cancelOption(args.id);
  } else if (command == "option-chain") {
    client.requestOptionChain(*accelerator);
  }
  if (!st.w.wait(timeout)) {
    err << "tessera-cli: no answer from the exchange within " << timeout.count() << " s\n";
    if (trading) {
      std::lock_guard lock(st.outMu);
      err << "The order may or may not have reached the exchange. Running the same command again is safe:\n"
             "it sends the same client order id ("
          << st.placedClOrdId << "), which the exchange cannot accept twice.\n";
    }
    return 1;
  }
  // Fills that follow an acknowledgement immediately are printed too.
  if ((trading || command == "report-delivery" || command == "outage" || command == "reclaim" ||
       command == "forward") &&
      !st.w.failed)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // and the remedy's notices
  if (command == "buy" && !args.onFill.empty() && !st.w.failed) return watchFills(st, client, args, clusters, timeout);
  client.stop();
  if (st.w.failed) {
    err << "tessera-cli: " << st.w.failure << "\n";
    return 1;
  }
  if (command == "positions" || command == "contracts")
    printContracts(out, json, command == "contracts", st.contracts, st.contractStatus);
  if (command == "contracts" && !json) printHeldShape(out, clusters, st.contracts, st.contractStatus);
  if (command == "book") printBook(out, json, client.book().cells(), bookCluster);
  return 0;
}

}  // namespace

}  // namespace tessera::net
