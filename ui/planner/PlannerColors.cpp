#include "ui/planner/PlannerColors.h"

namespace tessera::planner {

QColor acceleratorColor(Accelerator a) {
  switch (a) {
    case Accelerator::A100: return QColor(0x8c, 0x9e, 0xb5);
    case Accelerator::H100: return QColor(0x2e, 0x7d, 0x32);
    case Accelerator::H200: return QColor(0x00, 0x89, 0x7b);
    case Accelerator::B200: return QColor(0x15, 0x65, 0xc0);
    case Accelerator::GB200: return QColor(0x6a, 0x1b, 0x9a);
    case Accelerator::MI300X: return QColor(0xc6, 0x28, 0x28);
    case Accelerator::L40S: return QColor(0xef, 0x6c, 0x00);
    case Accelerator::RTX4090: return QColor(0xf9, 0xa8, 0x25);
  }
  return Qt::gray;
}

QColor costTermColor(CostTerm t) {
  switch (t) {
    case CostTerm::Compute: return QColor(0x42, 0x85, 0xf4);
    case CostTerm::CommunicationStall: return QColor(0x00, 0xac, 0xc1);
    case CostTerm::StorageAndEgress: return QColor(0x0f, 0x9d, 0x58);
    case CostTerm::Orchestration: return QColor(0xab, 0x47, 0xbc);
    case CostTerm::FailedWork: return QColor(0xdb, 0x44, 0x37);
    case CostTerm::MigrationOrRestart: return QColor(0xf4, 0xb4, 0x00);
  }
  return Qt::gray;
}

const char* costTermName(CostTerm t) {
  switch (t) {
    case CostTerm::Compute: return "compute (at the achieved MFU)";
    case CostTerm::CommunicationStall: return "communication stall";
    case CostTerm::StorageAndEgress: return "storage & egress";
    case CostTerm::Orchestration: return "orchestration overhead";
    case CostTerm::FailedWork: return "failed work";
    case CostTerm::MigrationOrRestart: return "restarts";
  }
  return "?";
}

}  // namespace tessera::planner
