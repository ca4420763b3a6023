#include "core/cost/EffectiveCostModel.h"

#include "core/cost/AcceleratorSpecs.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tessera::cost {

namespace {

constexpr double kHoursPerMonth = 730;

std::string fixed(double v, int decimals) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(decimals);
  os << v;
  return os.str();
}

// Ring all-reduce of `bytes` per GPU over `n` GPUs: each GPU sends and receives
// 2(n-1)/n of the buffer, at the bandwidth of the slowest link of the ring.
double ringAllReduceSeconds(double bytes, GpuCount n, const SyncPath& path) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / (path.gbytesPerSecPerGpu * 1e9) + path.latencySecondsPerAllReduce;
}

}  // namespace

CostResult evaluate(const WorkloadProfile& w, const Topology& t, const Placement& p, const Offer& o) {
  if (auto problem = validate(w)) return CostError{"workload: " + *problem};
  if (auto problem = validate(t, p)) return CostError{"placement: " + *problem};
  const GpuCount gpus = w.gpus();
  if (p.gpus() != gpus)
    return CostError{"placement has " + std::to_string(p.gpus()) + " GPUs, the workload needs " + std::to_string(gpus)};
  if (o.gpus > 0 && o.gpus < gpus)
    return CostError{"offer has " + std::to_string(o.gpus) + " GPUs, the workload needs " + std::to_string(gpus)};
  if (o.pricePerGpuHour < 0) return CostError{"offer price must not be negative"};

  if (w.weightGbPerGpu() > t.gpuMemoryGb)
    return CostError{"each GPU would hold " + fixed(w.weightGbPerGpu(), 1) + " GB of weights, a " +
                     std::string(toString(t.accelerator)) + " has " + std::to_string(t.gpuMemoryGb) +
                     " GB: more tensor or pipeline parallelism needed"};

  CostBreakdown b;
  b.gpus = gpus;
  b.pricePerGpuHour = o.pricePerGpuHour;
  b.span = spanOf(t, p);
  b.sync = syncPathOf(t, p);
  b.unit = usefulUnitName(w);
  b.usefulUnits = usefulUnits(w);

  const int domainGpus = t.gpusPerNode * std::max(1, t.nodesPerNvlinkDomain);
  if (w.parallelism.tensor > domainGpus)
    b.notes.push_back("tensor parallelism of " + std::to_string(w.parallelism.tensor) + " exceeds the NVLink domain (" +
                      std::to_string(domainGpus) + " GPUs): its traffic would cross the fabric, which is not modelled");

  // Carry the profile's figures from the accelerator they were measured on to this one.
  const AcceleratorSpec ref = specOf(w.referenceAccelerator);
  const AcceleratorSpec here = specOf(t.accelerator);
  const double flopsScale = ref.denseBf16Tflops / here.denseBf16Tflops;  // >1: slower here
  const double memoryScale = here.memoryTBps / ref.memoryTBps;           // >1: faster here
  if (t.accelerator != w.referenceAccelerator)
    b.notes.push_back(std::string(w.kind == WorkloadKind::Inference ? "throughput" : "compute") + " scaled from " +
                      std::string(toString(w.referenceAccelerator)) + " to " + std::string(toString(t.accelerator)) +
                      " by " +
                      (w.kind == WorkloadKind::Inference ? "memory bandwidth (x" + fixed(memoryScale, 2) + ")"
                                                         : "BF16 peak (x" + fixed(1.0 / flopsScale, 2) + ")"));

  double computeHours = 0;  // what the hourly rate suggests: no sync, no failures
  if (w.kind == WorkloadKind::Inference) {
    b.productiveHours = w.inferenceTokens / (w.tokensPerSecondPerGpu * memoryScale * gpus) / 3600.0;
    computeHours = b.productiveHours;
  } else {
    const double peakSecondsHere = w.peakComputeSecondsPerStep * flopsScale;
    b.computeSecondsPerStep = peakSecondsHere / w.kernelEfficiency;
    // Only the data-parallel replicas synchronise gradients; model-parallel shards talk
    // inside their NVLink domain (see the note above when they cannot).
    const double bytes = w.synchronous() ? w.gradientBytes() : 0.0;
    b.allReduceSecondsPerStep = ringAllReduceSeconds(bytes, w.parallelism.data, b.sync);
    const double hidden = std::min(w.commOverlap * b.allReduceSecondsPerStep, b.computeSecondsPerStep);
    b.exposedSyncSecondsPerStep = b.allReduceSecondsPerStep - hidden;
    b.stepSeconds = b.computeSecondsPerStep + b.exposedSyncSecondsPerStep;
    b.commFraction = b.exposedSyncSecondsPerStep / b.stepSeconds;
    b.mfu = peakSecondsHere / b.stepSeconds;
    b.productiveHours = w.steps * b.stepSeconds / 3600.0;
    computeHours = w.steps * b.computeSecondsPerStep / 3600.0;
  }

  // Checkpoint writes stall the job (synchronous checkpointing to shared storage).
  double checkpointStallHours = 0;
  const double checkpointWriteHours = w.checkpointSizeGb / t.storageGBps / 3600.0;
  if (w.kind != WorkloadKind::Inference && w.checkpointSizeGb > 0)
    checkpointStallHours = b.productiveHours / w.checkpointIntervalHours * checkpointWriteHours;

  // Staging the dataset: over the WAN from another region, then from shared storage.
  double stagingHours = w.dataSizeGb / t.storageGBps / 3600.0;
  double egress = w.outputSizeGb * o.egressPerGb;
  const bool remoteData = !w.dataRegion.empty() && w.dataRegion != t.region;
  if (remoteData) {
    stagingHours += w.dataSizeGb * 8.0 / o.wanGbps / 3600.0;
    egress += w.dataSizeGb * o.egressPerGb;
    b.notes.push_back("dataset is in " + w.dataRegion + ", cluster in " + t.region + ": staged over " +
                      fixed(o.wanGbps, 0) + " Gb/s and billed as egress");
  }
  const double startupHours = w.startupMinutes / 60.0;

  // Interruptions arrive at rate rs per hour the job runs (rs + rb during the first B hours,
  // while the cluster is in burn-in); each loses `lost` hours of the job's progress and holds
  // its GPUs idle for `down` hours. With c = lost + down the run lasts T where
  //   T = base + c * (rs*T + rb*min(T, B)).
  const double steadyRate = b.span.nodes * t.reliability.steadyFailuresPerNodeHour() + o.preemptionsPerDay / 24.0;
  const double burnInExtra =
      b.span.nodes * (t.reliability.burnInFailuresPerNodeHour() - t.reliability.steadyFailuresPerNodeHour());
  const double burnInHours = t.reliability.burnInHours();
  double lost = 0;
  double down = 0;
  const double restartHours = w.restartMinutes / 60.0;
  if (w.tolerance == InterruptionTolerance::RestartFromCheckpoint) {
    lost = w.checkpointIntervalHours / 2.0;
    down = restartHours + checkpointWriteHours;  // reading the checkpoint back
  } else {
    // Only the failed node's share stops, and it redoes at most its uncommitted work.
    const double share = static_cast<double>(b.span.maxGpusPerNode) / gpus;
    lost = w.kind == WorkloadKind::Inference ? 0.0 : share * w.checkpointIntervalHours / 2.0;
    down = share * restartHours;
  }
  const double base = b.productiveHours + checkpointStallHours;
  const double perInterruption = lost + down;
  if (steadyRate * perInterruption >= 1.0)
    return CostError{"interruptions (" + fixed(steadyRate * 24, 2) +
                     " a day) arrive faster than the job can make progress between checkpoints"};
  double runHours = 0;
  const double earlyDrag = (steadyRate + burnInExtra) * perInterruption;
  if (earlyDrag < 1.0 && base / (1.0 - earlyDrag) <= burnInHours) {
    runHours = base / (1.0 - earlyDrag);  // finishes within burn-in
  } else {
    runHours = (base + burnInExtra * burnInHours * perInterruption) / (1.0 - steadyRate * perInterruption);
  }
  b.expectedInterruptions = steadyRate * runHours + burnInExtra * std::min(runHours, burnInHours);
  const double drag = (runHours - base) / runHours;
  const double failedHours = b.expectedInterruptions * lost;
  const double restartDownHours = b.expectedInterruptions * down;
  if (drag > 0.2)
    b.notes.push_back("interruptions cost " + fixed(100 * drag, 0) +
                      "% of the run: checkpoint more often or choose steadier capacity");

  b.wallClockHours = startupHours + stagingHours + runHours;

  const double gpuHour = o.pricePerGpuHour * gpus;
  b.terms.instance = b.productiveHours * gpuHour;
  b.terms.orchestration = (startupHours + stagingHours + checkpointStallHours) * gpuHour +
                          o.orchestrationFeePerGpuHour * gpus * b.wallClockHours;
  b.terms.failedWork = failedHours * gpuHour;
  b.terms.migrationOrRestart = restartDownHours * gpuHour;
  // Dataset, results and the last two checkpoints stay on storage for the whole lease.
  const double storedTb = (w.dataSizeGb + w.outputSizeGb + 2 * w.checkpointSizeGb) / 1000.0;
  b.terms.storageAndEgress = storedTb * o.storagePerTbMonth * b.wallClockHours / kHoursPerMonth + egress;

  b.rateTimesComputeHours = gpuHour * computeHours;
  b.effectivePricePerGpuHour = computeHours > 0 ? b.terms.total() / (gpus * computeHours) : 0;
  b.costPerUnit = b.usefulUnits > 0 ? b.terms.total() / b.usefulUnits : 0;
  if (o.windowHours && b.wallClockHours > *o.windowHours) {
    b.fitsWindow = false;
    b.notes.push_back("needs " + fixed(b.wallClockHours, 1) + " h, the offer's window is " + fixed(*o.windowHours, 1) +
                      " h");
  }
  return b;
}

CostResult evaluate(const WorkloadProfile& w, const Topology& t, const Offer& o) {
  auto placement = packPlacement(t, w.gpus());
  if (!placement)
    return CostError{"the cluster has " + std::to_string(t.totalGpus()) + " GPUs, the workload needs " +
                     std::to_string(w.gpus())};
  return evaluate(w, t, *placement, o);
}

std::vector<RankedOffer> rankByEffectiveCost(const WorkloadProfile& w, const std::vector<CandidateOffer>& candidates) {
  std::vector<RankedOffer> ranked;
  ranked.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const CandidateOffer& c = candidates[i];
    ranked.push_back(
        {i, c.placement ? evaluate(w, c.topology, *c.placement, c.offer) : evaluate(w, c.topology, c.offer)});
  }
  auto usable = [](const RankedOffer& r) {
    const auto* b = std::get_if<CostBreakdown>(&r.result);
    return b && b->fitsWindow;
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](const RankedOffer& a, const RankedOffer& b) {
    const bool ua = usable(a), ub = usable(b);
    if (ua != ub) return ua;
    if (!ua) return false;
    const auto& ca = std::get<CostBreakdown>(a.result);
    const auto& cb = std::get<CostBreakdown>(b.result);
    if (ca.terms.total() != cb.terms.total()) return ca.terms.total() < cb.terms.total();
    return ca.wallClockHours < cb.wallClockHours;
  });
  return ranked;
}

}  // namespace tessera::cost
