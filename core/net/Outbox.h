#pragma once
// What one batch of requests produces for the sessions: lines per session, market data for the
// subscribers, and sessions to drop. The exchange's parts (core/net/ExchangeCore.h) write into
// it on the matching thread; the server sends it after the batch's journal commit.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::net {

using SessionId = std::uint64_t;

struct Outbox {
  std::unordered_map<SessionId, std::string> toSession;
  std::string marketData;              // for every subscribed session, after its own lines
  std::vector<SessionId> subscribers;  // filled by ExchangeCore::finishBatch
  std::vector<SessionId> disconnect;   // after their lines are sent
  void clear();
};

}  // namespace tessera::net
