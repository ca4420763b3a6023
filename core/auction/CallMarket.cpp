#include "core/auction/CallMarket.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::auction {

std::optional<CallResult> CallMarket::apply(const InputEvent& in) {
  if (const auto* c = std::get_if<Cluster>(&in)) {
    const bool known = std::any_of(clusters_.begin(), clusters_.end(), [&](const Cluster& k) { return k.id == c->id; });
    if (!known) clusters_.push_back(*c);
  } else if (const auto* o = std::get_if<OrderRequest>(&in)) {
    if (o->id == 0 || index_.count(o->id) || o->gpus <= 0 || o->start >= o->end) return std::nullopt;
    index_[o->id] = working_.size();
    working_.push_back(CallEntry{*o, {}});
  } else if (const auto* x = std::get_if<CancelRequest>(&in)) {
    auto it = index_.find(x->id);
    if (it == index_.end() || working_[it->second].request.account != x->account) return std::nullopt;
    working_.erase(working_.begin() + static_cast<std::ptrdiff_t>(it->second));
    index_.clear();
    for (std::size_t i = 0; i < working_.size(); ++i) index_[working_[i].request.id] = i;
  } else if (const auto* a = std::get_if<AmendRequest>(&in)) {
    auto it = index_.find(a->id);
    if (it == index_.end() || working_[it->second].request.account != a->account) return std::nullopt;
    CallEntry e = amended(working_[it->second], a->limit, a->gpus);
    const bool keep = keepsPlace(working_[it->second].request, e.request);
    if (keep) {
      working_[it->second] = std::move(e);
    } else {
      working_.erase(working_.begin() + static_cast<std::ptrdiff_t>(it->second));
      working_.push_back(std::move(e));
      index_.clear();
      for (std::size_t i = 0; i < working_.size(); ++i) index_[working_[i].request.id] = i;
    }
  } else if (const auto* k = std::get_if<ClockAdvance>(&in)) {
    if (k->now <= now_) return std::nullopt;
    now_ = k->now;
    return call();
  }
  return std::nullopt;
}

CallEntry CallMarket::amended(CallEntry e, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  if (limit) e.request.limit = *limit;
  if (gpus && *gpus > 0) {
    // As in continuous trading: each hour's remaining changes by the difference, not below 0.
    if (e.request.fill == FillStyle::Divisible) {
      if (e.remaining.empty())
        e.remaining.assign(static_cast<std::size_t>(e.request.end - e.request.start), e.request.gpus);
      for (GpuCount& g : e.remaining) g = std::max(0, g + *gpus - e.request.gpus);
    }
    e.request.gpus = *gpus;
  }
  return e;
}

bool CallMarket::keepsPlace(const OrderRequest& before, const OrderRequest& after) {
  return after.limit == before.limit && after.gpus <= before.gpus;
}

CallResult CallMarket::call() {
  CallResult r = clear();
  carry(r);
  return r;
}

CallResult CallMarket::clear() const {
  auto built = buildClearingProblem(working_, clusters_, now_);
  if (auto* f = std::get_if<BuildFailure>(&built)) throw std::invalid_argument("call market: " + f->detail);
  return clearCall(std::get<ClearingProblem>(built), options_);
}

const CallEntry* CallMarket::find(OrderId id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &working_[it->second];
}

void CallMarket::restore(Hour now, std::vector<CallEntry> working) {
  now_ = now;
  working_ = std::move(working);
  index_.clear();
  for (std::size_t i = 0; i < working_.size(); ++i) index_[working_[i].request.id] = i;
}

void CallMarket::carry(const CallResult& r) {
  std::vector<char> gone(working_.size(), 0);
  for (OrderId id : r.expired) gone[index_.at(id)] = 1;
  for (const AcceptedBlock& b : r.blocks) gone[index_.at(b.order)] = 1;
  for (const CallFill& f : r.fills) {
    CallEntry& e = working_[index_.at(f.order)];
    if (e.request.fill == FillStyle::AllOrNone) continue;
    if (e.remaining.empty())
      e.remaining.assign(static_cast<std::size_t>(e.request.end - e.request.start), e.request.gpus);
    for (Hour h = f.start; h < f.end; ++h) e.remaining[static_cast<std::size_t>(h - e.request.start)] -= f.gpus;
  }
  // A divisible order with nothing left at or after the clock is done.
  for (std::size_t i = 0; i < working_.size(); ++i) {
    const CallEntry& e = working_[i];
    if (gone[i] || e.request.fill == FillStyle::AllOrNone || e.remaining.empty()) continue;
    bool left = false;
    for (Hour h = std::max(now_, e.request.start); h < e.request.end && !left; ++h)
      left = e.remaining[static_cast<std::size_t>(h - e.request.start)] > 0;
    gone[i] = left ? 0 : 1;
  }
  std::vector<CallEntry> kept;
  kept.reserve(working_.size());
  for (std::size_t i = 0; i < working_.size(); ++i)
    if (!gone[i]) kept.push_back(std::move(working_[i]));
  working_ = std::move(kept);
  index_.clear();
  for (std::size_t i = 0; i < working_.size(); ++i) index_[working_[i].request.id] = i;
}

}  // namespace tessera::auction
