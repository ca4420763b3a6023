#include "core/domain/OfferTerms.h"

namespace tessera {

std::string_view toString(BillingBasis b) {
  switch (b) {
    case BillingBasis::CommittedBlock: return "committed_block";
    case BillingBasis::WallClockDelivered: return "wall_clock_delivered";
    case BillingBasis::SuccessfulWork: return "successful_work";
  }
  return "?";
}

std::optional<BillingBasis> parseBillingBasis(std::string_view s) {
  for (auto b : {BillingBasis::CommittedBlock, BillingBasis::WallClockDelivered, BillingBasis::SuccessfulWork})
    if (toString(b) == s) return b;
  return std::nullopt;
}

std::string_view toString(Remedy r) {
  switch (r) {
    case Remedy::Credit: return "credit";
    case Remedy::Replacement: return "replacement";
  }
  return "?";
}

std::optional<Remedy> parseRemedy(std::string_view s) {
  for (auto r : {Remedy::Credit, Remedy::Replacement})
    if (toString(r) == s) return r;
  return std::nullopt;
}

}  // namespace tessera
