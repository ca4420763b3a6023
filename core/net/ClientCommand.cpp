#include "core/net/ClientCommand.h"

#include "core/engine/EventJson.h"
#include "core/net/ClientOrderId.h"
#include "core/net/ExchangeClient.h"

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
    "The key may also come from the environment variable TESSERA_API_KEY. Hours are whole UTC hours\n"
    "since 1970 (docs/protocol.md). Without --cl-ord-id an order's client id is derived from the\n"
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
};

// Everything the command line can say, filled in by CLI11.
struct Args {
  std::string endpoint, account, key, caFile;
  bool tls = false;
  bool json = false;
  int timeoutSeconds = 10;

  // place
  std::string side, fill, tif, clOrdId, orderJson;
  ClusterId cluster = 0;
  long long gpus = 0, start = 0, end = 0, duration = 0;
  double limitUsd = 0;
  // cancel, amend, forward-cancel, report-delivery (contract), outage (cluster)
  std::uint64_t id = 0;
  // report-delivery / outage
  long long amountGpus = 0;
  std::string problem = "missing_gpus";
  // forward
  std::string accelerator;
  long long weekStart = 0, gpuHours = 0;
  double priceUsd = 0;
};

// The subcommands and their options. `given` answers whether an option was on the command line.
class Parser {
 public:
  explicit Parser(Args& a) : app_("trade on a running tessera-exchange", "tessera-cli") {
    app_.footer(kFooter);
    app_.fallthrough();  // global options may also follow the command
    app_.require_subcommand(1, 1);
    app_.add_option("--connect", a.endpoint, "the exchange, HOST:PORT")->required();
    app_.add_option("--account", a.account, "the account to log on as")->required();
    app_.add_option("--key", a.key, "its API key")->envname("TESSERA_API_KEY");
    app_.add_flag("--tls", a.tls, "speak TLS, verifying the exchange's certificate against the system's roots");
    app_.add_option("--ca", a.caFile, "speak TLS, verifying it against this CA certificate (PEM) instead")
        ->check(CLI::ExistingFile);
    app_.add_option("--timeout", a.timeoutSeconds, "seconds to wait for the logon and for the answer (default 10)")
        ->check(CLI::Range(1, 3600));
    app_.add_flag("--json", a.json, "JSON for scripts instead of lines for a person");

    auto* place = command("place", "place an order (fields as in docs/protocol.md)");
    opt(place, "--side", a.side, "buy or sell")->check(CLI::IsMember({"buy", "sell"}));
    opt(place, "--cluster", a.cluster, "cluster id (`clusters` lists them)");
    opt(place, "--gpus", a.gpus, "GPUs")->check(CLI::PositiveNumber);
    opt(place, "--start", a.start, "first delivery hour");
    opt(place, "--end", a.end, "end of the window (exclusive)");
    opt(place, "--limit-usd", a.limitUsd, "worst price, dollars per GPU-hour")->check(CLI::PositiveNumber);
    opt(place, "--fill", a.fill, "divisible (default) or all_or_none")->check(CLI::IsMember({"divisible", "all_or_none"}));
    opt(place, "--tif", a.tif, "GTC (default), IOC or FOK")->check(CLI::IsMember({"GTC", "IOC", "FOK"}));
    opt(place, "--duration", a.duration, "flexible window: this many consecutive hours within it")
        ->check(CLI::PositiveNumber);
    opt(place, "--cl-ord-id", a.clOrdId, "your id for the order (default: derived from the order)");
    // Named --json for compatibility: on `place` it takes the order, not the output format.
    opt(place, "--json", a.orderJson, "the whole order as a JSON object instead of the options above");

    auto* cancel = command("cancel", "cancel a working order");
    cancel->add_option("order_id", a.id, "the exchange's order id")->required();
    auto* amend = command("amend", "change a working order's limit and/or GPUs");
    amend->add_option("order_id", a.id, "the exchange's order id")->required();
    opt(amend, "--limit-usd", a.limitUsd, "new limit, dollars per GPU-hour")->check(CLI::PositiveNumber);
    opt(amend, "--gpus", a.gpus, "new GPU count")->check(CLI::PositiveNumber);
    command("mass-cancel", "cancel every working order of the account");
    command("orders", "the account's working orders");
    command("balance", "cash, reserved, available, escrow and credits");
    command("positions", "the account's contracts, bought and sold, with their settlement state");
    command("clusters", "the clusters the exchange announced at logon");
    auto* book = command("book", "price levels of the current book");
    opt(book, "--cluster", a.cluster, "only this cluster");

    for (const char* name : {"report-delivery", "outage"}) {
      const bool outage = std::string_view(name) == "outage";
      auto* c = command(name, outage ? "providers: GPUs of one of your clusters were down"
                                     : "providers: only some of a contract's GPUs worked");
      c->add_option(outage ? "cluster" : "contract", a.id, outage ? "cluster id" : "contract id")->required();
      opt(c, "--start", a.start, "first hour")->required();
      opt(c, "--end", a.end, "end hour (exclusive)")->required();
      opt(c, outage ? "--lost" : "--usable", a.amountGpus, outage ? "GPUs lost" : "GPUs that worked")
          ->required()
          ->check(CLI::NonNegativeNumber);
      opt(c, "--problem", a.problem, "missing_gpus (default), link_degraded or power_curtailed")
          ->check(CLI::IsMember({"missing_gpus", "link_degraded", "power_curtailed"}));
    }

    auto* forward = command("forward", "a cash-settled forward on the next-day index");
    opt(forward, "--side", a.side, "buy (long the index) or sell (short)")
        ->required()
        ->check(CLI::IsMember({"buy", "sell"}));
    opt(forward, "--accelerator", a.accelerator, "accelerator class, e.g. H100")->required();
    opt(forward, "--week-start", a.weekStart, "a Monday 00:00 UTC hour")->required();
    opt(forward, "--gpu-hours", a.gpuHours, "quantity")->required()->check(CLI::PositiveNumber);
    opt(forward, "--price-usd", a.priceUsd, "index level, dollars per GPU-hour")->required()->check(CLI::PositiveNumber);
    auto* forwardCancel = command("forward-cancel", "cancel a working forward order");
    forwardCancel->add_option("order_id", a.id, "the forward order id")->required();
    command("forward-orders", "working forward orders and the margin they hold");
    command("forward-positions", "forward positions");
  }

  CLI::App& app() { return app_; }
  std::string command() const { return app_.get_subcommands().empty() ? "" : app_.get_subcommands().front()->get_name(); }
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

int runChecked(const Args& args, const Parser& parser, std::ostream& out, std::ostream& err);

}  // namespace

int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  Args args;
  Parser parser(args);
  // CLI11 wants the arguments last first, without the program's name.
  std::vector<std::string> rest(argv, argv + argc);
  std::reverse(rest.begin(), rest.end());
  try {
    parser.app().parse(rest);
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
  return runChecked(args, parser, out, err);
}

namespace {

int runChecked(const Args& args, const Parser& parser, std::ostream& out, std::ostream& err) {
  const std::string command = parser.command();
  const auto colon = args.endpoint.rfind(':');
  char* portEnd = nullptr;
  const long port = colon == std::string::npos ? 0 : std::strtol(args.endpoint.c_str() + colon + 1, &portEnd, 10);
  if (colon == std::string::npos || colon == 0 || *portEnd != '\0' || port <= 0 || port > 65535) {
    err << "tessera-cli: --connect wants HOST:PORT, got '" << args.endpoint << "'\n";
    return 2;
  }
  ClientOptions options;
  options.host = args.endpoint.substr(0, colon);
  options.port = static_cast<std::uint16_t>(port);
  options.account = args.account;
  options.key = args.key;
  options.marketData = command == "book";
  options.backoffMax = std::chrono::milliseconds(500);
  options.tls = args.tls || !args.caFile.empty();
  options.caFile = args.caFile;
  const std::chrono::seconds timeout(args.timeoutSeconds);
  const bool json = args.json;

  // What can be checked before connecting is checked before connecting: a bad order never
  // costs a logon.
  std::optional<OrderRequest> order;
  if (command == "place") {
    nlohmann::json j;
    if (parser.given("--json")) {
      j = nlohmann::json::parse(args.orderJson, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        err << "tessera-cli: --json is not a JSON object\n";
        return 2;
      }
    } else {
      for (const char* required : {"--side", "--cluster", "--gpus", "--start", "--end", "--limit-usd"}) {
        if (!parser.given(required)) {
          err << "tessera-cli: place needs " << required << " (or --json)\n";
          return 2;
        }
      }
      j["side"] = args.side;
      j["cluster"] = args.cluster;
      j["gpus"] = args.gpus;
      j["start"] = args.start;
      j["end"] = args.end;
      j["limit"] = std::llround(args.limitUsd * kMicrosPerDollar);
      if (parser.given("--fill")) j["fill"] = args.fill;
      if (parser.given("--tif")) j["tif"] = args.tif;
      if (parser.given("--duration")) j["duration"] = args.duration;
    }
    j["id"] = 1;  // placeholder: the exchange assigns the id
    auto parsed = orderFromJson(j, 0);
    if (auto* e = std::get_if<JsonError>(&parsed)) {
      err << "tessera-cli: " << e->message << "\n";
      return 2;
    }
    order = std::get<OrderRequest>(parsed);
  }
  if (command == "amend" && !parser.given("--limit-usd") && !parser.given("--gpus")) {
    err << "tessera-cli: amend needs --limit-usd and/or --gpus\n";
    return 2;
  }
  std::optional<Accelerator> accelerator;
  if (command == "forward") {
    accelerator = parseAccelerator(args.accelerator);
    if (!accelerator) {
      err << "tessera-cli: unknown accelerator '" << args.accelerator << "'\n";
      return 2;
    }
  }

  Waiter w;
  std::mutex outMu;
  // The id the placed order goes under: the user's, or the one derived from the order.
  const std::string placedClOrdId =
      order ? (parser.given("--cl-ord-id") ? args.clOrdId : clOrdIdFor(args.account, *order)) : std::string();
  std::optional<ClusterId> bookCluster;
  if (command == "book" && parser.given("--cluster")) bookCluster = args.cluster;
  std::vector<Contract> contracts;     // positions: the contracts, then their status
  std::vector<BookCell> bookCells;     // book: the snapshot
  ExchangeClient* clientPtr = nullptr;  // for the duplicate's order_status, from the io thread

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
    // The copy of an order already placed: report the order that exists instead.
    if (command == "place" && u.clOrdId == placedClOrdId && u.state == OrderState::Rejected &&
        u.code == "duplicate_cl_ord_id") {
      clientPtr->requestOrderStatus(placedClOrdId);
      return;
    }
    {
      std::lock_guard lock(outMu);
      if (json) {
        nlohmann::json j{{"state", stateName(u.state)}, {"order_id", u.orderId}, {"cl_ord_id", u.clOrdId}};
        if (u.state == OrderState::Rejected) j.update({{"code", u.code}, {"reason", u.reason}});
        if (u.state == OrderState::Filled || u.state == OrderState::PartiallyFilled)
          j.update({{"cluster", u.cluster}, {"gpus", u.gpus}, {"start", u.start}, {"end", u.end},
                    {"price_usd", usd(u.price)}, {"leaves_gpu_hours", u.leavesGpuHours}});
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
    if (command == "place" && u.clOrdId == placedClOrdId &&
        (u.state == OrderState::Accepted || u.state == OrderState::Rejected)) {
      w.finish(u.state == OrderState::Accepted, u.reason);
    }
    if ((command == "cancel" && u.state == OrderState::Cancelled) ||
        (command == "amend" && u.state == OrderState::Amended)) {
      w.finish(true);
    }
  };
  cb.onOrderStatus = [&](const OrderStatusReply& s) {
    if (command != "place" || s.clOrdId != placedClOrdId) return;
    {
      std::lock_guard lock(outMu);
      if (json) {
        out << nlohmann::json{{"state", "already_placed"}, {"order_id", s.orderId}, {"cl_ord_id", s.clOrdId},
                              {"status", s.status}, {"filled_gpu_hours", s.filledGpuHours},
                              {"leaves_gpu_hours", s.leavesGpuHours}}
                   .dump()
            << "\n";
      } else {
        out << "already_placed order_id=" << s.orderId << " cl_ord_id=" << s.clOrdId << " status=" << s.status
            << " filled_gpu_hours=" << s.filledGpuHours << " leaves_gpu_hours=" << s.leavesGpuHours << "\n"
            << "(this order was placed before, by this command or an earlier run of it; nothing new was "
               "placed. To place it again, give it another --cl-ord-id.)\n";
      }
    }
    w.finish(true);
  };
  cb.onError = [&](const RequestError& e) { w.finish(false, e.code + ": " + e.reason); };
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
      if (type == "forward_rejected") w.finish(false, text);
      else if ((command == "forward" && type == "forward_accepted") ||
               (command == "forward-cancel" && type == "forward_cancelled"))
        w.finish(true);
    };
    cb.onForwardOrders = [&](const std::vector<ForwardWorkingOrder>& list, Money held) {
      if (command != "forward-orders") return;
      {
        std::lock_guard lock(outMu);
        if (json) {
          nlohmann::json a = nlohmann::json::array();
          for (const ForwardWorkingOrder& o : list)
            a.push_back({{"order_id", o.orderId}, {"cl_ord_id", o.clOrdId}, {"side", std::string(toString(o.side))},
                         {"accelerator", std::string(toString(o.accelerator))}, {"week_start", o.weekStart},
                         {"leaves_gpu_hours", o.leavesGpuHours}, {"price_usd", usd(o.price)}});
          out << nlohmann::json{{"orders", a}, {"margin_held_usd", usd(held)}}.dump() << "\n";
        } else {
          for (const ForwardWorkingOrder& o : list)
            out << "order_id=" << o.orderId << " cl_ord_id=" << o.clOrdId << " " << toString(o.side) << " "
                << toString(o.accelerator) << " week_start=" << o.weekStart << " leaves_gpu_hours="
                << o.leavesGpuHours << " price=$" << dollars(o.price) << "\n";
          out << "margin held by resting orders: $" << dollars(held) << "\n";
        }
      }
      w.finish(true);
    };
    cb.onForwardPositions = [&](const std::vector<ForwardPositionView>& list) {
      if (command != "forward-positions") return;
      {
        std::lock_guard lock(outMu);
        if (json) {
          nlohmann::json a = nlohmann::json::array();
          for (const ForwardPositionView& p : list)
            a.push_back({{"position", p.position}, {"side", p.isLong ? "long" : "short"},
                         {"accelerator", std::string(toString(p.accelerator))}, {"week_start", p.weekStart},
                         {"gpu_hours", p.gpuHours}, {"price_usd", usd(p.price)}, {"status", p.status},
                         {"margin_usd", usd(p.margin)}, {"last_mark_usd", usd(p.lastMark)}});
          out << a.dump() << "\n";
        } else {
          for (const ForwardPositionView& p : list)
            out << "position=" << p.position << " " << (p.isLong ? "long" : "short") << " " << toString(p.accelerator)
                << " week_start=" << p.weekStart << " gpu_hours=" << p.gpuHours << " price=$" << dollars(p.price)
                << " status=" << p.status << " margin=$" << dollars(p.margin) << " last_mark=$"
                << dollars(p.lastMark) << "\n";
          if (list.empty()) out << "no forward positions\n";
        }
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
  cb.onBalance = [&](const Balance& b) {
    if (command != "balance") return;
    {
      std::lock_guard lock(outMu);
      if (json) {
        out << nlohmann::json{{"cash_usd", usd(b.cash)},       {"reserved_usd", usd(b.reserved)},
                              {"available_usd", usd(b.available())}, {"escrow_usd", usd(b.escrow)},
                              {"credits_usd", usd(b.credits)}}
                   .dump()
            << "\n";
      } else {
        out << "cash=$" << dollars(b.cash) << " reserved=$" << dollars(b.reserved) << " available=$"
            << dollars(b.available()) << " escrow=$" << dollars(b.escrow) << " credits=$" << dollars(b.credits)
            << "\n";
      }
    }
    w.finish(true);
  };
  cb.onOrders = [&](const std::vector<WorkingOrder>& list) {
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
  cb.onPositions = [&](const std::vector<Contract>& list) { contracts = list; };
  cb.onContractStatus = [&](const std::vector<ContractStatus>& status) {
    std::map<ContractId, ContractStatus> byId;
    for (const ContractStatus& s : status) byId[s.contract] = s;
    {
      std::lock_guard lock(outMu);
      nlohmann::json a = nlohmann::json::array();
      for (const Contract& c : contracts) {
        const ContractStatus s = byId.count(c.id) ? byId[c.id] : ContractStatus{};
        // The exchange says which side the account is on; buy_order is 0 for a replacement.
        const bool bought = s.side == Side::Buy;
        if (json) {
          a.push_back({{"contract", c.id},          {"side", bought ? "bought" : "sold"},
                       {"cluster", c.cluster},      {"gpus", c.gpus},
                       {"start", c.start},          {"end", c.end},
                       {"price_usd", usd(c.price)}, {"state", s.state},
                       {"delivered_gpu_hours", s.deliveredGpuHours},
                       {"gpu_hours", static_cast<std::int64_t>(c.gpus) * (c.end - c.start)},
                       {"escrow_usd", usd(s.escrow)}, {"replaces", s.replaces}});
          continue;
        }
        out << "contract=" << c.id << " " << (bought ? "bought" : "sold") << " cluster=" << c.cluster
            << " gpus=" << c.gpus << " hours=[" << c.start << "," << c.end << ") price=$" << dollars(c.price)
            << " state=" << s.state << " delivered_gpu_hours=" << s.deliveredGpuHours << "/"
            << static_cast<std::int64_t>(c.gpus) * (c.end - c.start) << " escrow=$" << dollars(s.escrow);
        if (s.replaces) out << " replaces=" << s.replaces;
        out << "\n";
      }
      if (json) out << a.dump() << "\n";
      else if (contracts.empty()) out << "no contracts\n";
    }
    w.finish(true);
  };
  cb.onBook = [&](const std::vector<BookCell>& cells, bool snapshot) {
    if (!snapshot) return;
    {
      std::lock_guard lock(outMu);
      bookCells = cells;
    }
    w.finish(true);
  };

  ExchangeClient client(options, cb);
  clientPtr = &client;
  client.start();
  {
    std::unique_lock lock(w.mu);
    if (!w.cv.wait_for(lock, timeout, [&] { return w.loggedOn || w.done; })) {
      err << "tessera-cli: could not log on to " << args.endpoint << " within " << timeout.count() << " s\n";
      return 1;
    }
    // Done already is a failure only if it failed: a book snapshot can beat this wake-up.
    if (w.done && w.failed) {
      err << "tessera-cli: " << w.failure << "\n";
      return 1;
    }
  }
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

  if (command == "place") {
    if (order->cluster && !knownCluster(*order->cluster)) return unknownCluster(*order->cluster);
    client.placeOrder(*order, placedClOrdId);
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
  } else if (command == "positions") {
    client.requestPositions();
  } else if (command == "clusters") {
    if (json) {
      nlohmann::json a = nlohmann::json::array();
      for (const Cluster& c : clusters) a.push_back(toJson(c));
      out << a.dump() << "\n";
    } else {
      for (const Cluster& c : clusters) out << toJson(c).dump() << "\n";
    }
    w.finish(true);
  } else if (command == "book") {
    if (bookCluster && !knownCluster(*bookCluster)) return unknownCluster(*bookCluster);
    // The snapshot arrives by itself after logon.
  } else if (command == "report-delivery" || command == "outage") {
    const auto problem = parseDeliveryProblem(args.problem);  // CLI11 checked the name
    const auto gpus = static_cast<GpuCount>(args.amountGpus);
    if (command == "outage") {
      if (!knownCluster(static_cast<ClusterId>(args.id))) return unknownCluster(static_cast<ClusterId>(args.id));
      client.reportOutage(static_cast<ClusterId>(args.id), args.start, args.end, gpus, *problem);
    } else {
      client.reportDelivery(static_cast<ContractId>(args.id), args.start, args.end, gpus, *problem);
    }
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
  }
  if (!w.wait(timeout)) {
    err << "tessera-cli: no answer from the exchange within " << timeout.count() << " s\n";
    if (command == "place")
      err << "The order may or may not have reached the exchange. Running the same command again is safe:\n"
             "it sends the same client order id ("
          << placedClOrdId << "), which the exchange cannot accept twice.\n";
    return 1;
  }
  // Fills that follow an acknowledgement immediately are printed too.
  if ((command == "place" || command == "report-delivery" || command == "outage" || command == "forward") && !w.failed)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // and the remedy's notices
  client.stop();
  if (w.failed) {
    err << "tessera-cli: " << w.failure << "\n";
    return 1;
  }
  if (command == "book") {
    std::vector<BookCell> cells;
    for (const BookCell& c : bookCells)
      if (!bookCluster || c.key.cluster == *bookCluster) cells.push_back(c);
    if (json) {
      nlohmann::json a = nlohmann::json::array();
      for (const BookCell& c : cells) {
        nlohmann::json levels = nlohmann::json::array();
        for (const BookLevel& l : c.levels) levels.push_back({{"price_usd", usd(l.price)}, {"gpus", l.gpus}});
        a.push_back({{"cluster", c.key.cluster}, {"hour", c.key.hour}, {"side", c.key.side == Side::Buy ? "bids" : "asks"},
                     {"levels", levels}});
      }
      out << a.dump() << "\n";
    } else {
      for (const BookCell& c : cells) {
        out << "cluster=" << c.key.cluster << " hour=" << c.key.hour << " "
            << (c.key.side == Side::Buy ? "bids" : "asks") << ":";
        for (const BookLevel& l : c.levels) out << " " << l.gpus << "@$" << dollars(l.price);
        out << "\n";
      }
      if (cells.empty()) {
        if (bookCluster) out << "nothing rests on cluster " << *bookCluster << ": no bids, no asks\n";
        else out << "the book is empty\n";
      }
    }
  }
  return 0;
}

}  // namespace

}  // namespace tessera::net
