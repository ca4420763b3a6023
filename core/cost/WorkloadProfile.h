#pragma once
// What a buyer wants done, described well enough to price completed work rather than hours.
#include "core/domain/Cluster.h"
#include "core/domain/Types.h"

#include <optional>
#include <string>
#include <string_view>

namespace tessera::cost {

enum class WorkloadKind { Training, FineTune, Inference, Batch };
std::string_view toString(WorkloadKind k);
std::optional<WorkloadKind> parseWorkloadKind(std::string_view s);

// How the job survives losing a node.
enum class InterruptionTolerance {
  RestartFromCheckpoint,  // synchronous: the whole job rolls back to its last checkpoint
  Elastic,                // independent workers: only the failed node's work is redone
};
std::string_view toString(InterruptionTolerance t);
std::optional<InterruptionTolerance> parseInterruptionTolerance(std::string_view s);

struct Parallelism {
  int data = 1;
  int tensor = 1;
  int pipeline = 1;
  GpuCount gpus() const { return static_cast<GpuCount>(data) * tensor * pipeline; }
};

struct WorkloadProfile {
  std::string name;
  WorkloadKind kind = WorkloadKind::Training;
  double modelParamsBillions = 0;
  Parallelism parallelism;
  // The accelerator the compute figures below were measured on; other accelerators are
  // scaled from it (see AcceleratorSpecs.h).
  Accelerator referenceAccelerator = Accelerator::H100;

  // Training, fine-tuning, batch: the work is `steps` synchronous steps.
  double steps = 0;
  double tokensPerStep = 0;              // tokens consumed per step (0: cost is per step)
  double peakComputeSecondsPerStep = 0;  // the step's FLOPs at the accelerator's peak
  double kernelEfficiency = 0.55;        // fraction of peak the kernels reach while computing
  // Bytes each GPU all-reduces per step; unset: bf16 gradients of its model shard.
  std::optional<double> gradientBytesPerStep;
  double commOverlap = 0;  // fraction of the all-reduce hidden behind compute, 0..1

  // Inference: `inferenceTokens` served at `tokensPerSecondPerGpu`, measured at the latency target.
  double inferenceTokens = 0;
  double tokensPerSecondPerGpu = 0;
  double latencyTargetMs = 0;

  double checkpointIntervalHours = 1;
  double checkpointSizeGb = 0;
  InterruptionTolerance tolerance = InterruptionTolerance::RestartFromCheckpoint;
  double startupMinutes = 10;  // scheduling, image pull, initialisation
  double restartMinutes = 10;  // detect, replace the node, relaunch (plus checkpoint load)

  double dataSizeGb = 0;    // dataset to stage in
  std::string dataRegion;   // where it lives; empty: already next to the cluster
  double outputSizeGb = 0;  // results taken out at the end

  GpuCount gpus() const { return parallelism.gpus(); }
  double gradientBytes() const;
  double weightGbPerGpu() const;  // bf16 weights of one GPU's shard
  bool synchronous() const { return kind == WorkloadKind::Training || kind == WorkloadKind::FineTune; }
};

// The unit that useful work is counted in: "1M tokens", "1M tokens @ 50 ms" (inference at
// its latency target) or "step".
std::string usefulUnitName(const WorkloadProfile& w);
// How many of those units the whole job delivers.
double usefulUnits(const WorkloadProfile& w);
// nullopt when the profile is consistent; otherwise what is wrong.
std::optional<std::string> validate(const WorkloadProfile& w);

}  // namespace tessera::cost
