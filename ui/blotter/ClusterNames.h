#pragma once
// How tables turn a cluster id into the name people know.
#include "core/domain/Types.h"

#include <QString>

#include <functional>

namespace tessera::ui {

using ClusterNames = std::function<QString(ClusterId)>;

}  // namespace tessera::ui
