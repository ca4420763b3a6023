// Sustained orders/s through the exchange server over loopback with 50 clients, journal on,
// and order-to-ack latency percentiles. See README.md.
#include "core/net/ExchangeServer.h"
#include "core/net/Sha256.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::net;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr Hour kNow = 600'000;
constexpr int kHours = 200;

struct Options {
  int clients = 50;
  int window = 32;
  double seconds = 5;
  std::string db;
  std::vector<double> rates = {20'000, 50'000, 100'000};
  int mdSubscribers = 1;  // sessions that take the full market-data stream, as a terminal does
};

ExchangeConfig benchConfig(const Options& o, const std::string& db) {
  ExchangeConfig c;
  c.port = 0;
  c.dbPath = db;
  c.initialClock = kNow;
  c.followWallClock = false;
  c.limits.maxOpenOrdersPerAccount = 1'000'000;
  c.limits.maxMessagesPerSecond = 1e9;
  c.limits.burstMessages = 1e9;
  c.limits.idleTimeoutSeconds = 3600;  // the market-data subscriber only reads
  Cluster k;
  k.id = 1;
  k.name = "bench-h100";
  k.gpusPerNode = 8;
  k.nodeCount = 125'000;  // a million GPUs: the sellers never run out
  c.clusters = {k};
  for (int i = 0; i < o.clients + o.mdSubscribers; ++i) {
    AccountConfig a;
    a.name = "c" + std::to_string(i);
    a.salt = "s";
    a.keyHash = hashApiKey(a.salt, "k");
    a.cash = 1'000'000'000LL * kMicrosPerDollar;
    c.accounts.push_back(a);
    if (i % 2 == 1 && i < o.clients) c.grants.push_back(GrantConfig{a.name, k.name, 1'000'000 / o.clients, kNow, kNow + kHours});
  }
  return c;
}

class Histogram {
 public:
  void add(double us) { samples_.push_back(us); }
  void clear() { samples_.clear(); }
  std::size_t size() const { return samples_.size(); }
  double percentile(double p) {
    if (samples_.empty()) return 0;
    std::sort(samples_.begin(), samples_.end());
    return samples_[std::min(samples_.size() - 1, static_cast<std::size_t>(p * samples_.size()))];
  }

 private:
  std::vector<double> samples_;
};

struct Connection {
  explicit Connection(asio::io_context& io) : socket(io) {}
  tcp::socket socket;
  int index = 0;
  bool buyer = true;
  std::uint64_t nextOrder = 0;
  std::vector<Clock::time_point> sentAt;  // by order number
  std::string inbound;
  char buf[65536];
  std::string outbound, writing;
  bool writeBusy = false;
  int inFlight = 0;
};

class Load {
 public:
  Load(asio::io_context& io, std::uint16_t port, const Options& o) : io_(io), options_(o) {
    for (int i = 0; i < o.clients; ++i) {
      auto c = std::make_unique<Connection>(io);
      c->index = i;
      c->buyer = i % 2 == 0;
      c->socket.connect({asio::ip::make_address("127.0.0.1"), port});
      c->socket.set_option(tcp::no_delay(true));
      const std::string logon = "{\"type\":\"logon\",\"account\":\"c" + std::to_string(i) + "\",\"key\":\"k\"}\n";
      asio::write(c->socket, asio::buffer(logon));
      asio::streambuf sb;
      asio::read_until(c->socket, sb, '\n');
      std::string line(asio::buffers_begin(sb.data()), asio::buffers_end(sb.data()));
      if (line.find("logon_ack") == std::string::npos) throw std::runtime_error("logon failed: " + line);
      conns_.push_back(std::move(c));
    }
    for (auto& c : conns_) read(*c);
    for (int i = 0; i < o.mdSubscribers; ++i) {
      auto m = std::make_unique<Connection>(io);
      m->socket.connect({asio::ip::make_address("127.0.0.1"), port});
      const std::string logon = "{\"type\":\"logon\",\"account\":\"c" + std::to_string(o.clients + i) +
                                "\",\"key\":\"k\"}\n{\"type\":\"subscribe\"}\n";
      asio::write(m->socket, asio::buffer(logon));
      readMarketData(*m);
      subscribers_.push_back(std::move(m));
    }
  }

  void readMarketData(Connection& c) {
    c.socket.async_read_some(asio::buffer(c.buf), [this, &c](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        // The server drops a subscriber that falls 16 MiB behind: report it, keep trading.
        ++mdDropped_;
        return;
      }
      mdLines_ += static_cast<std::uint64_t>(std::count(c.buf, c.buf + n, '\n'));
      readMarketData(c);
    });
  }
  std::uint64_t mdLines() const { return mdLines_; }
  int mdDropped() const { return mdDropped_; }

  void queueOrder(Connection& c, Clock::time_point at) {
    const std::uint64_t n = c.nextOrder++;
    if (c.sentAt.size() <= n) c.sentAt.resize(n + 1 + n / 2);
    c.sentAt[n] = at;
    const Hour h = kNow + static_cast<Hour>(n % kHours);
    char line[256];
    const int len = std::snprintf(
        line, sizeof line,
        "{\"type\":\"new_order\",\"cl_ord_id\":\"%llu\",\"side\":\"%s\",\"cluster\":1,\"gpus\":1,"
        "\"start\":%lld,\"end\":%lld,\"limit\":2000000}\n",
        static_cast<unsigned long long>(n), c.buyer ? "buy" : "sell", static_cast<long long>(h),
        static_cast<long long>(h + 1));
    c.outbound.append(line, static_cast<std::size_t>(len));
    ++c.inFlight;
    ++sent_;
  }

  void flush(Connection& c) {
    if (c.writeBusy || c.outbound.empty()) return;
    c.writeBusy = true;
    c.writing.swap(c.outbound);
    c.outbound.clear();
    asio::async_write(c.socket, asio::buffer(c.writing), [this, &c](boost::system::error_code ec, std::size_t) {
      if (ec) throw std::runtime_error("write: " + ec.message());
      c.writeBusy = false;
      c.writing.clear();
      flush(c);
    });
  }

  void read(Connection& c) {
    c.socket.async_read_some(asio::buffer(c.buf), [this, &c](boost::system::error_code ec, std::size_t n) {
      if (ec) throw std::runtime_error("read: " + ec.message());
      c.inbound.append(c.buf, n);
      std::size_t pos = 0, nl;
      const auto now = Clock::now();
      while ((nl = c.inbound.find('\n', pos)) != std::string::npos) {
        const std::string_view line(c.inbound.data() + pos, nl - pos);
        pos = nl + 1;
        if (line.find("\"state\":\"accepted\"") != std::string_view::npos) {
          const auto k = line.find("\"cl_ord_id\":\"");
          const std::uint64_t id = std::strtoull(line.data() + k + 13, nullptr, 10);
          if (measuring_) latency_.add(std::chrono::duration<double, std::micro>(now - c.sentAt[id]).count());
          ++acked_;
          --c.inFlight;
          if (closedLoop_) queueOrder(c, now);
        } else if (line.find("\"rejected\"") != std::string_view::npos || line.find("\"error\"") != std::string_view::npos) {
          std::cerr << "unexpected: " << line << "\n";
          std::exit(1);
        }
      }
      c.inbound.erase(0, pos);
      if (closedLoop_) flush(c);
      read(c);
    });
  }

  // Closed loop: each client keeps `window` orders in flight.
  void runFlatOut(double seconds, bool measure) {
    closedLoop_ = true;
    measuring_ = measure;
    for (auto& c : conns_) {
      while (c->inFlight < options_.window) queueOrder(*c, Clock::now());
      flush(*c);
    }
    io_.run_for(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
    closedLoop_ = false;
    drain();
  }

  // Open loop: orders leave on a fixed schedule whatever the acks do.
  void runAtRate(double rate, double seconds) {
    measuring_ = true;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    const double perTick = rate / 10'000.0;  // one tick every 100 us
    double due = 0;
    std::size_t next = 0;
    asio::steady_timer timer(io_);
    std::function<void()> tick = [&] {
      const auto now = Clock::now();
      const double elapsedTicks = std::chrono::duration<double, std::micro>(now - start).count() / 100.0;
      const double target = elapsedTicks * perTick;
      while (due < target) {
        // The scheduled time of this order, not the time the sender got round to it.
        const auto at = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double, std::micro>(100.0 * due / perTick));
        queueOrder(*conns_[next], at);
        next = (next + 1) % conns_.size();
        due += 1;
      }
      for (auto& c : conns_) flush(*c);
      if (now < end) {
        timer.expires_at(now + std::chrono::microseconds(100));
        timer.async_wait([&](boost::system::error_code) { tick(); });
      }
    };
    tick();
    while (Clock::now() < end) io_.run_for(std::chrono::milliseconds(10));
    drain();
  }

  void drain() {
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (acked_ < sent_ && Clock::now() < deadline) io_.run_for(std::chrono::milliseconds(5));
  }

  Histogram& latency() { return latency_; }
  std::uint64_t acked() const { return acked_; }
  std::uint64_t sent() const { return sent_; }

 private:
  asio::io_context& io_;
  Options options_;
  std::vector<std::unique_ptr<Connection>> conns_;
  std::vector<std::unique_ptr<Connection>> subscribers_;
  std::uint64_t mdLines_ = 0;
  int mdDropped_ = 0;
  Histogram latency_;
  std::uint64_t acked_ = 0, sent_ = 0;
  bool closedLoop_ = false, measuring_ = false;
};

// On-CPU and run-queue-wait nanoseconds of this process's threads, by thread name (the server
// names its threads tx-io, tx-match, tx-checkpoint; the load generator is the main thread),
// from /proc/self/task/*/schedstat. Run-queue wait is time a thread was ready but had no core.
struct ThreadTimes {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> byName;  // (cpu, wait) ns
};
ThreadTimes threadTimes() {
  ThreadTimes t;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream comm(task.path() / "comm"), sched(task.path() / "schedstat");
    std::string name;
    std::uint64_t cpu = 0, wait = 0;
    if (!std::getline(comm, name) || !(sched >> cpu >> wait)) continue;
    if (name.rfind("bench_", 0) == 0) name = "load generator";
    auto& [c, w] = t.byName[name];
    c += cpu;
    w += wait;
  }
  return t;
}

void reportThreads(const ThreadTimes& before, const ThreadTimes& after, std::uint64_t orders) {
  if (orders == 0) return;
  std::printf("  threads, CPU per order (run-queue wait in the phase):");
  for (const auto& [name, times] : after.byName) {
    auto it = before.byName.find(name);
    const std::uint64_t cpu = times.first - (it == before.byName.end() ? 0 : it->second.first);
    const std::uint64_t wait = times.second - (it == before.byName.end() ? 0 : it->second.second);
    std::printf("  %s %.1f us (%.0f ms)", name.c_str(), cpu / 1e3 / static_cast<double>(orders), wait / 1e6);
  }
  std::printf("\n");
}

// Where the server's part of the latency goes, per request (a batch's figures count once for
// each request in it): waiting for the matching thread, applying, committing, sending.
void reportStages(const std::vector<BatchTiming>& batches) {
  struct Stage {
    const char* name;
    std::uint32_t BatchTiming::*field;
  };
  const Stage stages[] = {{"wait", &BatchTiming::waitMicros},
                          {"apply", &BatchTiming::applyMicros},
                          {"commit", &BatchTiming::commitMicros},
                          {"send", &BatchTiming::sendMicros}};
  std::uint64_t requests = 0;
  for (const BatchTiming& b : batches) requests += b.requests;
  if (requests == 0) return;
  std::printf("  server stages per request (%zu batches):", batches.size());
  for (const Stage& st : stages) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> v;  // (micros, requests)
    v.reserve(batches.size());
    for (const BatchTiming& b : batches) v.emplace_back(b.*st.field, b.requests);
    std::sort(v.begin(), v.end());
    auto at = [&](double p) {
      const auto want = static_cast<std::uint64_t>(p * static_cast<double>(requests));
      std::uint64_t seen = 0;
      for (const auto& [us, n] : v) {
        seen += n;
        if (seen > want) return us;
      }
      return v.back().first;
    };
    std::printf("  %s p50 %u p99 %u max %u us", st.name, at(0.50), at(0.99), v.back().first);
  }
  std::printf("\n");
  std::fflush(stdout);
}

void report(const char* what, double seconds, std::uint64_t orders, Histogram& h, std::uint64_t commits) {
  std::printf("%-26s %9.0f orders/s  %8llu acks  %6llu commits (%.0f/commit)  p50 %7.0f us  p99 %7.0f us  p99.9 %7.0f us\n",
              what, orders / seconds, static_cast<unsigned long long>(orders),
              static_cast<unsigned long long>(commits), commits ? double(orders) / commits : 0.0,
              h.percentile(0.50), h.percentile(0.99), h.percentile(0.999));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--clients") o.clients = std::stoi(next());
    else if (a == "--window") o.window = std::stoi(next());
    else if (a == "--seconds") o.seconds = std::stod(next());
    else if (a == "--db") o.db = next();
    else if (a == "--md-subscribers") o.mdSubscribers = std::stoi(next());
    else if (a == "--rates") {
      o.rates.clear();
      std::string list = next();
      for (std::size_t p = 0; p < list.size();) {
        const std::size_t q = list.find(',', p);
        o.rates.push_back(std::stod(list.substr(p, q - p)));
        p = q == std::string::npos ? list.size() : q + 1;
      }
    } else {
      std::cerr << "usage: bench_exchange_loopback [--clients N] [--window W] [--seconds S] [--db PATH] [--rates R1,R2] [--md-subscribers N]\n";
      return 2;
    }
  }
  const std::string db = o.db.empty() ? (std::filesystem::temp_directory_path() / "tessera-bench-journal.db").string() : o.db;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);

  ExchangeServer server(benchConfig(o, db));
  server.start();
  std::printf("exchange on 127.0.0.1:%u, journal %s (WAL, synchronous=NORMAL), %d clients, window %d, %d market-data subscriber(s)\n",
              server.port(), db.c_str(), o.clients, o.window, o.mdSubscribers);
  {
    // The machine is shared: the figures mean little without how busy it was.
    std::ifstream loadavg("/proc/loadavg");
    std::string one, five;
    if (loadavg >> one >> five) std::printf("load average before the run: %s (1 min), %s (5 min)\n", one.c_str(), five.c_str());
  }
  asio::io_context io;
  Load load(io, server.port(), o);

  load.runFlatOut(1.0, false);  // warm-up
  server.takeBatchTimings();
  auto before = server.stats();
  auto threads0 = threadTimes();
  std::uint64_t acked0 = load.acked();
  load.latency().clear();
  auto t0 = Clock::now();
  load.runFlatOut(o.seconds, true);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  report("flat out (closed loop)", secs, load.acked() - acked0, load.latency(), server.stats().batches - before.batches);
  reportStages(server.takeBatchTimings());
  reportThreads(threads0, threadTimes(), load.acked() - acked0);

  for (double rate : o.rates) {
    before = server.stats();
    threads0 = threadTimes();
    acked0 = load.acked();
    load.latency().clear();
    t0 = Clock::now();
    load.runAtRate(rate, o.seconds);
    secs = std::chrono::duration<double>(Clock::now() - t0).count();
    char label[64];
    std::snprintf(label, sizeof label, "open loop at %.0f/s", rate);
    report(label, secs, load.acked() - acked0, load.latency(), server.stats().batches - before.batches);
    reportStages(server.takeBatchTimings());
    reportThreads(threads0, threadTimes(), load.acked() - acked0);
    if (load.mdDropped()) std::printf("  (%d market-data subscriber(s) dropped so far as slow consumers)\n", load.mdDropped());
  }
  std::printf("market-data lines received: %llu by %d subscriber(s), %d dropped as slow consumers\n",
              static_cast<unsigned long long>(load.mdLines()), o.mdSubscribers, load.mdDropped());
  server.stop();
  std::error_code ec;
  std::printf("journal size: %.1f MB (+ WAL %.1f MB)\n", std::filesystem::file_size(db, ec) / 1e6,
              std::filesystem::file_size(db + "-wal", ec) / 1e6);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  return 0;
}
