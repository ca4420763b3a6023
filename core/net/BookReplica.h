#pragma once
// A local matching engine that offers what a live exchange's book offers now: its clusters, its
// clock and every ask level of every hour as a one-hour sell. The cost model and the planner
// (core/cost) read a Matcher; given this one they price and plan on the live book exactly as
// they do on a scripted one (`tessera-cli plan --connect`, `buy --effective-cost`).
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"

#include <memory>
#include <vector>

namespace tessera::net {

[[nodiscard]] std::unique_ptr<Matcher> replicateAsks(const std::vector<Cluster>& clusters, Hour now,
                                                     const BookMirror& book);

}  // namespace tessera::net
