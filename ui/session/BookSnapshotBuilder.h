#pragma once
// Reads the watched part of an engine's book into a BookSnapshot. Several clusters are merged
// level by level, so a cluster group shows as one ladder per hour.
#include "ui/session/SessionTypes.h"

namespace tessera::ui {

BookSnapshot takeBookSnapshot(const Matcher& book, const std::vector<ClusterId>& clusters, Hour firstHour, int hours,
                              std::size_t maxLevels);

}  // namespace tessera::ui
