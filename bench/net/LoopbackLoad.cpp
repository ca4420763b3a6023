#include "LoopbackLoad.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace tessera::bench {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

bool parseLoadOptions(int argc, char** argv, LoadOptions& o, const char* usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--clients")
      o.clients = std::stoi(next());
    else if (a == "--window")
      o.window = std::stoi(next());
    else if (a == "--seconds")
      o.seconds = std::stod(next());
    else if (a == "--db")
      o.db = next();
    else if (a == "--md-subscribers")
      o.mdSubscribers = std::stoi(next());
    else if (a == "--sync") {
      const std::string v = next();
      if (v != "normal" && v != "full") throw std::runtime_error("--sync is normal or full");
      o.syncFull = v == "full";
    } else if (a == "--rates") {
      o.rates.clear();
      const std::string list = next();
      for (std::size_t p = 0; p < list.size();) {
        const std::size_t q = list.find(',', p);
        o.rates.push_back(std::stod(list.substr(p, q - p)));
        p = q == std::string::npos ? list.size() : q + 1;
      }
    } else {
      std::cerr << usage << "\n";
      return false;
    }
  }
  return true;
}

double LatencyHistogram::percentile(double p) {
  if (samples_.empty()) return 0;
  std::sort(samples_.begin(), samples_.end());
  return samples_[std::min(samples_.size() - 1, static_cast<std::size_t>(p * static_cast<double>(samples_.size())))];
}

struct LoadConnection {
  explicit LoadConnection(asio::io_context& io) : socket(io) {}
  tcp::socket socket;
  bool buyer = true;
  std::uint64_t nextOrder = 0;
  std::vector<LoadClock::time_point> sentAt;  // by order number
  std::string inbound;
  char buf[65536];
  std::string outbound, writing;
  bool writeBusy = false;
  int inFlight = 0;
};

LoopbackLoad::LoopbackLoad(asio::io_context& io, std::uint16_t port, const LoadOptions& o) : io_(io), options_(o) {
  for (int i = 0; i < o.clients; ++i) {
    auto c = std::make_unique<LoadConnection>(io);
    c->buyer = i % 2 == 0;
    c->socket.connect({asio::ip::make_address("127.0.0.1"), port});
    c->socket.set_option(tcp::no_delay(true));
    const std::string logon = "{\"type\":\"logon\",\"account\":\"c" + std::to_string(i) + "\",\"key\":\"k\"}\n";
    asio::write(c->socket, asio::buffer(logon));
    asio::streambuf sb;
    asio::read_until(c->socket, sb, '\n');
    const std::string line(asio::buffers_begin(sb.data()), asio::buffers_end(sb.data()));
    if (line.find("logon_ack") == std::string::npos) throw std::runtime_error("logon failed: " + line);
    conns_.push_back(std::move(c));
  }
  for (auto& c : conns_) read(*c);
  for (int i = 0; i < o.mdSubscribers; ++i) {
    auto m = std::make_unique<LoadConnection>(io);
    m->socket.connect({asio::ip::make_address("127.0.0.1"), port});
    const std::string logon = "{\"type\":\"logon\",\"account\":\"c" + std::to_string(o.clients + i) +
                              "\",\"key\":\"k\"}\n{\"type\":\"subscribe\"}\n";
    asio::write(m->socket, asio::buffer(logon));
    readMarketData(*m);
    subscribers_.push_back(std::move(m));
  }
}

LoopbackLoad::~LoopbackLoad() = default;

void LoopbackLoad::readMarketData(LoadConnection& c) {
  c.socket.async_read_some(asio::buffer(c.buf), [this, &c](boost::system::error_code ec, std::size_t n) {
    if (ec) {
      // The server drops a subscriber that falls too far behind: report it, keep trading.
      ++mdDropped_;
      return;
    }
    mdLines_ += static_cast<std::uint64_t>(std::count(c.buf, c.buf + n, '\n'));
    readMarketData(c);
  });
}

void LoopbackLoad::queueOrder(LoadConnection& c, LoadClock::time_point at) {
  const std::uint64_t n = c.nextOrder++;
  if (c.sentAt.size() <= n) c.sentAt.resize(n + 1 + n / 2);
  c.sentAt[n] = at;
  const long long h = kLoadFirstHour + static_cast<long long>(n % kLoadHours);
  char line[256];
  const int len =
      std::snprintf(line, sizeof line,
                    "{\"type\":\"new_order\",\"cl_ord_id\":\"%llu\",\"side\":\"%s\",\"cluster\":1,\"gpus\":1,"
                    "\"start\":%lld,\"end\":%lld,\"limit\":2000000}\n",
                    static_cast<unsigned long long>(n), c.buyer ? "buy" : "sell", h, h + 1);
  c.outbound.append(line, static_cast<std::size_t>(len));
  ++c.inFlight;
  ++sent_;
}

void LoopbackLoad::flush(LoadConnection& c) {
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

void LoopbackLoad::read(LoadConnection& c) {
  c.socket.async_read_some(asio::buffer(c.buf), [this, &c](boost::system::error_code ec, std::size_t n) {
    if (ec) throw std::runtime_error("read: " + ec.message());
    c.inbound.append(c.buf, n);
    std::size_t pos = 0, nl;
    const auto now = LoadClock::now();
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
      } else if (line.find("\"rejected\"") != std::string_view::npos ||
                 line.find("\"error\"") != std::string_view::npos) {
        std::cerr << "unexpected: " << line << "\n";
        std::exit(1);
      }
    }
    c.inbound.erase(0, pos);
    if (closedLoop_) flush(c);
    read(c);
  });
}

void LoopbackLoad::runFlatOut(double seconds, bool measure) {
  closedLoop_ = true;
  measuring_ = measure;
  for (auto& c : conns_) {
    while (c->inFlight < options_.window) queueOrder(*c, LoadClock::now());
    flush(*c);
  }
  io_.run_for(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
  closedLoop_ = false;
  drain();
}

void LoopbackLoad::runAtRate(double rate, double seconds) {
  measuring_ = true;
  const auto start = LoadClock::now();
  const auto end = start + std::chrono::duration_cast<LoadClock::duration>(std::chrono::duration<double>(seconds));
  const double perTick = rate / 10'000.0;  // one tick every 100 us
  double due = 0;
  std::size_t next = 0;
  asio::steady_timer timer(io_);
  std::function<void()> tick = [&] {
    const auto now = LoadClock::now();
    const double elapsedTicks = std::chrono::duration<double, std::micro>(now - start).count() / 100.0;
    const double target = elapsedTicks * perTick;
    while (due < target) {
      // The scheduled time of this order, not the time the sender got round to it.
      const auto at = start + std::chrono::duration_cast<LoadClock::duration>(
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
  while (LoadClock::now() < end) io_.run_for(std::chrono::milliseconds(10));
  drain();
}

void LoopbackLoad::drain() {
  const auto deadline = LoadClock::now() + std::chrono::seconds(30);
  while (acked_ < sent_ && LoadClock::now() < deadline) io_.run_for(std::chrono::milliseconds(5));
}

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
  double total = 0;
  for (const auto& [name, times] : after.byName) {
    auto it = before.byName.find(name);
    const std::uint64_t cpu = times.first - (it == before.byName.end() ? 0 : it->second.first);
    const std::uint64_t wait = times.second - (it == before.byName.end() ? 0 : it->second.second);
    const double perOrder = static_cast<double>(cpu) / 1e3 / static_cast<double>(orders);
    total += perOrder;
    std::printf("  %s %.1f us (%.0f ms)", name.c_str(), perOrder, static_cast<double>(wait) / 1e6);
  }
  std::printf("  = %.1f us\n", total);
}

namespace {
void report(const char* what, double seconds, std::uint64_t orders, LatencyHistogram& h, std::uint64_t batches) {
  std::printf(
      "%-26s %9.0f orders/s  %8llu acks  %6llu batches (%.0f/batch)  p50 %7.0f us  p99 %7.0f us  p99.9 %7.0f us\n",
      what, static_cast<double>(orders) / seconds, static_cast<unsigned long long>(orders),
      static_cast<unsigned long long>(batches),
      batches ? static_cast<double>(orders) / static_cast<double>(batches) : 0.0, h.percentile(0.50),
      h.percentile(0.99), h.percentile(0.999));
  std::fflush(stdout);
}
}  // namespace

void runLoadPhases(LoopbackLoad& load, const LoadOptions& o, const ServerProbe& server) {
  load.runFlatOut(1.0, false);  // warm-up
  server.reset();
  auto phase = [&](const char* label, auto&& run) {
    const std::uint64_t batches0 = server.batches();
    const ThreadTimes threads0 = threadTimes();
    const std::uint64_t acked0 = load.acked();
    load.latency().clear();
    const auto t0 = LoadClock::now();
    run();
    const double secs = std::chrono::duration<double>(LoadClock::now() - t0).count();
    report(label, secs, load.acked() - acked0, load.latency(), server.batches() - batches0);
    server.report();
    reportThreads(threads0, threadTimes(), load.acked() - acked0);
    if (load.mdDropped())
      std::printf("  (%d market-data subscriber(s) dropped so far as slow consumers)\n", load.mdDropped());
  };
  phase("flat out (closed loop)", [&] { load.runFlatOut(o.seconds, true); });
  for (double rate : o.rates) {
    char label[64];
    std::snprintf(label, sizeof label, "open loop at %.0f/s", rate);
    phase(label, [&] { load.runAtRate(rate, o.seconds); });
  }
  std::printf("market-data lines received: %llu by %d subscriber(s), %d dropped as slow consumers\n",
              static_cast<unsigned long long>(load.mdLines()), o.mdSubscribers, load.mdDropped());
}

void printLoadAverage() {
  // The machine is shared: the figures mean little without how busy it was.
  std::ifstream loadavg("/proc/loadavg");
  std::string one, five;
  if (loadavg >> one >> five)
    std::printf("load average before the run: %s (1 min), %s (5 min)\n", one.c_str(), five.c_str());
}

}  // namespace tessera::bench
