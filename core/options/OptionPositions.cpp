#include "core/options/OptionPositions.h"
#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"
#include "core/settlement/ContractSettlement.h"

#include <algorithm>
#include <set>

namespace tessera::indexoptions {
namespace {
constexpr std::int64_t kMaxGpuHours = 1'000'000'000;
}  // namespace

std::string_view toString(OptionStatus s) {
  switch (s) {
    case OptionStatus::Open: return "open";
    case OptionStatus::ClosedOut: return "closed_out";
    case OptionStatus::Settled: return "settled";
    case OptionStatus::Netted: return "netted";
  }
  return "?";
}

std::string_view toString(OpenError e) {
  switch (e) {
    case OpenError::InvalidTerms: return "invalid_terms";
    case OpenError::SameAccount: return "same_account";
    case OpenError::BuyerFunds: return "buyer_funds";
    case OpenError::WriterMargin: return "writer_margin";
  }
  return "?";
}

std::variant<std::uint64_t, OpenError> OptionPositions::open(AccountId buyer, AccountId writer, const OptionSeries& s,
                                                             std::int64_t gpuHours, Price premium,
                                                             Price marginPerGpuHour) {
  if (gpuHours <= 0 || gpuHours > kMaxGpuHours || premium <= 0 || premium > limits::kMaxPrice || marginPerGpuHour < 0)
    return OpenError::InvalidTerms;
  if (buyer == writer) return OpenError::SameAccount;
  const Money cost = premium * gpuHours;
  const Money margin = marginPerGpuHour * gpuHours;
  if (ledger_.balance({buyer, Book::Cash}) < cost) return OpenError::BuyerFunds;
  // The premium the writer receives counts towards its margin.
  if (ledger_.balance({writer, Book::Cash}) + cost < margin) return OpenError::WriterMargin;
  OptionPosition p;
  p.id = positions_.size() + 1;
  p.buyer = buyer;
  p.writer = writer;
  p.series = s;
  p.gpuHours = gpuHours;
  p.premium = premium;
  p.lastValue = premium;
  const std::string ref = "option " + std::to_string(p.id);
  ledger_.postChecked({buyer, Book::Cash}, {writer, Book::Cash}, cost, "premium, " + ref);
  if (margin > 0) ledger_.postChecked({writer, Book::Cash}, {writer, Book::Margin}, margin, "option margin, " + ref);
  p.writerMargin = margin;
  positions_.emplace(p.id, p);
  net(buyer, s);
  net(writer, s);
  return p.id;
}

void OptionPositions::shrink(OptionPosition& p, std::int64_t gpuHours) {
  const Money share = gpuHours >= p.gpuHours ? p.writerMargin : p.writerMargin * gpuHours / p.gpuHours;
  if (share > 0)
    ledger_.postChecked({p.writer, Book::Margin}, {p.writer, Book::Cash}, share,
                        "margin returned, netted, option " + std::to_string(p.id));
  p.writerMargin -= share;
  p.gpuHours -= gpuHours;
  if (p.gpuHours == 0) p.status = OptionStatus::Netted;
}

void OptionPositions::net(AccountId a, const OptionSeries& s) {
  for (;;) {
    OptionPosition* held = nullptr;     // a is long: somebody wrote it to a
    OptionPosition* written = nullptr;  // a is short: a wrote it to somebody
    for (auto& [id, p] : positions_) {
      if (p.status != OptionStatus::Open || p.series != s) continue;
      if (p.buyer == a && !held) held = &p;
      if (p.writer == a && !written) written = &p;
    }
    if (!held || !written) return;
    const std::int64_t q = std::min(held->gpuHours, written->gpuHours);
    const AccountId newHolder = written->buyer;
    const Price paid = written->premium;
    shrink(*written, q);
    // The long's q GPU-hours pass to the buyer of a's short: split off when only part of it.
    OptionPosition* passed = held;
    if (q < held->gpuHours) {
      OptionPosition part = *held;
      part.id = positions_.size() + 1;
      part.gpuHours = q;
      part.writerMargin = held->writerMargin * q / held->gpuHours;
      held->writerMargin -= part.writerMargin;
      held->gpuHours -= q;
      passed = &positions_.emplace(part.id, part).first->second;
    }
    passed->buyer = newHolder;
    passed->premium = paid;
    if (passed->writer == passed->buyer) shrink(*passed, passed->gpuHours);
  }
}

void OptionPositions::close(OptionPosition& p, Money owed, OptionStatus status, std::string what,
                            std::vector<OptionNotice>& out) {
  const std::string ref = "option " + std::to_string(p.id);
  const Money total = owed;
  const Money fromMargin = std::min(owed, p.writerMargin);
  if (fromMargin > 0) {
    ledger_.postChecked({p.writer, Book::Margin}, {p.buyer, Book::Cash}, fromMargin, what + ", " + ref);
    p.writerMargin -= fromMargin;
    owed -= fromMargin;
  }
  const Money fromCash = std::min(owed, std::max<Money>(0, ledger_.balance({p.writer, Book::Cash})));
  if (fromCash > 0) {
    ledger_.postChecked({p.writer, Book::Cash}, {p.buyer, Book::Cash}, fromCash, what + ", " + ref);
    owed -= fromCash;
  }
  if (p.writerMargin > 0)
    ledger_.postChecked({p.writer, Book::Margin}, {p.writer, Book::Cash}, p.writerMargin, "margin returned, " + ref);
  p.writerMargin = 0;
  p.status = status;
  p.paid = total - owed;
  p.unpaid = owed;
  std::string text = what + " " + seriesName(p.series) + ": writer paid " + toDollars(p.paid);
  if (owed > 0) text += " (" + toDollars(owed) + " unpaid)";
  out.push_back({p.id, p.buyer, p.writer, text});
}

std::vector<OptionNotice> OptionPositions::mark(Accelerator accelerator,
                                                const std::function<std::optional<Price>(const OptionSeries&)>& margin,
                                                const std::function<std::optional<Price>(const OptionSeries&)>& value) {
  std::vector<OptionNotice> out;
  // Many positions share a series: each series is priced once per mark.
  std::map<OptionSeries, std::pair<std::optional<Price>, std::optional<Price>>> priced;
  for (auto& [id, p] : positions_) {
    if (p.status != OptionStatus::Open || p.series.accelerator != accelerator) continue;
    auto at = priced.find(p.series);
    if (at == priced.end()) at = priced.emplace(p.series, std::pair{margin(p.series), value(p.series)}).first;
    const auto& [perUnit, v] = at->second;
    if (!perUnit || !v) continue;
    p.lastValue = *v;
    const Money call = *perUnit * p.gpuHours - p.writerMargin;
    if (call <= 0) continue;
    if (ledger_.balance({p.writer, Book::Cash}) >= call) {
      ledger_.postChecked({p.writer, Book::Cash}, {p.writer, Book::Margin}, call,
                          "option margin call, option " + std::to_string(id));
      p.writerMargin += call;
      out.push_back({id, p.buyer, p.writer, "margin call of " + toDollars(call) + " met on " + seriesName(p.series)});
    } else {
      close(p, *v * p.gpuHours, OptionStatus::ClosedOut, "closed out at " + toDollars(*v) + "/GPU-h", out);
    }
  }
  return out;
}

std::vector<OptionNotice> OptionPositions::settle(Accelerator accelerator, const DeliveryPeriod& period,
                                                  Price average) {
  std::vector<OptionNotice> out;
  for (auto& [id, p] : positions_) {
    if (p.status != OptionStatus::Open || p.series.accelerator != accelerator || p.series.period() != period) continue;
    const Money perUnit = payoffPerGpuHour(p.series.kind, p.series.strike, average);
    p.lastValue = perUnit;
    close(p, perUnit * p.gpuHours, OptionStatus::Settled, "settled at " + toDollars(average) + "/GPU-h average", out);
  }
  return out;
}

std::optional<OptionPosition> OptionPositions::position(std::uint64_t id) const {
  auto it = positions_.find(id);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

std::vector<OptionPosition> OptionPositions::positionsOf(AccountId a) const {
  std::vector<OptionPosition> out;
  for (const auto& [id, p] : positions_)
    if (p.buyer == a || p.writer == a) out.push_back(p);
  return out;
}

std::vector<OptionSeries> OptionPositions::openSeries() const {
  std::set<OptionSeries> s;
  for (const auto& [id, p] : positions_)
    if (p.status == OptionStatus::Open) s.insert(p.series);
  return {s.begin(), s.end()};
}

void OptionPositions::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(positions_.size());
  for (const auto& [id, p] : positions_) w.pod(p);
}

void OptionPositions::load(SnapshotReader& r) {
  for (std::size_t n = r.count(sizeof(OptionPosition)); n > 0; --n) {
    const auto p = r.pod<OptionPosition>();
    positions_[p.id] = p;
  }
}

}  // namespace tessera::indexoptions
