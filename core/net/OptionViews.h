#pragma once
// What a client knows of the options market (docs/protocol.md, "Options"): the chain of a class,
// its own working option orders and positions, and the one line for a person each option reply
// or notice gives. Read leniently from the exchange's lines (a field it lacks reads as none).
#include "core/net/OptionDesk.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tessera::net {

struct OptionChainPeriod {
  indexoptions::DeliveryPeriod period;
  std::string name;              // "2027-01", "2027-Q1", "2027"
  std::optional<Price> forward;  // micro-dollars per GPU-hour
};
struct OptionChainRow {
  indexoptions::OptionSeries series;
  std::optional<Price> bid, ask, value;
  std::optional<double> delta, iv;
};
struct OptionChainView {
  Accelerator accelerator = Accelerator::H100;
  Hour asOf = 0;
  std::optional<double> volatility;
  std::vector<OptionChainPeriod> periods;
  std::vector<OptionChainRow> rows;
};

struct OptionWorkingOrder {
  std::uint64_t orderId = 0;
  std::string clOrdId;
  Side side = Side::Buy;
  indexoptions::OptionSeries series;
  std::int64_t leavesGpuHours = 0;
  Price premium = 0;
};

struct OptionPositionView {
  std::uint64_t position = 0;
  bool isLong = true;
  indexoptions::OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;
  std::string status;  // open, closed_out, settled
  Money margin = 0;
  Price value = 0;  // reference value per GPU-hour at the last mark (the payoff once settled)
  Money paid = 0, unpaid = 0;
};

std::optional<OptionChainView> optionChainFrom(const nlohmann::json& j);
std::vector<OptionWorkingOrder> optionOrdersFrom(const nlohmann::json& j);  // an option_orders reply
std::vector<OptionPositionView> optionPositionsFrom(const nlohmann::json& j);
// option_accepted, option_rejected, option_fill, option_cancelled, option_notice: one line for a
// person, in dollars ("bought 100 GPU-h of H100 2027-01 call $2.30 at $0.21 (position 4)").
bool isOptionEventType(const std::string& type);
std::string optionEventText(const nlohmann::json& j, const std::string& type);

// One option reply or notice to this account (docs/protocol.md, "Options"), its fields read from
// the exchange's line and `text` its line for a person.
struct OptionEventView {
  std::string type;  // option_accepted, option_rejected, option_fill, option_cancelled, option_notice
  std::string text;
  std::uint64_t orderId = 0;
  std::string clOrdId;
  std::uint64_t position = 0;  // fill, notice
  // Fill: the side this account traded (Sell = wrote); notice: Buy when this account holds the
  // position long.
  std::optional<Side> side;
  std::optional<indexoptions::OptionSeries> series;  // fill, notice
  std::int64_t gpuHours = 0;                         // fill, cancelled, notice (the position's)
  Price premium = 0;                                 // fill, notice
  std::string code;                                  // rejected
  std::string reason;                                // rejected, cancelled; notice: its `what`
  std::string status;                                // notice: open, closed_out, settled, netted
  Money paid = 0;                                    // notice: what the writer has paid the buyer
};
OptionEventView optionEventFrom(const nlohmann::json& j, const std::string& type);
// The option_order request for `o` (its cl_ord_id must be set).
std::string optionOrderLine(const OptionNewOrder& o);

}  // namespace tessera::net
