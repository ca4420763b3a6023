#include "backtest/Latency.h"

#include "core/domain/Fnv1a.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>

namespace tessera::backtest {
namespace {

// The shortest text that reads back as `v`.
std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

// A non-negative finite number, the whole of `t`.
std::optional<double> nonNegative(std::string_view t) {
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

std::optional<std::int64_t> wholeMicros(std::string_view t) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v < 0) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
  return t;
}

}  // namespace

std::string LatencyDistribution::describe() const {
  switch (kind) {
    case LatencyKind::Fixed: return "fixed:" + std::to_string(fixedMicros);
    case LatencyKind::Exponential: return "exp:" + number(meanMicros);
    case LatencyKind::Lognormal: return "lognormal:" + number(medianMicros) + "," + number(sigma);
    case LatencyKind::Measured: {
      Fnv1a h;
      for (std::int64_t s : samples) h.add(std::to_string(s) + "\n");
      char buf[24];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.value()));
      return "file:" + source + "#n=" + std::to_string(samples.size()) + ",fnv=" + buf;
    }
  }
  return {};
}

std::string LatencyModel::describe() const {
  return "order=" + orderEntry.describe() + " ack=" + ack.describe() + " md=" + marketData.describe() +
         " seed=" + std::to_string(seed);
}

std::variant<LatencyDistribution, std::string> parseLatency(std::string_view spec) {
  const std::string given(spec);
  const auto colon = spec.find(':');
  const std::string_view kind = colon == std::string_view::npos ? std::string_view("fixed") : spec.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? spec : spec.substr(colon + 1);
  LatencyDistribution d;
  if (kind == "fixed") {
    auto v = wholeMicros(rest);
    if (!v) return "latency '" + given + "': a fixed latency is a whole number of microseconds, 0 or more";
    d.fixedMicros = *v;
    return d;
  }
  if (kind == "exp") {
    auto v = nonNegative(rest);
    if (!v) return "latency '" + given + "': exp:MEAN wants a mean in microseconds, 0 or more";
    d.kind = LatencyKind::Exponential;
    d.meanMicros = *v;
    return d;
  }
  if (kind == "lognormal") {
    const auto comma = rest.find(',');
    std::optional<double> median, sigma;
    if (comma != std::string_view::npos) {
      median = nonNegative(rest.substr(0, comma));
      sigma = nonNegative(rest.substr(comma + 1));
    }
    if (!median || !sigma)
      return "latency '" + given +
             "': lognormal:MEDIAN,SIGMA wants a median in microseconds and a sigma, both 0 or more";
    d.kind = LatencyKind::Lognormal;
    d.medianMicros = *median;
    d.sigma = *sigma;
    return d;
  }
  if (kind == "file") {
    const std::string path(rest);
    std::ifstream in(path);
    if (path.empty() || !in) return "latency '" + given + "': cannot read '" + path + "'";
    d.kind = LatencyKind::Measured;
    d.source = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      const std::string_view t = trim(line);
      if (t.empty() || t.front() == '#') continue;
      auto v = wholeMicros(t);
      if (!v)
        return path + ":" + std::to_string(n) + ": '" + std::string(t) +
               "' is not a latency (a whole number of microseconds, 0 or more, one per line)";
      d.samples.push_back(*v);
    }
    if (d.samples.empty()) return "latency '" + given + "': '" + path + "' holds no latencies";
    return d;
  }
  return "latency '" + given + "': unknown kind '" + std::string(kind) +
         "' (expected MICROS, fixed:MICROS, exp:MEAN, lognormal:MEDIAN,SIGMA or file:PATH)";
}

LatencyChannel::LatencyChannel(const LatencyDistribution& d, std::uint64_t seed, std::uint64_t channel)
    : d_(d), rng_(seed * 0x100000001B3ULL + channel) {}

std::int64_t LatencyChannel::draw() {
  switch (d_.kind) {
    case LatencyKind::Fixed: return d_.fixedMicros;
    case LatencyKind::Exponential: return std::llround(-d_.meanMicros * std::log(1.0 - rng_.unit()));
    case LatencyKind::Lognormal: {
      // Box-Muller: one standard normal from two uniforms in (0, 1].
      const double u1 = 1.0 - rng_.unit(), u2 = rng_.unit();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      return std::llround(d_.medianMicros * std::exp(d_.sigma * z));
    }
    case LatencyKind::Measured: return d_.samples[static_cast<std::size_t>(rng_.next() % d_.samples.size())];
  }
  return 0;
}

std::int64_t LatencyChannel::arrival(std::int64_t sentMicros) {
  std::int64_t at = sentMicros + draw();
  if (any_ && at < last_) at = last_;
  last_ = at;
  any_ = true;
  return at;
}

}  // namespace tessera::backtest
