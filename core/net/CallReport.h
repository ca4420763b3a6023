#pragma once
// What the exchange publishes about its call auction (docs/protocol.md, "Call mode"): the
// schedule (which clusters trade in calls, when the next call is) and a call's clearing (per
// (cluster, hour) price and volume, the accepted blocks, the welfare). One JSON form, written by
// the exchange and read by the client through nlohmann's to_json/from_json.
#include "core/auction/CallAuction.h"
#include "core/domain/Types.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace tessera::net {

struct CallSchedule {
  bool allClusters = false;         // every cluster trades in calls
  std::vector<ClusterId> clusters;  // else these do
  int periodSeconds = 0;            // a call every this many seconds of wall time (0: none)
  bool atEachHour = false;          // a call at every step of the exchange clock
  std::int64_t nextCallUnix = 0;    // wall time of the next periodic call, Unix seconds (0: none)
  bool callMode(ClusterId c) const;
  bool operator==(const CallSchedule&) const = default;
};

// Per (cluster, hour): the clearing price and the GPUs traded.
using CallPrice = auction::HourPrice;

struct CallBlock {  // an accepted all-or-none order's placement (whose order is not disclosed)
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  Side side = Side::Buy;
  bool operator==(const CallBlock&) const = default;
};

struct CallReport {
  std::uint64_t call = 0;   // the call's number, from 1; 0: an indicative clearing
  Hour clock = 0;           // the exchange clock the call cleared at
  std::int64_t orders = 0;  // orders that took part
  Money welfare = 0;        // surplus at the orders' limits, micro-dollars
  double gap = 0.0;         // the solver's proven gap
  bool optimal = true;
  std::vector<CallPrice> prices;  // by (cluster, hour)
  std::vector<CallBlock> blocks;
  bool operator==(const CallReport&) const = default;
};

void to_json(nlohmann::json& j, const CallSchedule& s);
void from_json(const nlohmann::json& j, CallSchedule& s);
void to_json(nlohmann::json& j, const CallReport& r);
void from_json(const nlohmann::json& j, CallReport& r);

}  // namespace tessera::net
