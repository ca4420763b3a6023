#include "core/net/ExchangeClient.h"
#include "core/net/LostHours.h"

#include "core/engine/EventJson.h"
#include "core/net/ClientMessage.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <nlohmann/json.hpp>

#include <deque>
#include <mutex>
#include <thread>

namespace tessera::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxInboundLine = 256 * 1024 * 1024;  // a snapshot of a very busy grid

std::optional<Side> sideOf(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  if (*it == "buy") return Side::Buy;
  if (*it == "sell") return Side::Sell;
  return std::nullopt;
}

template <class T>
T num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return T{};
  return it->get<T>();
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

std::vector<ForwardLevel> forwardLevelsFrom(const json& j, const char* key) {
  std::vector<ForwardLevel> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& l : *it)
    if (l.is_array() && l.size() == 3 && l[0].is_number_integer() && l[1].is_number_integer() &&
        l[2].is_number_integer())
      out.push_back(ForwardLevel{l[0].get<Price>(), l[1].get<std::int64_t>(), l[2].get<int>()});
  return out;
}

std::optional<ForwardBookView> forwardBookFrom(const json& j) {
  auto a = parseAccelerator(str(j, "accelerator"));
  if (!a) return std::nullopt;
  return ForwardBookView{*a, num<Hour>(j, "week_start"), forwardLevelsFrom(j, "bids"), forwardLevelsFrom(j, "asks")};
}

// A level's terms travel in the form of an order's "terms" field; the engine's order parser is
// the one reader of that form, so the terms are read through it.
std::optional<OfferTerms> termsFrom(const json& terms) {
  json order{{"id", 0},    {"side", "sell"}, {"cluster", 1}, {"gpus", 1},
             {"start", 0}, {"end", 1},       {"limit", 1},   {"terms", terms}};
  auto parsed = orderFromJson(order, 0);
  if (auto* o = std::get_if<OrderRequest>(&parsed)) return o->terms;
  return std::nullopt;
}

std::optional<BookCell> cellFrom(const json& j) {
  auto side = sideOf(j, "side");
  auto levels = j.find("levels");
  if (!side || levels == j.end() || !levels->is_array()) return std::nullopt;
  BookCell c;
  c.key = CellKey{num<ClusterId>(j, "cluster"), num<Hour>(j, "hour"), *side};
  for (const json& l : *levels) {
    if (!l.is_array() || l.size() < 3 || l.size() > 4) return std::nullopt;
    BookLevel level{l[0].get<Price>(), l[1].get<GpuCount>(), l[2].get<int>()};
    if (l.size() == 4) {
      auto terms = termsFrom(l[3]);
      if (!terms) return std::nullopt;
      level.terms = *terms;
    }
    c.levels.push_back(std::move(level));
  }
  return c;
}

std::optional<Tenor> tenorNamed(const std::string& s) {
  for (Tenor t : kTenors)
    if (toString(t) == s) return t;
  return std::nullopt;
}

std::optional<IndexPoint> indexPointFrom(const json& j) {
  auto accelerator = parseAccelerator(str(j, "accelerator"));
  auto tenor = tenorNamed(str(j, "tenor"));
  if (!accelerator || !tenor) return std::nullopt;
  IndexPoint p;
  p.accelerator = *accelerator;
  p.tenor = *tenor;
  p.asOf = num<Hour>(j, "as_of");
  p.price = num<Price>(j, "price");
  p.gpuHours = num<std::int64_t>(j, "gpu_hours");
  p.trades = num<int>(j, "trades");
  auto stale = j.find("stale");
  p.stale = stale != j.end() && stale->is_boolean() && stale->get<bool>();
  return p;
}

std::vector<IndexPoint> indexPointsFrom(const json& j, const char* key) {
  std::vector<IndexPoint> out;
  if (auto it = j.find(key); it != j.end() && it->is_array()) {
    for (const json& p : *it)
      if (auto point = indexPointFrom(p)) out.push_back(*point);
  }
  return out;
}

}  // namespace

class ExchangeClient::Impl {
 public:
  Impl(ClientOptions o, ClientCallbacks c)
      : options(std::move(o)), callbacks(std::move(c)), socket(io), resolver(io), retryTimer(io), heartbeatTimer(io) {
    if (!options.caFile.empty()) options.tls = true;
    if (options.tls) {
      sslContext = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
      SSL_CTX_set_min_proto_version(sslContext->native_handle(), TLS1_2_VERSION);
      sslContext->set_verify_mode(asio::ssl::verify_peer);
      boost::system::error_code ec;
      if (options.caFile.empty())
        sslContext->set_default_verify_paths(ec);
      else
        sslContext->load_verify_file(options.caFile, ec);
      // Reported at every connection attempt (the state callback is not set up yet here).
      if (ec) tlsSetupError = "cannot read CA file '" + options.caFile + "': " + ec.message();
    }
    idPrefix = "c" +
               std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count() %
                              100'000'000'000LL) +
               "-";
  }

  ClientOptions options;
  ClientCallbacks callbacks;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  tcp::socket socket;
  // With TLS, reads and writes go through `tls`, made anew for every connection.
  std::unique_ptr<asio::ssl::context> sslContext;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls;
  std::string tlsSetupError;
  tcp::resolver resolver;
  asio::steady_timer retryTimer;
  asio::steady_timer heartbeatTimer;
  std::thread thread;
  bool running = false;

  // io thread only
  std::string inbound;
  std::deque<std::string> outbound;
  bool writing = false;
  bool connected = false;  // TCP up and logon acknowledged
  bool stopping = false;
  std::chrono::milliseconds backoff{0};
  std::uint64_t generation = 0;  // bumps on every (re)connect, so stale handlers give up
  std::uint64_t lastEpoch = 0;
  bool resyncPending = false;
  Clock::time_point lastInbound;
  // The request id of the ping under way (io thread); high ids, apart from any a caller uses.
  std::optional<std::uint64_t> pingReq;
  Clock::time_point pingSentAt;
  std::uint64_t pings = std::uint64_t{1} << 48;

  // shared with other threads
  mutable std::mutex mutex;
  ConnectionState state = ConnectionState::Stopped;
  std::vector<Cluster> clusterList;
  CallSchedule schedule;
  std::optional<CallReport> lastCallReport;
  Hour clock = 0;
  BookMirror mirror;
  std::uint64_t gaps = 0;
  std::atomic<std::uint64_t> nextClOrdId{1};
  std::string idPrefix;

  void setState(ConnectionState s, const std::string& detail) {
    {
      std::lock_guard lock(mutex);
      state = s;
    }
    if (callbacks.onConnection) callbacks.onConnection(s, detail);
  }

  void error(std::string code, std::string reason, std::string type) {
    if (callbacks.onError) callbacks.onError(RequestError{std::move(code), std::move(reason), std::move(type)});
  }

  // ---- connection ----

  void connect() {
    if (stopping) return;
    const std::uint64_t gen = ++generation;
    tls.reset();
    setState(ConnectionState::Connecting, options.host + ":" + std::to_string(options.port));
    if (!tlsSetupError.empty()) return lost(tlsSetupError);
    resolver.async_resolve(
        options.host, std::to_string(options.port),
        [this, gen](boost::system::error_code ec, tcp::resolver::results_type results) {
          if (gen != generation || stopping) return;
          if (ec) return lost("cannot resolve " + options.host + ": " + ec.message());
          asio::async_connect(socket, results, [this, gen](boost::system::error_code ec2, const tcp::endpoint&) {
            if (gen != generation || stopping) return;
            if (ec2) return lost("cannot connect: " + ec2.message());
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            if (!sslContext) return loggedOnStart(gen);
            // The handlers of the last connection's stream have all run by now (its socket was
            // closed a backoff ago), so it can go.
            tls = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket, *sslContext);
            SSL_set_tlsext_host_name(tls->native_handle(), options.host.c_str());  // SNI
            tls->set_verify_callback(asio::ssl::host_name_verification(options.host));
            tls->async_handshake(asio::ssl::stream_base::client, [this, gen](boost::system::error_code ec3) {
              if (gen != generation || stopping) return;
              if (ec3) return lost("TLS handshake with " + options.host + " failed: " + ec3.message());
              loggedOnStart(gen);
            });
          });
        });
  }

  // Connected (and, with TLS, handshaken): log on and start reading.
  void loggedOnStart(std::uint64_t gen) {
    lastInbound = Clock::now();
    json logon{{"type", "logon"}, {"account", options.account}, {"key", options.key}};
    sendLine(logon.dump());
    read(gen);
  }

  // Runs f on the connection's stream: the TLS stream, or the plain socket.
  template <class F>
  void onStream(F&& f) {
    if (tls)
      f(*tls);
    else
      f(socket);
  }

  void lost(const std::string& why) {
    if (stopping) return;
    ++generation;
    connected = false;
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    outbound.clear();
    writing = false;
    positionsPages.clear();  // a reply cut off by the loss is dropped: its asker asks again
    statusPages.clear();
    positionsPaging = false;
    positionsAgain = false;
    historyPages.clear();
    historyPaging = false;
    inbound.clear();
    heartbeatTimer.cancel();
    backoff = backoff.count() == 0 ? options.backoffMin : std::min(backoff * 2, options.backoffMax);
    setState(ConnectionState::Disconnected, why + "; retrying in " + std::to_string(backoff.count()) + " ms");
    retryTimer.expires_after(backoff);
    retryTimer.async_wait([this](boost::system::error_code ec) {
      if (!ec) connect();
    });
  }

  void read(std::uint64_t gen) {
    onStream([&](auto& stream) {
      asio::async_read_until(
          stream, asio::dynamic_buffer(inbound, kMaxInboundLine), '\n',
          [this, gen](boost::system::error_code ec, std::size_t n) {
            if (gen != generation || stopping) return;
            if (ec) return lost(ec == asio::error::eof ? "the exchange closed the connection" : ec.message());
            lastInbound = Clock::now();
            std::string line = inbound.substr(0, n - 1);
            inbound.erase(0, n);
            onLine(line);
            if (gen == generation && !stopping) read(gen);
          });
    });
  }

  void sendLine(std::string line) {
    line.push_back('\n');
    outbound.push_back(std::move(line));
    if (!writing) writeNext();
  }

  void writeNext() {
    if (outbound.empty()) {
      writing = false;
      return;
    }
    writing = true;
    const std::uint64_t gen = generation;
    onStream([&](auto& stream) {
      asio::async_write(stream, asio::buffer(outbound.front()), [this, gen](boost::system::error_code ec, std::size_t) {
        if (gen != generation || stopping) return;
        if (ec) return lost("write failed: " + ec.message());
        outbound.pop_front();
        writeNext();
      });
    });
  }

  void heartbeat(std::uint64_t gen) {
    heartbeatTimer.expires_after(options.heartbeat);
    heartbeatTimer.async_wait([this, gen](boost::system::error_code ec) {
      if (ec || gen != generation || stopping) return;
      if (Clock::now() - lastInbound > 3 * options.heartbeat + std::chrono::seconds(5)) {
        return lost("the exchange went silent");
      }
      sendLine("{\"type\":\"heartbeat\"}");
      heartbeat(gen);
    });
  }

  void subscribe() {
    bool resume;
    std::uint64_t from;
    {
      std::lock_guard lock(mutex);
      resume = mirror.hasSnapshot();
      from = mirror.seq() + 1;
    }
    resyncPending = true;
    sendLine(resume ? "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(from) + "}"
                    : std::string("{\"type\":\"subscribe\"}"));
  }

  // ---- inbound ----

  void onLine(const std::string& line) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return;  // tolerate what we cannot read
    const std::string type = str(j, "type");
    if (type == "heartbeat") return onHeartbeat(j);
    if (type == "logon_ack") return onLogon(j);
    if (type == "exec") return onExec(j);
    if (type == "orders") return onOrders(j);
    if (type == "positions") return onPositions(j);
    if (type == "order_status") return onOrderStatus(j);
    if (type == "order_history") return onOrderHistory(j);
    if (type == "md_snapshot") return onSnapshot(j);
    if (type == "error") return onError(j);
    if (onMarketData(type, j) || onForwardReply(type, j) || onOptionReply(type, j)) return;
    if (type == "md_resume") {
      resyncPending = false;
      std::lock_guard lock(mutex);
      ++gaps;
      return;
    }
    if (type == "indicative") return onCallReport(j, true);
    if (type == "reclaim_rates") {
      if (callbacks.onReclaimRates) callbacks.onReclaimRates(reclaimRatesFrom(j));
      return;
    }
    if (type == "index_history") {
      if (callbacks.onIndex) callbacks.onIndex(indexPointsFrom(j, "points"));
      return;
    }
    if (type == "delivery_report_ack" || type == "outage_ack" || type == "reclaim_ack") {
      if (callbacks.onReportAck) callbacks.onReportAck(type);
      return;
    }
    if (type == "settlement") {
      if (callbacks.onSettlement)
        callbacks.onSettlement(
            SettlementNotice{num<ContractId>(j, "contract"), str(j, "state"), str(j, "what"), num<Hour>(j, "now")});
      return;
    }
    if (type == "balance") {
      if (callbacks.onBalance)
        callbacks.onBalance(Balance{num<Money>(j, "cash"), num<Money>(j, "reserved"), num<Money>(j, "escrow"),
                                    num<Money>(j, "credits")});
      return;
    }
  }

  void onHeartbeat(const json& j) {
    if (pingReq && j.contains("req") && num<std::uint64_t>(j, "req") == *pingReq) {
      pingReq.reset();
      if (callbacks.onRoundTrip) callbacks.onRoundTrip(Clock::now() - pingSentAt);
    }
  }

  // The mirror's sequence number of a market-data line other than a cell: it only advances.
  BookMirror::Result advanceSequence(const json& j) {
    std::lock_guard lock(mutex);
    return mirror.advance(num<std::uint64_t>(j, "seq"));
  }

  // A numbered market-data line (all but md_snapshot); false if `type` is none.
  bool onMarketData(const std::string& type, const json& j) {
    if (type == "md_cell") {
      auto cell = cellFrom(j);
      if (!cell) return true;
      BookMirror::Result r;
      {
        std::lock_guard lock(mutex);
        r = mirror.applyCell(num<std::uint64_t>(j, "seq"), *cell);
      }
      afterSequenced(r, [&] {
        if (callbacks.onBook) callbacks.onBook({*cell}, false);
      });
    } else if (type == "trade") {
      afterSequenced(advanceSequence(j), [&] {
        Trade t;
        t.seq = num<std::uint64_t>(j, "seq");
        t.trade = num<TradeId>(j, "trade");
        t.cluster = num<ClusterId>(j, "cluster");
        t.gpus = num<GpuCount>(j, "gpus");
        t.start = num<Hour>(j, "start");
        t.end = num<Hour>(j, "end");
        t.price = num<Price>(j, "price");
        t.call = j.value("call", std::uint64_t{0});
        // "none" (a call's trade) is no side.
        t.aggressor = sideOf(j, "aggressor");
        if (callbacks.onTrade) callbacks.onTrade(t);
      });
    } else if (type == "md_clock") {
      BookMirror::Result r;
      {
        std::lock_guard lock(mutex);
        r = mirror.advance(num<std::uint64_t>(j, "seq"));
        if (r == BookMirror::Result::Applied) clock = num<Hour>(j, "now");
      }
      afterSequenced(r, [&] {
        if (callbacks.onClock) callbacks.onClock(num<Hour>(j, "now"));
      });
    } else if (type == "md_cluster") {
      std::optional<Cluster> added;
      if (auto it = j.find("cluster"); it != j.end()) {
        auto parsed = clusterFromJson(*it);
        if (auto* c = std::get_if<Cluster>(&parsed)) added = *c;
      }
      BookMirror::Result r;
      {
        std::lock_guard lock(mutex);
        r = mirror.advance(num<std::uint64_t>(j, "seq"));
        if (r == BookMirror::Result::Applied && added) clusterList.push_back(*added);
      }
      afterSequenced(r, [] {});
    } else if (type == "md_reclaim_rates") {
      afterSequenced(advanceSequence(j), [&] {
        if (callbacks.onReclaimRates) callbacks.onReclaimRates(reclaimRatesFrom(j));
      });
    } else if (type == "md_call_result") {
      afterSequenced(advanceSequence(j), [&] { onCallReport(j, false); });
    } else if (type == "md_index") {
      afterSequenced(advanceSequence(j), [&] {
        auto point = indexPointFrom(j);
        if (point && callbacks.onIndex) callbacks.onIndex({*point});
      });
    } else if (type == "md_forward_book" || type == "md_forward_trade" || type == "md_forward_settlement") {
      afterSequenced(advanceSequence(j), [&] {
        if (type == "md_forward_book") {
          if (auto b = forwardBookFrom(j); b && callbacks.onForwardBook) callbacks.onForwardBook(*b);
          return;
        }
        auto a = parseAccelerator(str(j, "accelerator"));
        if (a && callbacks.onForwardPrint)
          callbacks.onForwardPrint(ForwardPrint{*a, num<Hour>(j, "week_start"), num<std::int64_t>(j, "gpu_hours"),
                                                num<Price>(j, "price"), type == "md_forward_settlement"});
      });
    } else {
      return false;
    }
    return true;
  }

  // The clusters of a reclaim_rates reply or an md_reclaim_rates line.
  static std::vector<ReclaimRate> reclaimRatesFrom(const json& j) {
    std::vector<ReclaimRate> rates;
    if (auto it = j.find("clusters"); it != j.end() && it->is_array())
      for (const json& c : *it)
        rates.push_back({num<ClusterId>(c, "cluster"), num<std::int64_t>(c, "sold_gpu_hours"),
                         num<std::int64_t>(c, "reclaimed_gpu_hours"), c.value("rate", 0.0),
                         num<std::int64_t>(c, "contracted_hours"), num<std::int64_t>(c, "reclaimed_contracts")});
    return rates;
  }

  // An option reply, event or market-data line; false if `type` is none.
  bool onOptionReply(const std::string& type, const json& j) {
    if (type.rfind("md_option_", 0) == 0) {
      BookMirror::Result r;
      {
        std::lock_guard lock(mutex);
        r = mirror.advance(num<std::uint64_t>(j, "seq"));
      }
      afterSequenced(r, [&] {
        if (callbacks.onOptionMarketData) callbacks.onOptionMarketData(type);
      });
      return true;
    }
    if (type == "option_chain") {
      if (auto c = optionChainFrom(j); c && callbacks.onOptionChain) callbacks.onOptionChain(*c);
      return true;
    }
    if (type == "option_orders") {
      if (callbacks.onOptionOrders) callbacks.onOptionOrders(optionOrdersFrom(j), num<Money>(j, "held"));
      return true;
    }
    if (type == "option_positions") {
      if (callbacks.onOptionPositions) callbacks.onOptionPositions(optionPositionsFrom(j));
      return true;
    }
    if (isOptionEventType(type)) {
      if (callbacks.onOptionEvent) callbacks.onOptionEvent(optionEventFrom(j, type));
      // What changed is asked for again rather than patched, as for forwards.
      if (callbacks.onOptionOrders) request("option_orders", "{\"type\":\"option_orders\"}");
      if (callbacks.onOptionPositions && type != "option_accepted")
        request("option_positions", "{\"type\":\"option_positions\"}");
      return true;
    }
    return false;
  }

  // A reply to a forward request or a forward event of the account; false if `type` is none.
  bool onForwardReply(const std::string& type, const json& j) {
    if (type == "forward_book") {
      if (auto b = forwardBookFrom(j); b && callbacks.onForwardBook) callbacks.onForwardBook(*b);
    } else if (type == "forward_orders") {
      std::vector<ForwardWorkingOrder> list;
      if (auto it = j.find("orders"); it != j.end() && it->is_array())
        for (const json& o : *it) {
          auto a = parseAccelerator(str(o, "accelerator"));
          if (!a) continue;
          list.push_back(ForwardWorkingOrder{num<std::uint64_t>(o, "order_id"), str(o, "cl_ord_id"),
                                             sideOf(o, "side").value_or(Side::Buy), *a, num<Hour>(o, "week_start"),
                                             num<std::int64_t>(o, "leaves_gpu_hours"), num<Price>(o, "price")});
        }
      if (callbacks.onForwardOrders) callbacks.onForwardOrders(list, num<Money>(j, "margin_held"));
    } else if (type == "forward_positions") {
      std::vector<ForwardPositionView> list;
      if (auto it = j.find("positions"); it != j.end() && it->is_array())
        for (const json& p : *it) {
          auto a = parseAccelerator(str(p, "accelerator"));
          if (!a) continue;
          list.push_back(ForwardPositionView{num<std::uint64_t>(p, "position"), str(p, "side") == "long", *a,
                                             num<Hour>(p, "week_start"), num<std::int64_t>(p, "gpu_hours"),
                                             num<Price>(p, "price"), str(p, "status"), num<Money>(p, "margin"),
                                             num<Price>(p, "last_mark")});
        }
      if (callbacks.onForwardPositions) callbacks.onForwardPositions(list);
    } else if (type == "forward_accepted" || type == "forward_rejected" || type == "forward_fill" ||
               type == "forward_cancelled" || type == "forward_notice") {
      if (callbacks.onForwardEvent) callbacks.onForwardEvent(type, forwardEventText(type, j));
      // What changed is asked for again rather than patched: one source of truth, the exchange.
      if (callbacks.onForwardOrders) request("forward_orders", "{\"type\":\"forward_orders\"}");
      if (callbacks.onForwardPositions && type != "forward_accepted")
        request("forward_positions", "{\"type\":\"forward_positions\"}");
    } else {
      return false;
    }
    return true;
  }

  static std::string forwardEventText(const std::string& type, const json& j) {
    if (type == "forward_accepted")
      return "forward order " + std::to_string(num<std::uint64_t>(j, "order_id")) + " accepted, margin held " +
             toDollars(num<Money>(j, "margin_held"));
    if (type == "forward_rejected")
      return "forward order " + str(j, "cl_ord_id") + " rejected (" + str(j, "code") + "): " + str(j, "reason");
    if (type == "forward_fill")
      return std::string(str(j, "side") == "buy" ? "bought " : "sold ") +
             std::to_string(num<std::int64_t>(j, "gpu_hours")) + " GPU-h of the " + str(j, "accelerator") +
             " index at " + toDollars(num<Price>(j, "price")) + " (position " +
             std::to_string(num<std::uint64_t>(j, "position")) + ")";
    if (type == "forward_cancelled")
      return "forward order " + std::to_string(num<std::uint64_t>(j, "order_id")) + " cancelled (" + str(j, "reason") +
             ")";
    return "position " + std::to_string(num<std::uint64_t>(j, "position")) + ": " + str(j, "what");
  }

  void onSnapshot(const json& j) {
    std::vector<BookCell> cells;
    if (auto it = j.find("cells"); it != j.end() && it->is_array()) {
      for (const json& c : *it) {
        if (auto cell = cellFrom(c)) cells.push_back(std::move(*cell));
      }
    }
    bool recovered;
    {
      std::lock_guard lock(mutex);
      recovered = mirror.hasSnapshot();
      mirror.applySnapshot(num<std::uint64_t>(j, "seq"), cells);
      clock = num<Hour>(j, "now");
      if (recovered) ++gaps;
    }
    resyncPending = false;
    if (callbacks.onBook) callbacks.onBook(cells, true);
    if (callbacks.onIndex) {
      auto current = indexPointsFrom(j, "index");
      if (!current.empty()) callbacks.onIndex(current);
    }
    if (auto it = j.find("forward_books"); it != j.end() && it->is_array() && callbacks.onForwardBook)
      for (const json& b : *it)
        if (auto book = forwardBookFrom(b)) callbacks.onForwardBook(*book);
  }

  void onError(const json& j) {
    const std::string code = str(j, "code");
    if (str(j, "req_type") == "logon" || code == "auth_failed") {
      stopping = true;  // retrying with the same key cannot succeed
      ++generation;
      boost::system::error_code ignored;
      socket.close(ignored);
      setState(ConnectionState::AuthFailed, str(j, "reason"));
      return;
    }
    if (str(j, "req_type") == "order_history") {
      historyPages.clear();
      historyPaging = false;
    }
    if (str(j, "req_type") == "positions") {  // the pages under way end here
      positionsPages.clear();
      statusPages.clear();
      positionsPaging = false;
      positionsAgain = false;
    }
    error(code, str(j, "reason"), str(j, "req_type"));
  }

  template <class F>
  void afterSequenced(BookMirror::Result r, F&& deliver) {
    if (r == BookMirror::Result::Applied) {
      deliver();
    } else if (r == BookMirror::Result::Gap && !resyncPending) {
      subscribe();  // re-request from the first missing message
    }
  }

  // md_call_result, or the indicative reply with the schedule and the last call beside it.
  void onCallReport(const json& j, bool indicative) {
    CallReport report;
    try {
      report = j.get<CallReport>();
      std::lock_guard lock(mutex);
      if (auto it = j.find("call_mode"); it != j.end()) schedule = it->get<CallSchedule>();
      if (auto it = j.find("next_call"); it != j.end()) schedule.nextCallUnix = it->get<std::int64_t>();
      if (!indicative) lastCallReport = report;
      if (auto it = j.find("last_call"); it != j.end()) lastCallReport = it->get<CallReport>();
    } catch (const json::exception&) {
      return;  // not the form docs/protocol.md gives: nothing to show
    }
    if (callbacks.onCall) callbacks.onCall(report, indicative);
  }

  void onLogon(const json& j) {
    CallSchedule calls;
    if (auto it = j.find("call_mode"); it != j.end()) {
      try {
        calls = it->get<CallSchedule>();
      } catch (const json::exception&) {
      }
    }
    std::vector<Cluster> list;
    if (auto it = j.find("clusters"); it != j.end() && it->is_array()) {
      for (const json& c : *it) {
        auto parsed = clusterFromJson(c);
        if (auto* cl = std::get_if<Cluster>(&parsed)) list.push_back(*cl);
      }
    }
    const auto epoch = num<std::uint64_t>(j, "epoch");
    {
      std::lock_guard lock(mutex);
      clusterList = std::move(list);
      schedule = std::move(calls);
      clock = num<Hour>(j, "now");
      // Sequence numbers restart with the exchange process: resume only within one epoch.
      if (epoch != lastEpoch) mirror.reset();
    }
    lastEpoch = epoch;
    connected = true;
    backoff = std::chrono::milliseconds(0);
    setState(ConnectionState::LoggedOn, str(j, "account"));
    heartbeat(generation);
    if (options.marketData) {
      subscribe();
      // So a chart has the past right away (only a client that charts asks for it).
      if (callbacks.onIndex) sendLine("{\"type\":\"index_history\"}");
    }
    if (callbacks.onForwardOrders) sendLine("{\"type\":\"forward_orders\"}");
    if (callbacks.onForwardPositions) sendLine("{\"type\":\"forward_positions\"}");
    if (callbacks.onOptionOrders) sendLine("{\"type\":\"option_orders\"}");
    if (callbacks.onOptionPositions) sendLine("{\"type\":\"option_positions\"}");
  }

  void onExec(const json& j) {
    OrderUpdate u;
    const std::string state = str(j, "state");
    if (state == "accepted")
      u.state = OrderState::Accepted;
    else if (state == "rejected")
      u.state = OrderState::Rejected;
    else if (state == "partially_filled")
      u.state = OrderState::PartiallyFilled;
    else if (state == "filled")
      u.state = OrderState::Filled;
    else if (state == "cancelled")
      u.state = OrderState::Cancelled;
    else if (state == "amended")
      u.state = OrderState::Amended;
    else
      return;
    u.clOrdId = str(j, "cl_ord_id");
    u.orderId = num<OrderId>(j, "order_id");
    u.code = str(j, "code");
    u.reason = str(j, "reason");
    u.trade = num<TradeId>(j, "trade");
    u.cluster = num<ClusterId>(j, "cluster");
    u.gpus = num<GpuCount>(j, "gpus");
    u.start = num<Hour>(j, "start");
    u.end = num<Hour>(j, "end");
    u.price = num<Price>(j, "price");
    u.leavesGpuHours = num<std::int64_t>(j, "leaves_gpu_hours");
    u.aggressor = j.value("aggressor", false);
    u.call = j.value("call", std::uint64_t{0});
    u.limit = num<Price>(j, "limit");
    if (callbacks.onOrder) callbacks.onOrder(u);
  }

  void onOrders(const json& j) {
    std::vector<WorkingOrder> list;
    if (auto it = j.find("orders"); it != j.end() && it->is_array()) {
      for (const json& o : *it) {
        WorkingOrder w;
        w.clOrdId = str(o, "cl_ord_id");
        w.orderId = num<OrderId>(o, "order_id");
        w.filledGpuHours = num<std::int64_t>(o, "filled_gpu_hours");
        w.leavesGpuHours = num<std::int64_t>(o, "leaves_gpu_hours");
        if (auto r = o.find("order"); r != o.end()) {
          auto parsed = orderFromJson(*r, 0);
          if (auto* req = std::get_if<OrderRequest>(&parsed)) w.request = *req;
        }
        list.push_back(std::move(w));
      }
    }
    if (callbacks.onOrders) callbacks.onOrders(list);
  }

  void onOrderStatus(const json& j) {
    if (callbacks.onOrderStatus) callbacks.onOrderStatus(statusOf(j));
  }
  // One order as order_status and order_history describe it.
  static OrderStatusReply statusOf(const json& j) {
    OrderStatusReply r;
    r.orderId = num<OrderId>(j, "order_id");
    r.clOrdId = str(j, "cl_ord_id");
    r.status = str(j, "status");
    r.filledGpuHours = num<std::int64_t>(j, "filled_gpu_hours");
    r.leavesGpuHours = num<std::int64_t>(j, "leaves_gpu_hours");
    if (auto o = j.find("order"); o != j.end()) {
      auto parsed = orderFromJson(*o, 0);
      if (auto* req = std::get_if<OrderRequest>(&parsed)) r.order = *req;
    }
    return r;
  }
  // Pages gathered as for positions; one history request is paged at a time.
  void onOrderHistory(const json& j) {
    if (auto it = j.find("orders"); it != j.end() && it->is_array())
      for (const json& o : *it) historyPages.push_back(statusOf(o));
    if (auto next = j.find("next_after"); next != j.end() && next->is_number_unsigned()) {
      sendLine("{\"type\":\"order_history\",\"after_order\":" + std::to_string(next->get<OrderId>()) + "}");
      return;
    }
    const std::vector<OrderStatusReply> whole = std::exchange(historyPages, {});
    historyPaging = false;
    if (callbacks.onOrderHistory) callbacks.onOrderHistory(whole);
  }
  void askOrderHistory() {
    if (stopping) return;
    if (!connected) return error("not_connected", "not connected to the exchange", "order_history");
    if (historyPaging) return;  // the reply under way answers this request too
    historyPaging = true;
    sendLine("{\"type\":\"order_history\"}");
  }
  std::vector<OrderStatusReply> historyPages;
  bool historyPaging = false;

  // Pages (a reply with `next_after`) are gathered and the next one asked for; the callbacks
  // get the whole list once the last page is in.
  void onPositions(const json& j) {
    std::vector<Contract>& list = positionsPages;
    std::vector<ContractStatus>& status = statusPages;
    if (auto it = j.find("contracts"); it != j.end() && it->is_array()) {
      for (const json& c : *it) {
        status.push_back(ContractStatus{num<ContractId>(c, "contract"), str(c, "state"),
                                        num<std::int64_t>(c, "delivered_gpu_hours"), num<Money>(c, "escrow"),
                                        num<ContractId>(c, "replaces"), c.value("aggressor", false), lostHoursFrom(c),
                                        lostHoursFrom(c, "reclaimed"), c.value("in_call", false)});
        Contract k;
        k.replaces = num<ContractId>(c, "replaces");
        k.id = num<ContractId>(c, "contract");
        k.trade = num<TradeId>(c, "trade");
        (str(c, "side") == "sell" ? k.seller : k.buyer) = kOwnAccount;
        k.buyOrder = num<OrderId>(c, "buy_order");
        k.sellOrder = num<OrderId>(c, "sell_order");
        k.cluster = num<ClusterId>(c, "cluster");
        k.gpus = num<GpuCount>(c, "gpus");
        k.start = num<Hour>(c, "start");
        k.end = num<Hour>(c, "end");
        k.price = num<Price>(c, "price");
        list.push_back(k);
      }
    }
    if (auto next = j.find("next_after"); next != j.end() && next->is_number_unsigned()) {
      sendLine("{\"type\":\"positions\",\"after_contract\":" + std::to_string(next->get<ContractId>()) + "}");
      return;
    }
    const std::vector<Contract> whole = std::exchange(positionsPages, {});
    const std::vector<ContractStatus> wholeStatus = std::exchange(statusPages, {});
    positionsPaging = false;
    if (callbacks.onPositions) callbacks.onPositions(whole);
    if (callbacks.onContractStatus) callbacks.onContractStatus(wholeStatus);
    if (std::exchange(positionsAgain, false)) askPositions();
  }
  // One positions request is paged at a time: one asked for meanwhile is sent when it is done.
  void askPositions() {
    if (stopping) return;
    if (!connected) return error("not_connected", "not connected to the exchange", "positions");
    if (positionsPaging) {
      positionsAgain = true;
      return;
    }
    positionsPaging = true;
    sendLine("{\"type\":\"positions\"}");
  }
  // io thread: the pages of the positions reply under way.
  std::vector<Contract> positionsPages;
  std::vector<ContractStatus> statusPages;
  bool positionsPaging = false;
  bool positionsAgain = false;

  // ---- requests from any thread ----

  void request(std::string type, std::string line) {
    asio::post(io, [this, type = std::move(type), line = std::move(line)]() mutable {
      if (stopping) return;
      if (!connected) return error("not_connected", "not connected to the exchange", type);
      sendLine(std::move(line));
    });
  }
};

ExchangeClient::ExchangeClient(ClientOptions options, ClientCallbacks callbacks)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(callbacks))) {}

ExchangeClient::~ExchangeClient() { stop(); }

void ExchangeClient::start() {
  Impl& m = *impl_;
  if (m.running) return;
  m.running = true;
  m.stopping = false;
  m.io.restart();  // a client may be started again after stop()
  m.work.emplace(m.io.get_executor());
  asio::post(m.io, [&m] { m.connect(); });
  m.thread = std::thread([&m] { m.io.run(); });
}

void ExchangeClient::stop() {
  Impl& m = *impl_;
  if (!m.running) return;
  m.running = false;
  asio::post(m.io, [&m] {
    m.stopping = true;
    ++m.generation;
    boost::system::error_code ignored;
    m.socket.close(ignored);
    m.retryTimer.cancel();
    m.heartbeatTimer.cancel();
    m.resolver.cancel();
    m.setState(ConnectionState::Stopped, "stopped");
    m.work.reset();
    m.io.stop();
  });
  m.thread.join();
}

std::string ExchangeClient::placeOrder(const OrderRequest& order, std::string clOrdId) {
  if (clOrdId.empty()) clOrdId = impl_->idPrefix + std::to_string(impl_->nextClOrdId++);
  json j = toJson(order);
  j.erase("id");
  j["type"] = "new_order";
  j["cl_ord_id"] = clOrdId;
  impl_->request("new_order", j.dump());
  return clOrdId;
}

void ExchangeClient::cancel(OrderId order) {
  impl_->request("cancel", "{\"type\":\"cancel\",\"order_id\":" + std::to_string(order) + "}");
}

void ExchangeClient::amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  json j{{"type", "amend"}, {"order_id", order}};
  if (limit) j["limit"] = *limit;
  if (gpus) j["gpus"] = *gpus;
  impl_->request("amend", j.dump());
}

void ExchangeClient::massCancel(std::optional<ClusterId> cluster) {
  json j{{"type", "mass_cancel"}};
  if (cluster) j["cluster"] = *cluster;
  impl_->request("mass_cancel", j.dump());
}

void ExchangeClient::requestBalance() { impl_->request("balance", "{\"type\":\"balance\"}"); }
void ExchangeClient::requestOrders() { impl_->request("orders", "{\"type\":\"orders\"}"); }
void ExchangeClient::requestPositions() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->askPositions(); });
}
void ExchangeClient::requestOrderStatus(const std::string& clOrdId) {
  impl_->request("order_status", json{{"type", "order_status"}, {"cl_ord_id", clOrdId}}.dump());
}
void ExchangeClient::requestOrderStatus(OrderId orderId) {
  impl_->request("order_status", json{{"type", "order_status"}, {"order_id", orderId}}.dump());
}
void ExchangeClient::requestOrderHistory() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->askOrderHistory(); });
}
void ExchangeClient::ping() {
  Impl& m = *impl_;
  asio::post(m.io, [&m] {
    if (m.stopping || !m.connected) return;
    m.pingReq = ++m.pings;
    m.pingSentAt = Clock::now();
    m.sendLine("{\"type\":\"heartbeat\",\"req\":" + std::to_string(*m.pingReq) + "}");
  });
}
void ExchangeClient::requestIndicative() { impl_->request("indicative", "{\"type\":\"indicative\"}"); }

CallSchedule ExchangeClient::callSchedule() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->schedule;
}

std::optional<CallReport> ExchangeClient::lastCall() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->lastCallReport;
}

void ExchangeClient::requestReclaimRates() { impl_->request("reclaim_rates", "{\"type\":\"reclaim_rates\"}"); }

void ExchangeClient::requestIndexHistory() { impl_->request("index_history", "{\"type\":\"index_history\"}"); }

std::string ExchangeClient::placeForward(ForwardNewOrder order) {
  if (order.clOrdId.empty()) order.clOrdId = impl_->idPrefix + std::to_string(impl_->nextClOrdId++);
  json j{{"type", "forward_order"},
         {"cl_ord_id", order.clOrdId},
         {"side", order.side == Side::Buy ? "buy" : "sell"},
         {"accelerator", std::string(toString(order.accelerator))},
         {"week_start", order.weekStart},
         {"gpu_hours", order.gpuHours},
         {"price", order.price}};
  impl_->request("forward_order", j.dump());
  return order.clOrdId;
}

void ExchangeClient::cancelForward(std::uint64_t orderId) {
  impl_->request("forward_cancel", "{\"type\":\"forward_cancel\",\"order_id\":" + std::to_string(orderId) + "}");
}
void ExchangeClient::requestForwardOrders() { impl_->request("forward_orders", "{\"type\":\"forward_orders\"}"); }
void ExchangeClient::requestForwardPositions() {
  impl_->request("forward_positions", "{\"type\":\"forward_positions\"}");
}
std::string ExchangeClient::placeOption(OptionNewOrder order) {
  if (order.clOrdId.empty()) order.clOrdId = impl_->idPrefix + std::to_string(impl_->nextClOrdId++);
  impl_->request("option_order", optionOrderLine(order));
  return order.clOrdId;
}
void ExchangeClient::cancelOption(std::uint64_t orderId) {
  impl_->request("option_cancel", "{\"type\":\"option_cancel\",\"order_id\":" + std::to_string(orderId) + "}");
}
void ExchangeClient::requestOptionOrders() { impl_->request("option_orders", "{\"type\":\"option_orders\"}"); }
void ExchangeClient::requestOptionPositions() { impl_->request("option_positions", "{\"type\":\"option_positions\"}"); }
void ExchangeClient::requestOptionChain(Accelerator accelerator) {
  impl_->request("option_chain",
                 "{\"type\":\"option_chain\",\"accelerator\":\"" + std::string(toString(accelerator)) + "\"}");
}

void ExchangeClient::requestForwardBook(Accelerator accelerator, Hour weekStart) {
  json j{{"type", "forward_book"}, {"accelerator", std::string(toString(accelerator))}, {"week_start", weekStart}};
  impl_->request("forward_book", j.dump());
}

void ExchangeClient::reportDelivery(ContractId contract, Hour start, Hour end, GpuCount usableGpus,
                                    DeliveryProblem problem) {
  json j{{"type", "delivery_report"},
         {"contract", contract},
         {"start", start},
         {"end", end},
         {"usable_gpus", usableGpus},
         {"problem", std::string(toString(problem))}};
  impl_->request("delivery_report", j.dump());
}

void ExchangeClient::reportOutage(ClusterId cluster, Hour start, Hour end, GpuCount lostGpus, DeliveryProblem problem) {
  json j{{"type", "outage"}, {"cluster", cluster},    {"start", start},
         {"end", end},       {"lost_gpus", lostGpus}, {"problem", std::string(toString(problem))}};
  impl_->request("outage", j.dump());
}

void ExchangeClient::reclaim(ContractId contract, Hour start, Hour end, GpuCount gpus) {
  json j{{"type", "reclaim"}, {"contract", contract}, {"start", start}, {"end", end}, {"gpus", gpus}};
  impl_->request("reclaim", j.dump());
}

ConnectionState ExchangeClient::state() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state;
}

std::vector<Cluster> ExchangeClient::clusters() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->clusterList;
}

Hour ExchangeClient::now() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->clock;
}

BookMirror ExchangeClient::book() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->mirror;
}

std::uint64_t ExchangeClient::gapsRecovered() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->gaps;
}

}  // namespace tessera::net
