#pragma once
// Collects the fills of one matching pass and turns them into trades. Fills between the same two
// orders at the same size and price in consecutive hours become one contract, so a 168-hour
// match against one listing is one contract, not 168. Trades are emitted in the order their first
// hour was matched; trade ids and contract ids are the same number.
#include "core/engine/ContractBook.h"
#include "core/engine/Events.h"
#include "core/engine/Inventory.h"

#include <utility>
#include <vector>

namespace tessera {

struct OrderRef {
  OrderId order = 0;
  AccountId account = 0;
  std::uint32_t slot = 0;  // the matcher's own handle for the order, if it has one
};

class TradeRecorder {
 public:
  // Starts a pass: `self` (on `side`) trades against other orders on `cluster`.
  void begin(ClusterId cluster, OrderRef self, Side side, OrderId aggressor);
  void add(OrderRef other, Hour hour, GpuCount gpus, Price price);
  // A whole run at once, for a caller that has already merged its hours and adds runs in the
  // order their first hours were matched.
  void addRun(OrderRef other, Hour start, Hour end, GpuCount gpus, Price price) {
    runs_.push_back(Run{other, start, end, gpus, price});
  }
  bool empty() const { return runs_.empty(); }

  // Emits Fill, Fill, ContractCreated for each trade, moves the GPU-hours in `inventory` and
  // records the contracts. `leavesOf(OrderRef)` gives an order's working GPU-hours now,
  // `termsOf(OrderRef)` a sell order's terms, `holdingsOf(OrderRef)` the holdings (an
  // Inventory::Series&) of an order traded against: its account's on this pass's cluster.
  template <typename LeavesOf, typename TermsOf, typename HoldingsOf>
  void flush(std::vector<Event>& out, Inventory& inventory, ContractBook& contracts, ContractId& lastContract,
             LeavesOf&& leavesOf, TermsOf&& termsOf, HoldingsOf&& holdingsOf);
  // The same, finding every order's holdings by its account.
  template <typename LeavesOf, typename TermsOf>
  void flush(std::vector<Event>& out, Inventory& inventory, ContractBook& contracts, ContractId& lastContract,
             LeavesOf&& leavesOf, TermsOf&& termsOf) {
    flush(out, inventory, contracts, lastContract, leavesOf, termsOf,
          [&](OrderRef o) -> Inventory::Series& { return inventory.seriesOf(o.account, cluster_); });
  }

 private:
  struct Run {
    OrderRef other;
    Hour start = 0;
    Hour end = 0;
    GpuCount gpus = 0;
    Price price = 0;
  };
  ClusterId cluster_ = 0;
  OrderRef self_;
  Side side_ = Side::Buy;
  OrderId aggressor_ = 0;
  std::vector<Run> runs_;
  std::vector<Inventory::Series*> others_;                  // flush's: each run's counterparty's holdings
  std::vector<std::pair<OrderId, std::size_t>> lastRunOf_;  // few counterparties: a flat list
};

template <typename LeavesOf, typename TermsOf, typename HoldingsOf>
void TradeRecorder::flush(std::vector<Event>& out, Inventory& inventory, ContractBook& contracts,
                          ContractId& lastContract, LeavesOf&& leavesOf, TermsOf&& termsOf, HoldingsOf&& holdingsOf) {
  if (runs_.empty()) {
    lastRunOf_.clear();
    return;
  }
  // The pass's own order is on every trade: its holdings are looked up once.
  Inventory::Series& self = inventory.seriesOf(self_.account, cluster_);
  // The counterparties' holdings are cold, and each trade waits for them in turn: they are asked
  // for all at once first (the series' own records, then, once those are in, the hours each
  // trade moves).
  others_.clear();
  for (const Run& r : runs_) __builtin_prefetch(others_.emplace_back(&holdingsOf(r.other)));
  for (std::size_t i = 0; i < runs_.size(); ++i) Inventory::prefetch(*others_[i], runs_[i].start, runs_[i].end);
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    const Run& r = runs_[i];
    const OrderRef buy = side_ == Side::Buy ? self_ : r.other;
    const OrderRef sell = side_ == Side::Buy ? r.other : self_;
    Contract k;
    k.id = ++lastContract;
    k.trade = k.id;
    k.buyer = buy.account;
    k.seller = sell.account;
    k.buyOrder = buy.order;
    k.sellOrder = sell.order;
    k.cluster = cluster_;
    k.gpus = r.gpus;
    k.start = r.start;
    k.end = r.end;
    k.price = r.price;
    k.terms = termsOf(sell);
    Inventory::Series& other = *others_[i];
    Inventory::Series& buyer = side_ == Side::Buy ? self : other;
    Inventory::Series& seller = side_ == Side::Buy ? other : self;
    Inventory::transfer(seller, buyer, k.start, k.end, k.gpus);
    contracts.add(k);
    auto fill = [&](OrderRef o, Side s) {
      return Fill{k.trade,   k.id,   o.order, o.account, s,       o.order == aggressor_,
                  k.cluster, k.gpus, k.start, k.end,     k.price, leavesOf(o)};
    };
    out.emplace_back(fill(buy, Side::Buy));
    out.emplace_back(fill(sell, Side::Sell));
    out.emplace_back(ContractCreated{k});
  }
  runs_.clear();
  lastRunOf_.clear();
}

}  // namespace tessera
