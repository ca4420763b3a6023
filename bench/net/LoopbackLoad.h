#pragma once
// The load generator of the loopback benchmarks: N TCP clients on one thread, half buying and
// half selling one GPU-hour, closed loop (a window of orders in flight per client) or open loop
// (orders leave on a fixed schedule whatever the acks do), plus market-data subscribers that
// only read. It speaks the exchange protocol (docs/protocol.md) and needs from the server only
// a logon_ack per logon and, per order, a line with "state":"accepted" and its cl_ord_id.
#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bench {

using LoadClock = std::chrono::steady_clock;

// The orders cycle through these delivery hours (the exchanges under test start their clock at
// the first and give the sellers capacity over all of them).
constexpr long long kLoadFirstHour = 600'000;
constexpr int kLoadHours = 200;

struct LoadOptions {
  int clients = 50;
  int window = 32;
  double seconds = 5;
  std::string db;
  std::vector<double> rates = {20'000, 50'000, 100'000};
  int mdSubscribers = 1;  // sessions that take the full market-data stream, as a terminal does
  bool syncFull = true;   // the journal's fsync per commit (--sync normal|full), as the server's default
};

// Parses the flags both loopback benchmarks share; returns false (after printing `usage`) on a
// flag it does not know.
bool parseLoadOptions(int argc, char** argv, LoadOptions& o, const char* usage);

class LatencyHistogram {
 public:
  void add(double us) { samples_.push_back(us); }
  void clear() { samples_.clear(); }
  double percentile(double p);

 private:
  std::vector<double> samples_;
};

struct LoadConnection;

class LoopbackLoad {
 public:
  LoopbackLoad(boost::asio::io_context& io, std::uint16_t port, const LoadOptions& o);
  ~LoopbackLoad();

  void runFlatOut(double seconds, bool measure);
  void runAtRate(double rate, double seconds);

  LatencyHistogram& latency() { return latency_; }
  std::uint64_t acked() const { return acked_; }
  std::uint64_t mdLines() const { return mdLines_; }
  int mdDropped() const { return mdDropped_; }

 private:
  void readMarketData(LoadConnection& c);
  void queueOrder(LoadConnection& c, LoadClock::time_point at);
  void flush(LoadConnection& c);
  void read(LoadConnection& c);
  void drain();

  boost::asio::io_context& io_;
  LoadOptions options_;
  std::vector<std::unique_ptr<LoadConnection>> conns_;
  std::vector<std::unique_ptr<LoadConnection>> subscribers_;
  std::uint64_t mdLines_ = 0;
  int mdDropped_ = 0;
  LatencyHistogram latency_;
  std::uint64_t acked_ = 0, sent_ = 0;
  bool closedLoop_ = false, measuring_ = false;
};

// On-CPU and run-queue-wait nanoseconds of this process's threads, by thread name (the main
// thread, the load generator, is named "load generator"), from /proc/self/task/*/schedstat.
// Run-queue wait is time a thread was ready but had no core.
struct ThreadTimes {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> byName;  // (cpu, wait) ns
};
ThreadTimes threadTimes();
void reportThreads(const ThreadTimes& before, const ThreadTimes& after, std::uint64_t orders);

// What the phases ask of the server under test.
struct ServerProbe {
  std::function<std::uint64_t()> batches;  // batches (wake-ups of its replying thread) so far
  std::function<void()> reset;             // forget the figures gathered so far (the warm-up's)
  std::function<void()> report;            // print its own figures for the phase just ended
};

// Runs a warm-up, the measured flat-out phase, then each open-loop rate, printing orders/s,
// order-to-ack latency and each thread's CPU per order for each phase.
void runLoadPhases(LoopbackLoad& load, const LoadOptions& o, const ServerProbe& server);

void printLoadAverage();

}  // namespace tessera::bench
