#pragma once
// One colour per accelerator and per cost term, shared by all planner views so a colour
// means the same thing on the map and on the charts.
#include "core/domain/Cluster.h"

#include <QColor>

namespace tessera::planner {

QColor acceleratorColor(Accelerator a);

enum class CostTerm { Instance, StorageAndEgress, Orchestration, FailedWork, MigrationOrRestart };
inline constexpr int kCostTermCount = 5;
QColor costTermColor(CostTerm t);
const char* costTermName(CostTerm t);

}  // namespace tessera::planner
