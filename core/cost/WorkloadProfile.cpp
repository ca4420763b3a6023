#include "core/cost/WorkloadProfile.h"

namespace tessera::cost {

std::string_view toString(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::Training: return "training";
    case WorkloadKind::FineTune: return "fine-tune";
    case WorkloadKind::Inference: return "inference";
    case WorkloadKind::Batch: return "batch";
  }
  return "?";
}

std::optional<WorkloadKind> parseWorkloadKind(std::string_view s) {
  if (s == "training") return WorkloadKind::Training;
  if (s == "fine-tune" || s == "finetune") return WorkloadKind::FineTune;
  if (s == "inference") return WorkloadKind::Inference;
  if (s == "batch") return WorkloadKind::Batch;
  return std::nullopt;
}

std::string_view toString(InterruptionTolerance t) {
  return t == InterruptionTolerance::Elastic ? "elastic" : "restart-from-checkpoint";
}

std::optional<InterruptionTolerance> parseInterruptionTolerance(std::string_view s) {
  if (s == "elastic") return InterruptionTolerance::Elastic;
  if (s == "restart-from-checkpoint") return InterruptionTolerance::RestartFromCheckpoint;
  return std::nullopt;
}

double WorkloadProfile::gradientBytes() const {
  if (gradientBytesPerStep) return *gradientBytesPerStep;
  if (!synchronous()) return 0;
  // bf16 gradients of the parameters this GPU holds.
  return 2.0 * modelParamsBillions * 1e9 / (parallelism.tensor * parallelism.pipeline);
}

double WorkloadProfile::weightGbPerGpu() const {
  return 2.0 * modelParamsBillions / (parallelism.tensor * parallelism.pipeline);
}

std::string usefulUnitName(const WorkloadProfile& w) {
  if (w.kind == WorkloadKind::Inference) {
    if (w.latencyTargetMs <= 0) return "1M tokens";
    std::string ms = std::to_string(w.latencyTargetMs);
    ms.erase(ms.find_last_not_of('0') + 1);
    if (!ms.empty() && ms.back() == '.') ms.pop_back();
    return "1M tokens @ " + ms + " ms";
  }
  return w.tokensPerStep > 0 ? "1M tokens" : "step";
}

double usefulUnits(const WorkloadProfile& w) {
  if (w.kind == WorkloadKind::Inference) return w.inferenceTokens / 1e6;
  return w.tokensPerStep > 0 ? w.steps * w.tokensPerStep / 1e6 : w.steps;
}

std::optional<std::string> validate(const WorkloadProfile& w) {
  if (w.parallelism.data < 1 || w.parallelism.tensor < 1 || w.parallelism.pipeline < 1)
    return std::string("parallelism degrees must be at least 1");
  if (w.kind == WorkloadKind::Inference) {
    if (w.inferenceTokens <= 0) return std::string("an inference workload needs inference_tokens > 0");
    if (w.tokensPerSecondPerGpu <= 0) return std::string("an inference workload needs tokens_per_second_per_gpu > 0");
  } else {
    if (w.steps <= 0) return std::string("steps must be positive");
    if (w.peakComputeSecondsPerStep <= 0) return std::string("peak_compute_seconds_per_step must be positive");
  }
  if (w.kernelEfficiency <= 0 || w.kernelEfficiency > 1) return std::string("kernel_efficiency must be in (0, 1]");
  if (w.commOverlap < 0 || w.commOverlap > 1) return std::string("comm_overlap must be in [0, 1]");
  if (w.checkpointIntervalHours <= 0) return std::string("checkpoint interval must be positive");
  if (w.gradientBytesPerStep && *w.gradientBytesPerStep < 0) return std::string("gradient bytes must not be negative");
  return std::nullopt;
}

}  // namespace tessera::cost
