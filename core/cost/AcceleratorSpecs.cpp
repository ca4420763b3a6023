#include "core/cost/AcceleratorSpecs.h"

namespace tessera::cost {

AcceleratorSpec specOf(Accelerator a) {
  switch (a) {
    case Accelerator::A100: return {312, 2.0};
    case Accelerator::H100: return {989, 3.35};
    case Accelerator::H200: return {989, 4.8};
    case Accelerator::B200: return {2250, 8.0};
    case Accelerator::GB200: return {2500, 8.0};
    case Accelerator::MI300X: return {1307, 5.3};
    case Accelerator::L40S: return {362, 0.864};
    case Accelerator::RTX4090: return {165, 1.008};
  }
  return {989, 3.35};
}

}  // namespace tessera::cost
