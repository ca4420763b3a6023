#pragma once
// The machine-readable terms a sell listing carries and its contracts inherit: what is
// guaranteed and what is only estimated, how the buyer is billed, the uptime promised, and the
// remedy when it is missed (core/settlement applies them; docs/settlement.md).
#include "core/domain/Types.h"

#include <optional>
#include <string_view>

namespace tessera {

enum class BillingBasis : std::uint8_t {
  CommittedBlock,      // every contracted hour is paid; a missed promise earns credits
  WallClockDelivered,  // only GPU-hours actually delivered are paid; the rest is refunded
  SuccessfulWork,      // as delivered, and degraded hours (link, power) count as not delivered
};
std::string_view toString(BillingBasis b);
std::optional<BillingBasis> parseBillingBasis(std::string_view s);

// What the provider owes when it misses its uptime promise.
enum class Remedy : std::uint8_t {
  Credit,       // creditPerUndeliveredGpuHour for every GPU-hour not delivered
  Replacement,  // the same GPUs on an equal-or-better cluster within replacementWithinHours of the
                // failure; if it has none to give, the credit applies instead
};
std::string_view toString(Remedy r);
std::optional<Remedy> parseRemedy(std::string_view s);

struct OfferTerms {
  // Guaranteed: a shortfall here is a breach.
  bool guaranteesDeviceCount = true;
  bool guaranteesLocation = true;
  bool guaranteesFabric = true;
  // Estimated only: never grounds for a remedy.
  std::optional<int> estimatedTflopsPerGpu;
  BillingBasis billing = BillingBasis::WallClockDelivered;
  int uptimePromisePpm = 990'000;         // share of contracted GPU-hours delivered, in ppm
  Price creditPerUndeliveredGpuHour = 0;  // paid by the provider when the promise is missed
  Remedy remedy = Remedy::Credit;
  int replacementWithinHours = 4;  // Replacement: how soon the replacement must start
  bool operator==(const OfferTerms&) const = default;
};

}  // namespace tessera
