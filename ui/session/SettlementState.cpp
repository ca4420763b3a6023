#include "ui/session/SettlementState.h"

#include <QCoreApplication>

namespace tessera::ui {

std::optional<ContractState> parseContractState(std::string_view name) {
  for (auto s : {ContractState::PendingStart, ContractState::Delivering, ContractState::Completed,
                 ContractState::PartlyDelivered, ContractState::Failed, ContractState::Settled}) {
    if (toString(s) == name) return s;
  }
  return std::nullopt;
}

QString contractStateLabel(std::optional<ContractState> state, const QString& sentName) {
  if (!state) return sentName;
  switch (*state) {
    case ContractState::PendingStart: return QCoreApplication::translate("ContractState", "pending start");
    case ContractState::Delivering: return QCoreApplication::translate("ContractState", "delivering");
    case ContractState::Completed: return QCoreApplication::translate("ContractState", "completed");
    case ContractState::PartlyDelivered: return QCoreApplication::translate("ContractState", "partly delivered");
    case ContractState::Failed: return QCoreApplication::translate("ContractState", "failed");
    case ContractState::Settled: return QCoreApplication::translate("ContractState", "settled");
  }
  return sentName;
}

bool isShortfall(std::optional<ContractState> state) {
  return state == ContractState::Failed || state == ContractState::PartlyDelivered;
}

QString deliveryProblemLabel(DeliveryProblem p) {
  switch (p) {
    case DeliveryProblem::MissingGpus: return QCoreApplication::translate("DeliveryProblem", "GPUs missing");
    case DeliveryProblem::LinkDegraded: return QCoreApplication::translate("DeliveryProblem", "link degraded");
    case DeliveryProblem::PowerCurtailed: return QCoreApplication::translate("DeliveryProblem", "power curtailed");
  }
  return {};
}

}  // namespace tessera::ui
