#include "core/net/ForwardDealer.h"

#include <algorithm>

namespace tessera::net {

std::vector<DealerQuote> dealerQuotes(const ForwardDealerConfig& c, Price index, Hour now) {
  std::vector<DealerQuote> out;
  Hour week = nextWeekStart(now);
  for (int k = 0; k < c.weeks; ++k, week += kHoursPerWeek) {
    const std::int64_t mid = index + index * c.carryPpmPerWeek * k / 1'000'000;
    const std::int64_t half = mid * (c.halfSpreadPpm + c.carryPpmPerWeek * k / 2) / 1'000'000;
    const Price bid = std::max<Price>(1, mid - half);
    out.push_back(DealerQuote{week, bid, std::max<Price>(bid + 1, mid + half)});
  }
  return out;
}

ForwardDealer::ForwardDealer(ForwardDealerConfig config) : config_(std::move(config)) {
  ClientOptions o;
  o.host = config_.host;
  o.port = config_.port;
  o.account = config_.account;
  o.key = config_.key;
  ClientCallbacks cb;
  cb.onIndex = [this](const std::vector<IndexPoint>& points) { onIndex(points); };
  cb.onForwardOrders = [this](const std::vector<ForwardWorkingOrder>& w, Money) {
    std::lock_guard lock(mutex_);
    working_ = w;
  };
  cb.onConnection = [this](ConnectionState s, const std::string&) {
    // After a reconnect everything is quoted afresh.
    if (s == ConnectionState::LoggedOn) {
      std::lock_guard lock(mutex_);
      quotedAt_.clear();
    }
  };
  client_ = std::make_unique<ExchangeClient>(o, cb);
}

ForwardDealer::~ForwardDealer() { stop(); }
void ForwardDealer::start() { client_->start(); }
void ForwardDealer::stop() { client_->stop(); }

void ForwardDealer::onIndex(const std::vector<IndexPoint>& points) {
  // The latest next-day value of each class; a history after logon counts only by its end.
  std::map<Accelerator, const IndexPoint*> latest;
  for (const IndexPoint& p : points) {
    if (p.tenor != Tenor::NextDay || p.price <= 0) continue;
    auto& slot = latest[p.accelerator];
    if (!slot || slot->asOf <= p.asOf) slot = &p;
  }
  for (const auto& [a, p] : latest) requote(a, p->price);
}

void ForwardDealer::requote(Accelerator a, Price index) {
  std::vector<std::uint64_t> cancels;
  {
    std::lock_guard lock(mutex_);
    const Hour firstWeek = nextWeekStart(client_->now());
    auto it = quotedAt_.find(a);
    // Quotes stand until the index moves enough or the nearest week begins (and leaves).
    if (it != quotedAt_.end() && it->second.second == firstWeek &&
        std::abs(index - it->second.first) * 1'000'000 < it->second.first * config_.requotePpm)
      return;
    quotedAt_[a] = {index, firstWeek};
    for (const ForwardWorkingOrder& w : working_)
      if (w.accelerator == a) cancels.push_back(w.orderId);
  }
  for (std::uint64_t id : cancels) client_->cancelForward(id);
  for (const DealerQuote& q : dealerQuotes(config_, index, client_->now())) {
    for (Side side : {Side::Buy, Side::Sell}) {
      ForwardNewOrder o;
      o.side = side;
      o.accelerator = a;
      o.weekStart = q.weekStart;
      o.gpuHours = config_.gpuHours;
      o.price = side == Side::Buy ? q.bid : q.ask;
      client_->placeForward(o);
    }
  }
}

}  // namespace tessera::net
