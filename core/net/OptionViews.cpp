#include "core/net/OptionViews.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <nlohmann/json.hpp>

namespace tessera::net {
namespace {

using nlohmann::json;
using namespace tessera::indexoptions;

template <class T>
std::optional<T> maybe(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}
std::string text(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<OptionSeries> seriesFrom(const json& j, std::optional<Accelerator> accelerator = std::nullopt) {
  const auto a = accelerator ? accelerator : parseAccelerator(text(j, "accelerator"));
  const auto kind = parseOptionKind(text(j, "kind"));
  const auto period = parsePeriodKind(text(j, "period"));
  const auto start = maybe<Hour>(j, "start");
  const auto strike = maybe<Price>(j, "strike");
  if (!a || !kind || !period || !start || !strike || !periodStarting(*period, *start)) return std::nullopt;
  return OptionSeries{*a, *kind, *period, *start, *strike};
}

std::string seriesText(const json& j) {
  const auto s = seriesFrom(j);
  return s ? seriesName(*s) : std::string("an option");
}

}  // namespace

std::optional<OptionChainView> optionChainFrom(const json& j) {
  OptionChainView v;
  const auto a = parseAccelerator(text(j, "accelerator"));
  if (!a) return std::nullopt;
  v.accelerator = *a;
  v.asOf = maybe<Hour>(j, "as_of").value_or(0);
  v.volatility = maybe<double>(j, "volatility");
  if (auto it = j.find("periods"); it != j.end() && it->is_array())
    for (const json& p : *it) {
      const auto kind = parsePeriodKind(text(p, "period"));
      const auto start = maybe<Hour>(p, "start");
      if (!kind || !start) continue;
      const auto period = periodStarting(*kind, *start);
      if (!period) continue;
      v.periods.push_back(OptionChainPeriod{*period, text(p, "name"), maybe<Price>(p, "forward")});
    }
  if (auto it = j.find("rows"); it != j.end() && it->is_array())
    for (const json& r : *it) {
      const auto s = seriesFrom(r, *a);
      if (!s) continue;
      v.rows.push_back(OptionChainRow{*s, maybe<Price>(r, "bid"), maybe<Price>(r, "ask"), maybe<Price>(r, "value"),
                                      maybe<double>(r, "delta"), maybe<double>(r, "iv")});
    }
  return v;
}

std::vector<OptionWorkingOrder> optionOrdersFrom(const json& j) {
  std::vector<OptionWorkingOrder> out;
  if (auto it = j.find("orders"); it != j.end() && it->is_array())
    for (const json& o : *it)
      if (const auto s = seriesFrom(o))
        out.push_back(OptionWorkingOrder{maybe<std::uint64_t>(o, "order_id").value_or(0), text(o, "cl_ord_id"),
                                         text(o, "side") == "sell" ? Side::Sell : Side::Buy, *s,
                                         maybe<std::int64_t>(o, "leaves_gpu_hours").value_or(0),
                                         maybe<Price>(o, "premium").value_or(0)});
  return out;
}

std::vector<OptionPositionView> optionPositionsFrom(const json& j) {
  std::vector<OptionPositionView> out;
  if (auto it = j.find("positions"); it != j.end() && it->is_array())
    for (const json& p : *it)
      if (const auto s = seriesFrom(p))
        out.push_back(OptionPositionView{maybe<std::uint64_t>(p, "position").value_or(0), text(p, "side") == "long", *s,
                                         maybe<std::int64_t>(p, "gpu_hours").value_or(0),
                                         maybe<Price>(p, "premium").value_or(0), text(p, "status"),
                                         maybe<Money>(p, "margin").value_or(0), maybe<Price>(p, "value").value_or(0),
                                         maybe<Money>(p, "paid").value_or(0), maybe<Money>(p, "unpaid").value_or(0)});
  return out;
}

bool isOptionEventType(const std::string& type) {
  return type == "option_accepted" || type == "option_rejected" || type == "option_fill" ||
         type == "option_cancelled" || type == "option_notice";
}

std::string optionEventText(const json& j, const std::string& type) {
  const std::string order = std::to_string(maybe<std::uint64_t>(j, "order_id").value_or(0));
  if (type == "option_accepted")
    return "option order " + order + " accepted, " + toDollars(maybe<Money>(j, "held").value_or(0)) + " held";
  if (type == "option_rejected")
    return "option order " + text(j, "cl_ord_id") + " rejected (" + text(j, "code") + "): " + text(j, "reason");
  if (type == "option_fill")
    return std::string(text(j, "side") == "buy" ? "bought " : "wrote ") +
           withThousands(maybe<std::int64_t>(j, "gpu_hours").value_or(0)) + " GPU-h of " + seriesText(j) + " at " +
           toDollars(maybe<Price>(j, "premium").value_or(0)) + "/GPU-h (position " +
           std::to_string(maybe<std::uint64_t>(j, "position").value_or(0)) + ")";
  if (type == "option_cancelled") return "option order " + order + " cancelled (" + text(j, "reason") + ")";
  return "option position " + std::to_string(maybe<std::uint64_t>(j, "position").value_or(0)) + ": " + text(j, "what");
}

OptionEventView optionEventFrom(const json& j, const std::string& type) {
  OptionEventView v;
  v.type = type;
  v.text = optionEventText(j, type);
  v.orderId = maybe<std::uint64_t>(j, "order_id").value_or(0);
  v.clOrdId = text(j, "cl_ord_id");
  v.position = maybe<std::uint64_t>(j, "position").value_or(0);
  const std::string side = text(j, "side");
  if (side == "buy" || side == "long") v.side = Side::Buy;
  if (side == "sell" || side == "short") v.side = Side::Sell;
  v.series = seriesFrom(j);
  v.gpuHours = maybe<std::int64_t>(j, "gpu_hours").value_or(0);
  v.premium = maybe<Price>(j, "premium").value_or(0);
  v.code = text(j, "code");
  v.reason = type == "option_notice" ? text(j, "what") : text(j, "reason");
  v.status = text(j, "status");
  v.paid = maybe<Money>(j, "paid").value_or(0);
  return v;
}

std::string optionOrderLine(const OptionNewOrder& o) {
  json j{{"type", "option_order"},
         {"cl_ord_id", o.clOrdId},
         {"side", o.side == Side::Buy ? "buy" : "sell"},
         {"gpu_hours", o.gpuHours},
         {"premium", o.premium}};
  putOptionSeries(j, o.series);
  return j.dump();
}

}  // namespace tessera::net
