#pragma once
// One colour per accelerator and per cost term, shared by all planner views so a colour
// means the same thing on the map and on the charts.
#include "core/domain/Cluster.h"

#include <QColor>

namespace tessera::planner {

QColor acceleratorColor(Accelerator a);

// The effective-cost formula's terms as the charts stack them: the instance term split into the
// GPU-hours spent computing (at the achieved MFU) and those spent waiting on gradient sync, since
// that split is what differs between a contiguous cluster and a fragmented one.
enum class CostTerm { Compute, CommunicationStall, FailedWork, MigrationOrRestart, StorageAndEgress, Orchestration };
inline constexpr int kCostTermCount = 6;
QColor costTermColor(CostTerm t);
const char* costTermName(CostTerm t);

}  // namespace tessera::planner
