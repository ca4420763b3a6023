#pragma once
// What a client knows of the forward market (docs/protocol.md, "Forwards"): the books it has
// seen, its own working orders and positions, and the public prints.
#include "core/domain/Cluster.h"
#include "core/settlement/ForwardMarket.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::net {

struct ForwardBookView {
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::vector<ForwardLevel> bids;  // best first
  std::vector<ForwardLevel> asks;
  bool operator==(const ForwardBookView&) const = default;
};

struct ForwardWorkingOrder {
  std::uint64_t orderId = 0;
  std::string clOrdId;
  Side side = Side::Buy;
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t leavesGpuHours = 0;
  Price price = 0;
  bool operator==(const ForwardWorkingOrder&) const = default;
};

struct ForwardPositionView {
  std::uint64_t position = 0;
  bool isLong = true;
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t gpuHours = 0;
  Price price = 0;
  std::string status;  // open, closed_out, settled
  Money margin = 0;
  Price lastMark = 0;
  // What the position gains (negative: loses) if the index stands at `mark`.
  Money pnlAt(Price mark) const { return (isLong ? 1 : -1) * (mark - price) * gpuHours; }
  bool operator==(const ForwardPositionView&) const = default;
};

struct ForwardPrint {
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t gpuHours = 0;
  Price price = 0;
  bool final = false;  // the week's settlement price rather than a trade
};

}  // namespace tessera::net
