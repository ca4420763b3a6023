#include "core/engine/EventJson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <cstring>
#include <vector>
#include <string_view>

namespace tessera {
namespace {

using nlohmann::json;

// Thrown inside this file only, to unwind a parse; converted to JsonError at the boundary.
struct FieldError {
  std::string message;
};

class Fields {
 public:
  explicit Fields(const json& j) : j_(j) {
    if (!j.is_object()) throw FieldError{"expected a JSON object"};
  }
  bool has(const char* k) { return find(k) != nullptr; }
  const json& at(const char* k) {
    const json* v = find(k);
    if (!v) throw FieldError{std::string("missing field '") + k + "'"};
    return *v;
  }
  std::int64_t integer(const char* k, std::int64_t lo, std::int64_t hi) {
    const json& v = at(k);
    if (!v.is_number_integer()) throw FieldError{std::string("field '") + k + "' must be an integer"};
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      throw FieldError{std::string("field '") + k + "' is out of range"};
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi) throw FieldError{std::string("field '") + k + "' is out of range"};
    return x;
  }
  std::string string(const char* k) {
    const json& v = at(k);
    if (!v.is_string()) throw FieldError{std::string("field '") + k + "' must be a string"};
    return v.get<std::string>();
  }
  bool boolean(const char* k) {
    const json& v = at(k);
    if (!v.is_boolean()) throw FieldError{std::string("field '") + k + "' must be true or false"};
    return v.get<bool>();
  }
  // Rejects fields nobody asked for, so a typo ("gpu" for "gpus") is an error, not a default.
  void noOthers() const {
    if (found_.size() == j_.size()) return;
    for (const auto& [k, v] : j_.items())
      if (!wasFound(k.c_str())) throw FieldError{"unknown field '" + k + "'"};
  }
  void allow(const char* k) { find(k); }

 private:
  // The member named `k`, or null if absent or JSON null; either way a present key counts as read.
  const json* find(const char* k) {
    auto it = j_.find(k);
    if (it == j_.end()) return nullptr;
    if (!wasFound(k)) found_.push_back(k);
    return it->is_null() ? nullptr : &*it;
  }
  bool wasFound(const char* k) const {
    for (const char* f : found_)
      if (std::strcmp(f, k) == 0) return true;
    return false;
  }

  const json& j_;
  std::vector<const char*> found_;  // keys of j_ that were read: a handful, so a flat list
};

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

template <typename E, typename Parse>
E enumField(Fields& f, const char* k, Parse parse, const char* expected) {
  const std::string s = f.string(k);
  if (auto v = parse(s)) return *v;
  throw FieldError{std::string("field '") + k + "' must be one of " + expected + ", not '" + s + "'"};
}

std::optional<Side> parseSide(std::string_view s) {
  if (s == "buy") return Side::Buy;
  if (s == "sell") return Side::Sell;
  return std::nullopt;
}
std::optional<FillStyle> parseFill(std::string_view s) {
  if (s == "all_or_none") return FillStyle::AllOrNone;
  if (s == "divisible") return FillStyle::Divisible;
  return std::nullopt;
}
std::optional<TimeInForce> parseTif(std::string_view s) {
  for (auto t : {TimeInForce::GTC, TimeInForce::GTD, TimeInForce::IOC, TimeInForce::FOK})
    if (toString(t) == s) return t;
  return std::nullopt;
}
std::optional<SelfTradePrevention> parseStp(std::string_view s) {
  for (auto t : {SelfTradePrevention::CancelIncoming, SelfTradePrevention::CancelResting})
    if (toString(t) == s) return t;
  return std::nullopt;
}

Price priceField(Fields& f) {
  if (f.has("limit_usd")) {
    const json& v = f.at("limit_usd");
    if (!v.is_number()) throw FieldError{"field 'limit_usd' must be a number"};
    const double d = v.get<double>();
    if (!std::isfinite(d) || d <= 0 || d > 1e6) throw FieldError{"field 'limit_usd' is out of range"};
    if (f.has("limit")) throw FieldError{"give either 'limit' or 'limit_usd'"};
    // Prices are whole micro-dollars: a seventh decimal is an error, not a rounding. The
    // tolerance only absorbs the binary form of a decimal with at most six places (under 1e-4
    // of a micro-dollar at $1M).
    const double micros = d * kMicrosPerDollar;
    const auto price = static_cast<Price>(std::llround(micros));
    if (std::abs(micros - static_cast<double>(price)) > 1e-3)
      throw FieldError{"field 'limit_usd' has more than six decimals (prices are whole micro-dollars)"};
    return price;
  }
  return f.integer("limit", kJsonMinMoney, kJsonMaxMoney);
}

ClusterConstraints constraintsFrom(const json& j) {
  Fields f(j);
  ClusterConstraints c;
  if (f.has("accelerators")) {
    const json& a = f.at("accelerators");
    if (!a.is_array()) throw FieldError{"field 'accelerators' must be an array of names"};
    for (const auto& x : a) {
      if (!x.is_string()) throw FieldError{"field 'accelerators' must be an array of names"};
      auto acc = parseAccelerator(x.get<std::string>());
      if (!acc) throw FieldError{"unknown accelerator '" + x.get<std::string>() + "'"};
      c.accelerators.push_back(*acc);
    }
  }
  if (f.has("min_gpu_memory_gb")) c.minGpuMemoryGb = static_cast<int>(f.integer("min_gpu_memory_gb", 0, 1 << 20));
  if (f.has("regions")) {
    const json& a = f.at("regions");
    if (!a.is_array()) throw FieldError{"field 'regions' must be an array of names"};
    for (const auto& x : a) {
      if (!x.is_string()) throw FieldError{"field 'regions' must be an array of names"};
      c.regions.push_back(x.get<std::string>());
    }
  }
  if (f.has("min_fabric"))
    c.minFabric = enumField<FabricClass>(f, "min_fabric", parseFabricClass, "Ethernet, RoCE, InfiniBand");
  if (f.has("max_carbon_g_per_kwh"))
    c.maxCarbonGramsPerKwh = static_cast<int>(f.integer("max_carbon_g_per_kwh", 0, 1 << 20));
  f.noOthers();
  return c;
}

OfferTerms termsFrom(const json& j) {
  Fields f(j);
  OfferTerms t;
  if (f.has("guaranteed")) {
    const json& a = f.at("guaranteed");
    if (!a.is_array()) throw FieldError{"field 'guaranteed' must be an array of device_count, location, fabric"};
    t.guaranteesDeviceCount = t.guaranteesLocation = t.guaranteesFabric = false;
    for (const auto& x : a) {
      const std::string g = x.is_string() ? x.get<std::string>() : "";
      if (g == "device_count")
        t.guaranteesDeviceCount = true;
      else if (g == "location")
        t.guaranteesLocation = true;
      else if (g == "fabric")
        t.guaranteesFabric = true;
      else
        throw FieldError{"field 'guaranteed' takes device_count, location, fabric"};
    }
  }
  if (f.has("estimated_tflops_per_gpu"))
    t.estimatedTflopsPerGpu = static_cast<int>(f.integer("estimated_tflops_per_gpu", -kInt32Max, kInt32Max));
  if (f.has("billing"))
    t.billing = enumField<BillingBasis>(f, "billing", parseBillingBasis,
                                        "committed_block, wall_clock_delivered, successful_work");
  if (f.has("uptime_ppm")) t.uptimePromisePpm = static_cast<int>(f.integer("uptime_ppm", -kInt32Max, kInt32Max));
  if (f.has("credit_per_gpu_hour"))
    t.creditPerUndeliveredGpuHour = f.integer("credit_per_gpu_hour", kJsonMinMoney, kJsonMaxMoney);
  if (f.has("remedy")) t.remedy = enumField<Remedy>(f, "remedy", parseRemedy, "credit, replacement");
  if (f.has("replacement_within_hours"))
    t.replacementWithinHours = static_cast<int>(f.integer("replacement_within_hours", -kInt32Max, kInt32Max));
  f.noOthers();
  return t;
}

OrderRequest orderFrom(Fields& f, AccountId account) {
  OrderRequest o;
  o.account = account;
  o.id = static_cast<OrderId>(f.integer("id", 0, kJsonMaxId));
  o.side = enumField<Side>(f, "side", parseSide, "buy, sell");
  if (f.has("cluster")) o.cluster = static_cast<ClusterId>(f.integer("cluster", 0, 0xffffffffLL));
  if (f.has("constraints")) o.constraints = constraintsFrom(f.at("constraints"));
  o.gpus = static_cast<GpuCount>(f.integer("gpus", std::numeric_limits<std::int32_t>::min(), kInt32Max));
  o.start = f.integer("start", -kJsonMaxHour, kJsonMaxHour);
  o.end = f.integer("end", -kJsonMaxHour, kJsonMaxHour);
  if (f.has("duration")) o.duration = f.integer("duration", -kJsonMaxHour, kJsonMaxHour);
  o.limit = priceField(f);
  if (f.has("fill")) o.fill = enumField<FillStyle>(f, "fill", parseFill, "all_or_none, divisible");
  if (f.has("tif")) o.tif = enumField<TimeInForce>(f, "tif", parseTif, "GTC, GTD, IOC, FOK");
  if (f.has("expire_at")) o.expireAt = f.integer("expire_at", -kJsonMaxHour, kJsonMaxHour);
  if (f.has("post_only")) o.postOnly = f.boolean("post_only");
  if (f.has("stp")) o.stp = enumField<SelfTradePrevention>(f, "stp", parseStp, "cancel_incoming, cancel_resting");
  if (f.has("sell_back")) o.sellBack = static_cast<ContractId>(f.integer("sell_back", 0, kJsonMaxId));
  if (f.has("terms")) o.terms = termsFrom(f.at("terms"));
  if (f.has("interruptible")) o.interruptible = f.boolean("interruptible");
  if (f.has("checkpoint_hours")) o.checkpointHours = f.integer("checkpoint_hours", -kJsonMaxHour, kJsonMaxHour);
  if (f.has("effective_cost_factors")) {
    const json& a = f.at("effective_cost_factors");
    if (!a.is_array()) throw FieldError{"field 'effective_cost_factors' must be an array of {cluster, factor_ppm}"};
    for (const auto& x : a) {
      Fields g(x);
      ClusterCostFactor k;
      k.cluster = static_cast<ClusterId>(g.integer("cluster", 0, 0xffffffffLL));
      k.ppm = g.integer("factor_ppm", std::numeric_limits<std::int64_t>::min() / 4,
                        std::numeric_limits<std::int64_t>::max() / 4);
      g.noOthers();
      o.costFactors.push_back(k);
    }
  }
  return o;
}

Cluster clusterFrom(Fields& f) {
  Cluster c;
  c.id = static_cast<ClusterId>(f.integer("id", 0, 0xffffffffLL));
  c.name = f.has("name") ? f.string("name") : "cluster-" + std::to_string(c.id);
  if (f.has("provider")) c.provider = f.string("provider");
  if (f.has("region")) c.region = f.string("region");
  if (f.has("accelerator"))
    c.accelerator = enumField<Accelerator>(f, "accelerator", parseAccelerator,
                                           "A100, H100, H200, B200, GB200, MI300X, L40S, RTX4090");
  auto small = [&](const char* k, int& out) {
    if (f.has(k)) out = static_cast<int>(f.integer(k, -kInt32Max, kInt32Max));
  };
  c.gpuMemoryGb = standardGpuMemoryGb(c.accelerator);
  small("gpu_memory_gb", c.gpuMemoryGb);
  small("gpus_per_node", c.gpusPerNode);
  small("node_count", c.nodeCount);
  if (f.has("intra_node_link"))
    c.intraNodeLink =
        enumField<IntraNodeLink>(f, "intra_node_link", parseIntraNodeLink, "PCIe, NVLink, NVSwitch, InfinityFabric");
  small("intra_node_gbps", c.intraNodeGBps);
  if (f.has("fabric")) c.fabric = enumField<FabricClass>(f, "fabric", parseFabricClass, "Ethernet, RoCE, InfiniBand");
  small("fabric_gbps_per_node", c.fabricGbpsPerNode);
  small("storage_tb", c.storageTb);
  small("carbon_g_per_kwh", c.carbonGramsPerKwh);
  if (f.has("interruptible_of"))
    c.interruptibleOf = static_cast<ClusterId>(f.integer("interruptible_of", 0, 0xffffffffLL));
  if (f.has("notice_hours")) c.noticeHours = f.integer("notice_hours", -kJsonMaxHour, kJsonMaxHour);
  return c;
}

template <typename T, typename F>
std::variant<T, JsonError> guarded(F&& f) {
  try {
    return f();
  } catch (const FieldError& e) {
    return JsonError{e.message};
  } catch (const json::exception& e) {
    return JsonError{e.what()};
  }
}

}  // namespace

std::variant<OrderRequest, JsonError> orderFromJson(const json& j, AccountId account) {
  return guarded<OrderRequest>([&] {
    Fields f(j);
    f.allow("type");
    f.allow("account");
    OrderRequest o = orderFrom(f, account);
    f.noOthers();
    return o;
  });
}

std::variant<Cluster, JsonError> clusterFromJson(const json& j) {
  return guarded<Cluster>([&] {
    Fields f(j);
    f.allow("type");
    Cluster c = clusterFrom(f);
    f.noOthers();
    return c;
  });
}

std::variant<InputEvent, JsonError> inputEventFromJson(const json& j, AccountDirectory& accounts) {
  return guarded<InputEvent>([&]() -> InputEvent {
    Fields f(j);
    const std::string type = f.string("type");
    InputEvent e;
    if (type == "cluster") {
      e = clusterFrom(f);
    } else if (type == "capacity") {
      CapacityGrant g;
      g.account = accounts.intern(f.string("account"));
      g.cluster = static_cast<ClusterId>(f.integer("cluster", 0, 0xffffffffLL));
      g.gpus = static_cast<GpuCount>(f.integer("gpus", std::numeric_limits<std::int32_t>::min(), kInt32Max));
      g.start = f.integer("start", -kJsonMaxHour, kJsonMaxHour);
      g.end = f.integer("end", -kJsonMaxHour, kJsonMaxHour);
      e = g;
    } else if (type == "order") {
      e = orderFrom(f, accounts.intern(f.string("account")));
    } else if (type == "cancel") {
      e = CancelRequest{static_cast<OrderId>(f.integer("id", 0, kJsonMaxId)), accounts.intern(f.string("account"))};
    } else if (type == "amend") {
      AmendRequest a;
      a.id = static_cast<OrderId>(f.integer("id", 0, kJsonMaxId));
      a.account = accounts.intern(f.string("account"));
      if (f.has("limit") || f.has("limit_usd")) a.limit = priceField(f);
      if (f.has("gpus"))
        a.gpus = static_cast<GpuCount>(f.integer("gpus", std::numeric_limits<std::int32_t>::min(), kInt32Max));
      e = a;
    } else if (type == "clock") {
      e = ClockAdvance{f.integer("now", -kJsonMaxHour, kJsonMaxHour)};
    } else if (type == "transfer") {
      CapacityTransfer t;
      t.replaces = static_cast<ContractId>(f.integer("replaces", 0, kJsonMaxId));
      t.from = accounts.intern(f.string("from"));
      t.to = accounts.intern(f.string("to"));
      t.cluster = static_cast<ClusterId>(f.integer("cluster", 0, 0xffffffffLL));
      t.gpus = static_cast<GpuCount>(f.integer("gpus", std::numeric_limits<std::int32_t>::min(), kInt32Max));
      t.start = f.integer("start", -kJsonMaxHour, kJsonMaxHour);
      t.end = f.integer("end", -kJsonMaxHour, kJsonMaxHour);
      t.price = f.integer("price", std::numeric_limits<std::int64_t>::min() / 2,
                          std::numeric_limits<std::int64_t>::max() / 2);
      e = t;
    } else if (type == "capacity_reclaim") {
      CapacityReclaim r;
      r.contract = static_cast<ContractId>(f.integer("contract", 0, kJsonMaxId));
      r.provider = accounts.intern(f.string("provider"));
      r.holder = accounts.intern(f.string("holder"));
      r.gpus = static_cast<GpuCount>(f.integer("gpus", std::numeric_limits<std::int32_t>::min(), kInt32Max));
      r.start = f.integer("start", -kJsonMaxHour, kJsonMaxHour);
      r.end = f.integer("end", -kJsonMaxHour, kJsonMaxHour);
      e = r;
    } else {
      throw FieldError{"unknown type '" + type +
                       "' (expected cluster, capacity, order, cancel, amend, clock, transfer or capacity_reclaim)"};
    }
    f.noOthers();
    return e;
  });
}

std::string_view toString(RejectReason r) {
  switch (r) {
    case RejectReason::Malformed: return "malformed";
    case RejectReason::UnknownCluster: return "unknown_cluster";
    case RejectReason::DuplicateCluster: return "duplicate_cluster";
    case RejectReason::InvalidCluster: return "invalid_cluster";
    case RejectReason::DuplicateOrderId: return "duplicate_order_id";
    case RejectReason::UnknownOrder: return "unknown_order";
    case RejectReason::NotYourOrder: return "not_your_order";
    case RejectReason::InvalidGpuCount: return "invalid_gpu_count";
    case RejectReason::InvalidWindow: return "invalid_window";
    case RejectReason::WindowInPast: return "window_in_past";
    case RejectReason::InvalidPrice: return "invalid_price";
    case RejectReason::InvalidTimeInForce: return "invalid_time_in_force";
    case RejectReason::Unsupported: return "unsupported";
    case RejectReason::NoMatchingCluster: return "no_matching_cluster";
    case RejectReason::InsufficientHoldings: return "insufficient_holdings";
    case RejectReason::UnknownContract: return "unknown_contract";
    case RejectReason::ExceedsClusterSize: return "exceeds_cluster_size";
    case RejectReason::PostOnlyWouldTrade: return "post_only_would_trade";
    case RejectReason::NothingToAmend: return "nothing_to_amend";
    case RejectReason::InvalidTerms: return "invalid_terms";
    case RejectReason::InsufficientCash: return "insufficient_cash";
    case RejectReason::CapacityMismatch: return "capacity_mismatch";
  }
  return "?";
}

std::string_view toString(CancelReason r) {
  switch (r) {
    case CancelReason::User: return "user";
    case CancelReason::ImmediateOrCancel: return "ioc";
    case CancelReason::FillOrKill: return "fok";
    case CancelReason::SelfTrade: return "self_trade";
    case CancelReason::Expired: return "expired";
  }
  return "?";
}

json toJson(const Cluster& c) {
  json j{{"id", c.id},
         {"name", c.name},
         {"provider", c.provider},
         {"region", c.region},
         {"accelerator", std::string(toString(c.accelerator))},
         {"gpu_memory_gb", c.gpuMemoryGb},
         {"gpus_per_node", c.gpusPerNode},
         {"node_count", c.nodeCount},
         {"intra_node_link", std::string(toString(c.intraNodeLink))},
         {"intra_node_gbps", c.intraNodeGBps},
         {"fabric", std::string(toString(c.fabric))},
         {"fabric_gbps_per_node", c.fabricGbpsPerNode},
         {"storage_tb", c.storageTb},
         {"carbon_g_per_kwh", c.carbonGramsPerKwh}};
  // Only on interruptible clusters, so a firm cluster's form is unchanged.
  if (c.interruptibleOf) j["interruptible_of"] = *c.interruptibleOf;
  if (c.noticeHours != 0) j["notice_hours"] = c.noticeHours;
  return j;
}

json toJson(const OfferTerms& t) {
  json g = json::array();
  if (t.guaranteesDeviceCount) g.push_back("device_count");
  if (t.guaranteesLocation) g.push_back("location");
  if (t.guaranteesFabric) g.push_back("fabric");
  json j{{"guaranteed", g},
         {"billing", std::string(toString(t.billing))},
         {"uptime_ppm", t.uptimePromisePpm},
         {"credit_per_gpu_hour", t.creditPerUndeliveredGpuHour}};
  if (t.estimatedTflopsPerGpu) j["estimated_tflops_per_gpu"] = *t.estimatedTflopsPerGpu;
  // Written only when they differ from the defaults, so older files read back unchanged.
  if (t.remedy != Remedy::Credit) j["remedy"] = std::string(toString(t.remedy));
  if (t.replacementWithinHours != OfferTerms{}.replacementWithinHours)
    j["replacement_within_hours"] = t.replacementWithinHours;
  return j;
}

json toJson(const OrderRequest& o) {
  json j{{"id", o.id}, {"side", std::string(toString(o.side))}};
  if (o.cluster) j["cluster"] = *o.cluster;
  if (o.constraints) {
    json c = json::object();
    const auto& k = *o.constraints;
    if (!k.accelerators.empty()) {
      json a = json::array();
      for (auto x : k.accelerators) a.push_back(std::string(toString(x)));
      c["accelerators"] = a;
    }
    if (k.minGpuMemoryGb) c["min_gpu_memory_gb"] = k.minGpuMemoryGb;
    if (!k.regions.empty()) c["regions"] = k.regions;
    if (k.minFabric) c["min_fabric"] = std::string(toString(*k.minFabric));
    if (k.maxCarbonGramsPerKwh) c["max_carbon_g_per_kwh"] = *k.maxCarbonGramsPerKwh;
    j["constraints"] = c;
  }
  j["gpus"] = o.gpus;
  j["start"] = o.start;
  j["end"] = o.end;
  if (o.duration) j["duration"] = *o.duration;
  j["limit"] = o.limit;
  j["fill"] = std::string(toString(o.fill));
  j["tif"] = std::string(toString(o.tif));
  if (o.expireAt) j["expire_at"] = *o.expireAt;
  if (o.postOnly) j["post_only"] = true;
  if (o.stp != SelfTradePrevention::CancelIncoming) j["stp"] = std::string(toString(o.stp));
  if (o.sellBack) j["sell_back"] = *o.sellBack;
  if (o.terms != OfferTerms{}) j["terms"] = toJson(o.terms);
  if (o.interruptible) j["interruptible"] = true;
  if (o.checkpointHours) j["checkpoint_hours"] = *o.checkpointHours;
  if (!o.costFactors.empty()) {
    json a = json::array();
    for (const auto& k : o.costFactors) a.push_back(json{{"cluster", k.cluster}, {"factor_ppm", k.ppm}});
    j["effective_cost_factors"] = a;
  }
  return j;
}

json toJson(const Contract& k, const AccountDirectory& accounts) {
  json j{{"id", k.id},
         {"trade", k.trade},
         {"buyer", accounts.name(k.buyer)},
         {"seller", accounts.name(k.seller)},
         {"buy_order", k.buyOrder},
         {"sell_order", k.sellOrder},
         {"cluster", k.cluster},
         {"gpus", k.gpus},
         {"start", k.start},
         {"end", k.end},
         {"price", k.price},
         {"terms", toJson(k.terms)}};
  if (k.replaces) j["replaces"] = k.replaces;
  return j;
}

json toJson(const InputEvent& e, const AccountDirectory& accounts) {
  return std::visit(
      [&](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Cluster>) {
          json j = toJson(x);
          j["type"] = "cluster";
          return j;
        } else if constexpr (std::is_same_v<T, CapacityGrant>) {
          return json{{"type", "capacity"},   {"account", accounts.name(x.account)},
                      {"cluster", x.cluster}, {"gpus", x.gpus},
                      {"start", x.start},     {"end", x.end}};
        } else if constexpr (std::is_same_v<T, OrderRequest>) {
          json j = toJson(x);
          j["type"] = "order";
          j["account"] = accounts.name(x.account);
          return j;
        } else if constexpr (std::is_same_v<T, CancelRequest>) {
          return json{{"type", "cancel"}, {"id", x.id}, {"account", accounts.name(x.account)}};
        } else if constexpr (std::is_same_v<T, AmendRequest>) {
          json j{{"type", "amend"}, {"id", x.id}, {"account", accounts.name(x.account)}};
          if (x.limit) j["limit"] = *x.limit;
          if (x.gpus) j["gpus"] = *x.gpus;
          return j;
        } else if constexpr (std::is_same_v<T, CapacityTransfer>) {
          return json{{"type", "transfer"},        {"replaces", x.replaces}, {"from", accounts.name(x.from)},
                      {"to", accounts.name(x.to)}, {"cluster", x.cluster},   {"gpus", x.gpus},
                      {"start", x.start},          {"end", x.end},           {"price", x.price}};
        } else if constexpr (std::is_same_v<T, CapacityReclaim>) {
          return json{{"type", "capacity_reclaim"},
                      {"contract", x.contract},
                      {"provider", accounts.name(x.provider)},
                      {"holder", accounts.name(x.holder)},
                      {"gpus", x.gpus},
                      {"start", x.start},
                      {"end", x.end}};
        } else {
          static_assert(std::is_same_v<T, ClockAdvance>);
          return json{{"type", "clock"}, {"now", x.now}};
        }
      },
      e);
}

json toJson(const Event& e, const AccountDirectory& accounts) {
  return std::visit(
      [&](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ClusterAdded>) {
          return json{{"event", "cluster_added"}, {"cluster", x.cluster}};
        } else if constexpr (std::is_same_v<T, CapacityAdded>) {
          return json{{"event", "capacity_added"},  {"account", accounts.name(x.grant.account)},
                      {"cluster", x.grant.cluster}, {"gpus", x.grant.gpus},
                      {"start", x.grant.start},     {"end", x.grant.end}};
        } else if constexpr (std::is_same_v<T, OrderAccepted>) {
          return json{{"event", "accepted"}, {"order", x.order}, {"account", accounts.name(x.account)}};
        } else if constexpr (std::is_same_v<T, OrderRejected>) {
          json j{{"event", "rejected"}, {"reason", std::string(toString(x.reason))}, {"detail", x.detail}};
          if (x.order) j["order"] = x.order;
          if (x.account) j["account"] = accounts.name(x.account);
          return j;
        } else if constexpr (std::is_same_v<T, Fill>) {
          return json{{"event", "fill"},
                      {"trade", x.trade},
                      {"contract", x.contract},
                      {"order", x.order},
                      {"account", accounts.name(x.account)},
                      {"side", std::string(toString(x.side))},
                      {"aggressor", x.aggressor},
                      {"cluster", x.cluster},
                      {"gpus", x.gpus},
                      {"start", x.start},
                      {"end", x.end},
                      {"price", x.price},
                      {"leaves_gpu_hours", x.leavesGpuHours}};
        } else if constexpr (std::is_same_v<T, ContractCreated>) {
          json j = toJson(x.contract, accounts);
          j["event"] = "contract";
          return j;
        } else if constexpr (std::is_same_v<T, OrderCancelled>) {
          return json{{"event", "cancelled"},
                      {"order", x.order},
                      {"account", accounts.name(x.account)},
                      {"reason", std::string(toString(x.reason))},
                      {"cancelled_gpu_hours", x.cancelledGpuHours},
                      {"leaves_gpu_hours", x.leavesGpuHours}};
        } else if constexpr (std::is_same_v<T, OrderAmended>) {
          return json{{"event", "amended"}, {"order", x.order}, {"account", accounts.name(x.account)},
                      {"limit", x.limit},   {"gpus", x.gpus},   {"priority_kept", x.priorityKept}};
        } else {
          return json{{"event", "clock"}, {"now", x.now}};
        }
      },
      e);
}

}  // namespace tessera
