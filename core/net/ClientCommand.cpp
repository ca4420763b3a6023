#include "core/net/ClientCommand.h"

#include "core/engine/EventJson.h"
#include "core/net/ExchangeClient.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::net {
namespace {

void usage(std::ostream& os) {
  os << "usage: tessera-cli --connect host:port --account NAME --key KEY [--tls] [--ca FILE] <command>\n\n"
        "  --tls        speak TLS, verifying the exchange's certificate against the system's roots\n"
        "  --ca FILE    speak TLS, verifying it against this CA certificate (PEM) instead\n\n"
        "commands:\n"
        "  place --side buy|sell --cluster ID --gpus N --start HOUR --end HOUR --limit-usd P\n"
        "        [--fill divisible|all_or_none] [--tif GTC|IOC|FOK] [--duration H] [--cl-ord-id ID]\n"
        "  place --json '{\"side\":\"buy\",\"cluster\":1,...}'   (order fields as in docs/protocol.md)\n"
        "  cancel ORDER_ID\n"
        "  amend ORDER_ID [--limit-usd P] [--gpus N]\n"
        "  mass-cancel\n"
        "  orders | balance | positions | clusters\n"
        "  book [--cluster ID]    price levels of the current book\n"
        "  report-delivery CONTRACT --start HOUR --end HOUR --usable N [--problem P]\n"
        "  outage CLUSTER --start HOUR --end HOUR --lost N [--problem P]\n"
        "        providers: P is missing_gpus (default), link_degraded or power_curtailed\n"
        "  forward --side buy|sell --accelerator H100 --week-start HOUR --gpu-hours N --price-usd P\n"
        "        a cash-settled forward on the next-day index (week-start: a Monday 00:00 UTC hour)\n"
        "  forward-cancel ORDER_ID | forward-orders | forward-positions\n\n"
        "The key may also come from the environment variable TESSERA_API_KEY.\n";
}

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

std::string dollars(Price p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(p) / kMicrosPerDollar);
  return buf;
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

}  // namespace

namespace {
int runChecked(int argc, char** argv, std::ostream& out, std::ostream& err);
}  // namespace

int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // A number that is not one ("--gpus many") is the user's mistake, not a crash.
  try {
    return runChecked(argc, argv, out, err);
  } catch (const std::invalid_argument&) {
    err << "tessera-cli: a number was expected where a word was given\n";
  } catch (const std::out_of_range&) {
    err << "tessera-cli: a number is out of range\n";
  }
  return 2;
}

namespace {
int runChecked(int argc, char** argv, std::ostream& out, std::ostream& err) {
  std::string endpoint, account, key, command, caFile;
  bool tls = false;
  std::vector<std::string> rest;
  if (const char* k = std::getenv("TESSERA_API_KEY")) key = k;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (a == "--connect") {
      if (!value(endpoint)) return usage(err), 2;
    } else if (a == "--account") {
      if (!value(account)) return usage(err), 2;
    } else if (a == "--key") {
      if (!value(key)) return usage(err), 2;
    } else if (a == "--ca") {
      if (!value(caFile)) return usage(err), 2;
      tls = true;
    } else if (a == "--tls") {
      tls = true;
    } else if (a == "--help" || a == "-h") {
      usage(out);
      return 0;
    } else if (command.empty()) {
      command = a;
    } else {
      rest.push_back(a);
    }
  }
  const auto colon = endpoint.rfind(':');
  if (endpoint.empty() || colon == std::string::npos || account.empty() || command.empty()) {
    usage(err);
    return 2;
  }
  ClientOptions options;
  options.host = endpoint.substr(0, colon);
  const long port = std::strtol(endpoint.c_str() + colon + 1, nullptr, 10);
  if (port <= 0 || port > 65535) {
    err << "tessera-cli: bad port in '" << endpoint << "'\n";
    return 2;
  }
  options.port = static_cast<std::uint16_t>(port);
  options.account = account;
  options.key = key;
  options.marketData = command == "book";
  options.backoffMax = std::chrono::milliseconds(500);
  options.tls = tls;
  options.caFile = caFile;

  std::map<std::string, std::string> flags;
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i].rfind("--", 0) == 0 && i + 1 < rest.size()) {
      flags[rest[i].substr(2)] = rest[i + 1];
      ++i;
    } else {
      positional.push_back(rest[i]);
    }
  }

  Waiter w;
  std::mutex outMu;
  std::string placedClOrdId;
  std::optional<ClusterId> bookCluster;
  if (flags.count("cluster") && command == "book") bookCluster = static_cast<ClusterId>(std::stoul(flags["cluster"]));

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
    {
      std::lock_guard lock(outMu);
      out << stateName(u.state) << " order_id=" << u.orderId << " cl_ord_id=" << u.clOrdId;
      if (u.state == OrderState::Rejected) out << " code=" << u.code << " reason=\"" << u.reason << "\"";
      if (u.state == OrderState::Filled || u.state == OrderState::PartiallyFilled) {
        out << " gpus=" << u.gpus << " hours=[" << u.start << "," << u.end << ") price=$"
            << dollars(u.price) << " leaves_gpu_hours=" << u.leavesGpuHours;
      }
      if (u.state == OrderState::Cancelled) out << " code=" << u.code;
      if (u.state == OrderState::Amended) out << " limit=$" << dollars(u.limit) << " gpus=" << u.gpus;
      out << "\n";
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
  cb.onError = [&](const RequestError& e) { w.finish(false, e.code + ": " + e.reason); };
  cb.onReportAck = [&](const std::string& type) {
    {
      std::lock_guard lock(outMu);
      out << type << "\n";
    }
    w.finish(true);
  };
  const bool forwardCommand = command.rfind("forward", 0) == 0;
  if (forwardCommand) {
    cb.onForwardEvent = [&](const std::string& type, const std::string& text) {
      {
        std::lock_guard lock(outMu);
        out << text << "\n";
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
        for (const ForwardWorkingOrder& o : list)
          out << "order_id=" << o.orderId << " cl_ord_id=" << o.clOrdId << " " << (o.side == Side::Buy ? "buy" : "sell")
              << " " << toString(o.accelerator) << " week_start=" << o.weekStart << " leaves_gpu_hours="
              << o.leavesGpuHours << " price=$" << dollars(o.price) << "\n";
        out << "margin held by resting orders: $" << dollars(held) << "\n";
      }
      w.finish(true);
    };
    cb.onForwardPositions = [&](const std::vector<ForwardPositionView>& list) {
      if (command != "forward-positions") return;
      {
        std::lock_guard lock(outMu);
        for (const ForwardPositionView& p : list)
          out << "position=" << p.position << " " << (p.isLong ? "long" : "short") << " " << toString(p.accelerator)
              << " week_start=" << p.weekStart << " gpu_hours=" << p.gpuHours << " price=$" << dollars(p.price)
              << " status=" << p.status << " margin=$" << dollars(p.margin) << " last_mark=$" << dollars(p.lastMark)
              << "\n";
        if (list.empty()) out << "no forward positions\n";
      }
      w.finish(true);
    };
  }
  cb.onSettlement = [&](const SettlementNotice& n) {
    std::lock_guard lock(outMu);
    out << "settlement contract=" << n.contract << " state=" << n.state << " " << n.what << "\n";
  };
  cb.onBalance = [&](const Balance& b) {
    if (command != "balance") return;
    {
      std::lock_guard lock(outMu);
      out << "cash=$" << dollars(b.cash) << " reserved=$" << dollars(b.reserved) << " available=$"
          << dollars(b.available()) << " escrow=$" << dollars(b.escrow) << " credits=$" << dollars(b.credits)
          << "\n";
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
      if (list.empty()) out << "no working orders\n";
    }
    w.finish(true);
  };
  cb.onPositions = [&](const std::vector<Contract>& list) {
    {
      std::lock_guard lock(outMu);
      for (const Contract& c : list) {
        out << "contract=" << c.id << " " << (c.buyOrder ? "bought" : "sold") << " cluster=" << c.cluster
            << " gpus=" << c.gpus << " hours=[" << c.start << "," << c.end << ") price=$" << dollars(c.price)
            << "\n";
      }
      if (list.empty()) out << "no contracts\n";
    }
    w.finish(true);
  };
  cb.onBook = [&](const std::vector<BookCell>& cells, bool snapshot) {
    if (!snapshot) return;
    {
      std::lock_guard lock(outMu);
      for (const BookCell& c : cells) {
        if (bookCluster && c.key.cluster != *bookCluster) continue;
        out << "cluster=" << c.key.cluster << " hour=" << c.key.hour << " "
            << (c.key.side == Side::Buy ? "bids" : "asks") << ":";
        for (const BookLevel& l : c.levels) out << " " << l.gpus << "@$" << dollars(l.price);
        out << "\n";
      }
      if (cells.empty()) out << "the book is empty\n";
    }
    w.finish(true);
  };

  ExchangeClient client(options, cb);
  client.start();
  {
    std::unique_lock lock(w.mu);
    if (!w.cv.wait_for(lock, std::chrono::seconds(10), [&] { return w.loggedOn || w.done; })) {
      err << "tessera-cli: could not log on to " << endpoint << " within 10 s\n";
      return 1;
    }
    // Done already is a failure only if it failed: a book snapshot can beat this wake-up.
    if (w.done && w.failed) {
      err << "tessera-cli: " << w.failure << "\n";
      return 1;
    }
  }

  if (command == "place") {
    nlohmann::json j;
    if (flags.count("json")) {
      j = nlohmann::json::parse(flags["json"], nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        err << "tessera-cli: --json is not a JSON object\n";
        return 2;
      }
    } else {
      for (const char* required : {"side", "cluster", "gpus", "start", "end", "limit-usd"}) {
        if (!flags.count(required)) {
          err << "tessera-cli: place needs --" << required << " (or --json)\n";
          return 2;
        }
      }
      j["side"] = flags["side"];
      j["cluster"] = std::stoll(flags["cluster"]);
      j["gpus"] = std::stoll(flags["gpus"]);
      j["start"] = std::stoll(flags["start"]);
      j["end"] = std::stoll(flags["end"]);
      j["limit"] = std::llround(std::stod(flags["limit-usd"]) * kMicrosPerDollar);
      if (flags.count("fill")) j["fill"] = flags["fill"];
      if (flags.count("tif")) j["tif"] = flags["tif"];
      if (flags.count("duration")) j["duration"] = std::stoll(flags["duration"]);
    }
    j["id"] = 1;  // placeholder: the exchange assigns the id
    auto parsed = orderFromJson(j, 0);
    if (auto* e = std::get_if<JsonError>(&parsed)) {
      err << "tessera-cli: " << e->message << "\n";
      return 2;
    }
    {
      std::lock_guard lock(outMu);
      placedClOrdId = flags.count("cl-ord-id") ? flags["cl-ord-id"] : "";
      placedClOrdId = client.placeOrder(std::get<OrderRequest>(parsed), placedClOrdId);
    }
  } else if (command == "cancel" || command == "amend") {
    if (positional.empty()) {
      err << "tessera-cli: " << command << " needs an order id\n";
      return 2;
    }
    const OrderId id = std::stoull(positional[0]);
    if (command == "cancel") {
      client.cancel(id);
    } else {
      std::optional<Price> limit;
      std::optional<GpuCount> gpus;
      if (flags.count("limit-usd")) limit = std::llround(std::stod(flags["limit-usd"]) * kMicrosPerDollar);
      if (flags.count("gpus")) gpus = static_cast<GpuCount>(std::stol(flags["gpus"]));
      client.amend(id, limit, gpus);
    }
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
    for (const Cluster& c : client.clusters()) out << toJson(c).dump() << "\n";
    w.finish(true);
  } else if (command == "book") {
    // The snapshot arrives by itself after logon.
  } else if (command == "report-delivery" || command == "outage") {
    const bool outage = command == "outage";
    const char* amount = outage ? "lost" : "usable";
    if (positional.empty() || !flags.count("start") || !flags.count("end") || !flags.count(amount)) {
      err << "tessera-cli: " << command << " needs " << (outage ? "a cluster id" : "a contract id")
          << ", --start, --end and --" << amount << "\n";
      return 2;
    }
    auto problem = parseDeliveryProblem(flags.count("problem") ? flags["problem"] : "missing_gpus");
    if (!problem) {
      err << "tessera-cli: --problem takes missing_gpus, link_degraded, power_curtailed\n";
      return 2;
    }
    const auto id = std::stoull(positional[0]);
    const Hour start = std::stoll(flags["start"]), end = std::stoll(flags["end"]);
    const auto gpus = static_cast<GpuCount>(std::stol(flags[amount]));
    if (outage) client.reportOutage(static_cast<ClusterId>(id), start, end, gpus, *problem);
    else client.reportDelivery(static_cast<ContractId>(id), start, end, gpus, *problem);
  } else if (command == "forward") {
    ForwardNewOrder o;
    auto accelerator = parseAccelerator(flags.count("accelerator") ? flags["accelerator"] : "");
    if (!accelerator || !flags.count("side") || !flags.count("week-start") || !flags.count("gpu-hours") ||
        !flags.count("price-usd") || (flags["side"] != "buy" && flags["side"] != "sell")) {
      err << "tessera-cli: forward needs --side buy|sell, --accelerator, --week-start, --gpu-hours and --price-usd\n";
      return 2;
    }
    o.side = flags["side"] == "buy" ? Side::Buy : Side::Sell;
    o.accelerator = *accelerator;
    o.weekStart = std::stoll(flags["week-start"]);
    o.gpuHours = std::stoll(flags["gpu-hours"]);
    o.price = std::llround(std::stod(flags["price-usd"]) * kMicrosPerDollar);
    client.placeForward(o);
  } else if (command == "forward-cancel") {
    if (positional.empty()) {
      err << "tessera-cli: forward-cancel needs an order id\n";
      return 2;
    }
    client.cancelForward(std::stoull(positional[0]));
  } else if (command == "forward-orders" || command == "forward-positions") {
    // Both lists arrive by themselves after logon (the client asks when it has the callbacks).
  } else {
    err << "tessera-cli: unknown --connect command '" << command << "'\n";
    usage(err);
    return 2;
  }
  if (!w.wait(std::chrono::seconds(10))) {
    err << "tessera-cli: no answer from the exchange within 10 s\n";
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
  return 0;
}

}  // namespace

}  // namespace tessera::net
