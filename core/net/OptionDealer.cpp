#include "core/net/OptionDealer.h"
#include "core/options/OptionQuotes.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tessera::net {
using namespace tessera::indexoptions;

std::vector<OptionNewOrder> optionDealerQuotes(const OptionDealerConfig& c, const OptionChainView& chain) {
  std::vector<OptionNewOrder> out;
  std::map<PeriodKind, int> taken;
  const std::map<PeriodKind, int> wanted{
      {PeriodKind::Month, c.months}, {PeriodKind::Quarter, c.quarters}, {PeriodKind::Year, c.years}};
  for (const OptionChainPeriod& p : chain.periods) {
    if (!p.forward || taken[p.period.kind] >= wanted.at(p.period.kind)) continue;
    ++taken[p.period.kind];
    // The strikes of this period nearest its forward.
    std::vector<Price> strikes;
    for (const OptionChainRow& r : chain.rows)
      if (r.series.periodKind == p.period.kind && r.series.start == p.period.start) strikes.push_back(r.series.strike);
    strikes = nearestStrikes(std::move(strikes), *p.forward, c.strikes);
    for (const OptionChainRow& r : chain.rows) {
      if (r.series.periodKind != p.period.kind || r.series.start != p.period.start || !r.value) continue;
      if (std::find(strikes.begin(), strikes.end(), r.series.strike) == strikes.end()) continue;
      const TwoSidedQuote q = quoteAround(*r.value, DealerSpread{c.halfSpreadPpm, c.minHalfSpread});
      for (Side side : {Side::Buy, Side::Sell}) {
        const std::optional<Price> premium = side == Side::Buy ? q.bid : q.ask;
        if (!premium) continue;
        OptionNewOrder o;
        o.side = side;
        o.series = r.series;
        o.gpuHours = c.gpuHours;
        o.premium = *premium;
        out.push_back(o);
      }
    }
  }
  return out;
}

OptionDealer::OptionDealer(OptionDealerConfig config) : config_(std::move(config)) {
  ClientOptions o;
  o.host = config_.host;
  o.port = config_.port;
  o.account = config_.account;
  o.key = config_.key;
  ClientCallbacks cb;
  cb.onIndex = [this](const std::vector<IndexPoint>& points) { onIndex(points); };
  cb.onOptionChain = [this](const OptionChainView& chain) { onChain(chain); };
  cb.onOptionOrders = [this](const std::vector<OptionWorkingOrder>& w, Money) {
    std::lock_guard lock(mutex_);
    working_ = w;
  };
  cb.onConnection = [this](ConnectionState s, const std::string&) {
    if (s == ConnectionState::LoggedOn) {
      std::lock_guard lock(mutex_);
      quotedAt_.clear();
    }
  };
  client_ = std::make_unique<ExchangeClient>(o, cb);
}

OptionDealer::~OptionDealer() { stop(); }
void OptionDealer::start() { client_->start(); }
void OptionDealer::stop() { client_->stop(); }

void OptionDealer::onIndex(const std::vector<IndexPoint>& points) {
  std::map<Accelerator, const IndexPoint*> latest;
  for (const IndexPoint& p : points) {
    if (p.tenor != Tenor::NextDay || p.price <= 0) continue;
    auto& slot = latest[p.accelerator];
    if (!slot || slot->asOf <= p.asOf) slot = &p;
  }
  const auto periods = listedPeriods(client_->now());
  const Hour first = periods.empty() ? 0 : periods.front().start;
  for (const auto& [a, p] : latest) {
    {
      std::lock_guard lock(mutex_);
      auto it = quotedAt_.find(a);
      // Quotes stand until the index moves enough or the first listed period changes.
      if (it != quotedAt_.end() && it->second.second == first &&
          std::abs(p->price - it->second.first) * 1'000'000 < it->second.first * config_.requotePpm)
        continue;
      quotedAt_[a] = {p->price, first};
    }
    client_->requestOptionChain(a);
  }
}

void OptionDealer::onChain(const OptionChainView& chain) {
  const auto quotes = optionDealerQuotes(config_, chain);
  std::vector<std::uint64_t> cancels;
  {
    std::lock_guard lock(mutex_);
    if (quotes.empty()) {  // the options market has no curve yet: ask again at the next index
      quotedAt_.erase(chain.accelerator);
      return;
    }
    for (const OptionWorkingOrder& w : working_)
      if (w.series.accelerator == chain.accelerator) cancels.push_back(w.orderId);
  }
  for (std::uint64_t id : cancels) client_->cancelOption(id);
  for (const OptionNewOrder& o : quotes) client_->placeOption(o);
}

}  // namespace tessera::net
