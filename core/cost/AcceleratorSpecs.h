#pragma once
// Public datasheet figures per accelerator, used to carry a workload profile measured on one
// accelerator over to another: training steps scale with dense BF16 peak, inference decoding
// (memory bound) with HBM bandwidth.
#include "core/domain/Cluster.h"

namespace tessera::cost {

struct AcceleratorSpec {
  double denseBf16Tflops = 0;
  double memoryTBps = 0;
};

AcceleratorSpec specOf(Accelerator a);

}  // namespace tessera::cost
