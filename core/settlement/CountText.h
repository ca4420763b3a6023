#pragma once
// Counts for a person, with thousands separators: "12,345" GPU-hours, "-1,000". The money
// formatter beside it, toDollars (ContractSettlement.h), groups its dollars with this.
#include <cstdint>
#include <string>

namespace tessera {

[[nodiscard]] std::string withThousands(std::int64_t n);

}  // namespace tessera
