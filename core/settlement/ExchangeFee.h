#pragma once
// The exchange fee on a provider's payment: `ppm` parts per million of it, rounded down to the
// micro-dollar. One formula for settlement and for the backtest's replay.
#include "core/domain/Types.h"

namespace tessera {

[[nodiscard]] inline Money exchangeFee(Money amount, int ppm) {
  __extension__ using Wide = __int128;  // amount x ppm can exceed int64
  return static_cast<Money>(static_cast<Wide>(amount) * ppm / 1'000'000);
}

}  // namespace tessera
