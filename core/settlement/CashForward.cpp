#include "core/settlement/CashForward.h"
#include "core/engine/SnapshotCodec.h"

#include "core/engine/MarketLimits.h"

#include <algorithm>

namespace tessera {
namespace {

constexpr std::int64_t kMaxForwardGpuHours = 1'000'000'000;

std::string money(Money m) {
  const bool negative = m < 0;
  const Money cents = ((negative ? -m : m) + 5'000) / 10'000;
  return std::string(negative ? "-$" : "$") + std::to_string(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") +
         std::to_string(cents % 100);
}

}  // namespace

std::string_view toString(ForwardError e) {
  switch (e) {
    case ForwardError::InvalidTerms: return "invalid_terms";
    case ForwardError::SameAccount: return "same_account";
    case ForwardError::BuyerMargin: return "buyer_margin";
    case ForwardError::SellerMargin: return "seller_margin";
    case ForwardError::UnknownPosition: return "unknown_position";
  }
  return "?";
}

Money initialMarginFor(std::int64_t gpuHours, Price price, int marginPpm) {
  return (price * gpuHours / 1'000'000) * marginPpm;
}

Money CashForwardBook::initialMargin(const ForwardTerms& t) const {
  return initialMarginFor(t.gpuHours, t.price, initialMarginPpm_);
}

std::variant<std::uint64_t, ForwardError> CashForwardBook::open(AccountId buyer, AccountId seller,
                                                                const ForwardTerms& t) {
  if (t.gpuHours <= 0 || t.gpuHours > kMaxForwardGpuHours || t.price <= 0 || t.price > limits::kMaxPrice)
    return ForwardError::InvalidTerms;
  if (buyer == seller) return ForwardError::SameAccount;
  const Money im = initialMargin(t);
  if (ledger_.balance({buyer, Book::Cash}) < im) return ForwardError::BuyerMargin;
  if (ledger_.balance({seller, Book::Cash}) < im) return ForwardError::SellerMargin;
  ForwardPosition p;
  p.id = positions_.size() + 1;
  p.buyer = buyer;
  p.seller = seller;
  p.terms = t;
  p.lastMark = t.price;
  if (im > 0) {
    ledger_.postChecked({buyer, Book::Cash}, {buyer, Book::Margin}, im,
                        "initial margin, forward " + std::to_string(p.id));
    ledger_.postChecked({seller, Book::Cash}, {seller, Book::Margin}, im,
                        "initial margin, forward " + std::to_string(p.id));
  }
  p.buyerMargin = p.sellerMargin = im;
  positions_.emplace(p.id, p);
  return p.id;
}

void CashForwardBook::close(ForwardPosition& p, Price at, ForwardStatus status, std::vector<ForwardEvent>& out) {
  const Money pnl = (at - p.terms.price) * p.terms.gpuHours;  // what the buyer gains
  const bool buyerWins = pnl > 0;
  const AccountId winner = buyerWins ? p.buyer : p.seller;
  const AccountId loser = buyerWins ? p.seller : p.buyer;
  Money& loserMargin = buyerWins ? p.sellerMargin : p.buyerMargin;
  Money owed = pnl < 0 ? -pnl : pnl;
  const std::string ref = "forward " + std::to_string(p.id);
  const Money fromMargin = std::min(owed, loserMargin);
  if (fromMargin > 0) {
    ledger_.postChecked({loser, Book::Margin}, {winner, Book::Cash}, fromMargin, "settlement, " + ref);
    loserMargin -= fromMargin;
    owed -= fromMargin;
  }
  const Money fromCash = std::min(owed, ledger_.balance({loser, Book::Cash}));
  if (fromCash > 0) {
    ledger_.postChecked({loser, Book::Cash}, {winner, Book::Cash}, fromCash, "settlement, " + ref);
    owed -= fromCash;
  }
  for (auto [account, margin] : {std::pair{p.buyer, &p.buyerMargin}, std::pair{p.seller, &p.sellerMargin}}) {
    if (*margin > 0)
      ledger_.postChecked({account, Book::Margin}, {account, Book::Cash}, *margin, "margin returned, " + ref);
    *margin = 0;
  }
  p.status = status;
  p.lastMark = at;
  std::string what = std::string(status == ForwardStatus::Settled ? "settled" : "closed out") + " at " + money(at) +
                     "/GPU-h: buyer " + money(pnl);
  if (owed > 0) what += " (" + money(owed) + " unpaid)";
  out.push_back({p.id, what});
}

std::vector<ForwardEvent> CashForwardBook::mark(Accelerator accelerator, Price index) {
  std::vector<ForwardEvent> out;
  for (auto& [id, p] : positions_) {
    if (p.status != ForwardStatus::Open || p.terms.accelerator != accelerator) continue;
    const Money pnl = (index - p.terms.price) * p.terms.gpuHours;
    const Money im = initialMargin(p.terms);
    bool closedOut = false;
    for (auto [account, margin, loss] : {std::tuple{p.buyer, &p.buyerMargin, std::max<Money>(0, -pnl)},
                                         std::tuple{p.seller, &p.sellerMargin, std::max<Money>(0, pnl)}}) {
      const Money call = im + loss - *margin;
      if (call <= 0 || closedOut) continue;
      if (ledger_.balance({account, Book::Cash}) >= call) {
        ledger_.postChecked({account, Book::Cash}, {account, Book::Margin}, call,
                            "margin call, forward " + std::to_string(id));
        *margin += call;
        out.push_back({id, "margin call of " + money(call) + " met by account " + std::to_string(account)});
      } else {
        closedOut = true;
      }
    }
    p.lastMark = index;
    if (closedOut) close(p, index, ForwardStatus::ClosedOut, out);
  }
  return out;
}

std::vector<ForwardEvent> CashForwardBook::settle(Accelerator accelerator, Hour weekStart, Price finalIndex) {
  std::vector<ForwardEvent> out;
  for (auto& [id, p] : positions_)
    if (p.status == ForwardStatus::Open && p.terms.accelerator == accelerator && p.terms.weekStart == weekStart)
      close(p, finalIndex, ForwardStatus::Settled, out);
  return out;
}

std::optional<ForwardPosition> CashForwardBook::position(std::uint64_t id) const {
  auto it = positions_.find(id);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

void CashForwardBook::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(positions_.size());
  for (const auto& [id, p] : positions_) w.pod(p);
}

void CashForwardBook::load(SnapshotReader& r) {
  for (std::size_t n = r.count(sizeof(ForwardPosition)); n > 0; --n) {
    const auto p = r.pod<ForwardPosition>();
    positions_[p.id] = p;
  }
}

}  // namespace tessera
