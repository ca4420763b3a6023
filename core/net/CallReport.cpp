#include "core/net/CallReport.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace tessera::net {

bool CallSchedule::callMode(ClusterId c) const {
  return allClusters || std::find(clusters.begin(), clusters.end(), c) != clusters.end();
}

void to_json(nlohmann::json& j, const CallSchedule& s) {
  j = {{"all_clusters", s.allClusters},
       {"clusters", s.clusters},
       {"period_seconds", s.periodSeconds},
       {"at_each_hour", s.atEachHour},
       {"next_call", s.nextCallUnix}};
}

void from_json(const nlohmann::json& j, CallSchedule& s) {
  j.at("all_clusters").get_to(s.allClusters);
  j.at("clusters").get_to(s.clusters);
  j.at("period_seconds").get_to(s.periodSeconds);
  j.at("at_each_hour").get_to(s.atEachHour);
  j.at("next_call").get_to(s.nextCallUnix);
}

void to_json(nlohmann::json& j, const CallReport& r) {
  nlohmann::json prices = nlohmann::json::array();
  for (const CallPrice& p : r.prices)
    prices.push_back({{"cluster", p.cluster}, {"hour", p.hour}, {"price", p.price}, {"volume", p.volume}});
  nlohmann::json blocks = nlohmann::json::array();
  for (const CallBlock& b : r.blocks)
    blocks.push_back({{"cluster", b.cluster},
                      {"start", b.start},
                      {"end", b.end},
                      {"gpus", b.gpus},
                      {"side", b.side == Side::Buy ? "buy" : "sell"}});
  j = {{"call", r.call}, {"clock", r.clock},     {"orders", r.orders}, {"welfare", r.welfare},
       {"gap", r.gap},   {"optimal", r.optimal}, {"prices", prices},   {"blocks", blocks}};
}

void from_json(const nlohmann::json& j, CallReport& r) {
  j.at("call").get_to(r.call);
  j.at("clock").get_to(r.clock);
  j.at("orders").get_to(r.orders);
  j.at("welfare").get_to(r.welfare);
  j.at("gap").get_to(r.gap);
  j.at("optimal").get_to(r.optimal);
  r.prices.clear();
  for (const auto& p : j.at("prices"))
    r.prices.push_back({p.at("cluster").get<ClusterId>(), p.at("hour").get<Hour>(), p.at("price").get<Price>(),
                        p.at("volume").get<GpuCount>()});
  r.blocks.clear();
  for (const auto& b : j.at("blocks"))
    r.blocks.push_back({b.at("cluster").get<ClusterId>(), b.at("start").get<Hour>(), b.at("end").get<Hour>(),
                        b.at("gpus").get<GpuCount>(), b.at("side") == "sell" ? Side::Sell : Side::Buy});
}

}  // namespace tessera::net
