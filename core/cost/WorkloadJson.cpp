#include "core/cost/WorkloadJson.h"

#include "core/cost/JsonFieldReader.h"
#include "core/domain/JsonFile.h"

namespace tessera::cost {

std::variant<WorkloadProfile, LoadError> workloadFromJson(const nlohmann::json& j) {
  JsonFieldReader r(j, "workload");
  WorkloadProfile w;
  w.name = r.string("name", "");
  const std::string kind = r.string("kind");
  if (auto k = parseWorkloadKind(kind))
    w.kind = *k;
  else if (r.ok())
    r.fail("kind", "unknown kind '" + kind + "' (training, fine-tune, inference, batch)");
  w.modelParamsBillions = r.number("model_params_billions", 0, 1e6, 0.0);
  const std::string reference = r.string("reference_accelerator", "H100");
  if (auto a = parseAccelerator(reference))
    w.referenceAccelerator = *a;
  else if (r.ok())
    r.fail("reference_accelerator", "unknown accelerator '" + reference + "'");

  JsonFieldReader par = r.object("parallelism", true);
  w.parallelism.data = par.integer("data", 1, 10000000, 1);
  w.parallelism.tensor = par.integer("tensor", 1, 100000, 1);
  w.parallelism.pipeline = par.integer("pipeline", 1, 100000, 1);
  r.absorb(par);

  if (w.kind != WorkloadKind::Inference) {
    w.tokensPerStep = r.number("tokens_per_step", 0, 1e15, 0.0);
    if (r.has("total_tokens") && !r.has("steps")) {
      const double total = r.number("total_tokens", 1, 1e18);
      if (r.ok() && w.tokensPerStep <= 0)
        r.fail("total_tokens", "needs tokens_per_step > 0");
      else
        w.steps = total / w.tokensPerStep;
    } else {
      w.steps = r.number("steps", 1, 1e15);
    }
    w.peakComputeSecondsPerStep = r.number("peak_compute_seconds_per_step", 1e-9, 1e9);
    w.kernelEfficiency = r.number("kernel_efficiency", 0.001, 1, 0.55);
    if (r.has("gradient_bytes_per_step")) w.gradientBytesPerStep = r.number("gradient_bytes_per_step", 0, 1e16);
    w.commOverlap = r.number("comm_overlap", 0, 1, 0.0);
  } else {
    JsonFieldReader inf = r.object("inference", true);
    w.inferenceTokens = inf.number("tokens", 1, 1e18);
    w.tokensPerSecondPerGpu = inf.number("tokens_per_second_per_gpu", 1e-6, 1e9);
    w.latencyTargetMs = inf.number("latency_target_ms", 0, 1e7, 0.0);
    r.absorb(inf);
  }

  JsonFieldReader ckpt = r.object("checkpoint", false);
  w.checkpointIntervalHours = ckpt.number("interval_hours", 1e-3, 1e5, 1.0);
  w.checkpointSizeGb = ckpt.number("size_gb", 0, 1e9, 0.0);
  r.absorb(ckpt);
  const std::string defaultTolerance = w.synchronous() ? "restart-from-checkpoint" : "elastic";
  const std::string tol = r.string("interruption_tolerance", defaultTolerance);
  if (auto t = parseInterruptionTolerance(tol))
    w.tolerance = *t;
  else if (r.ok())
    r.fail("interruption_tolerance", "unknown value '" + tol + "' (restart-from-checkpoint, elastic)");
  w.startupMinutes = r.number("startup_minutes", 0, 1e6, 10.0);
  w.restartMinutes = r.number("restart_minutes", 0, 1e6, 10.0);

  JsonFieldReader data = r.object("data", false);
  w.dataSizeGb = data.number("size_gb", 0, 1e12, 0.0);
  w.dataRegion = data.string("region", "");
  w.outputSizeGb = data.number("output_gb", 0, 1e12, 0.0);
  r.absorb(data);

  if (!r.ok()) return LoadError{r.error()};
  if (auto problem = validate(w)) return LoadError{"workload: " + *problem};
  return w;
}

nlohmann::json toJson(const WorkloadProfile& w) {
  nlohmann::json j = {
      {"name", w.name},
      {"kind", std::string(toString(w.kind))},
      {"model_params_billions", w.modelParamsBillions},
      {"reference_accelerator", std::string(toString(w.referenceAccelerator))},
      {"parallelism",
       {{"data", w.parallelism.data}, {"tensor", w.parallelism.tensor}, {"pipeline", w.parallelism.pipeline}}},
      {"checkpoint", {{"interval_hours", w.checkpointIntervalHours}, {"size_gb", w.checkpointSizeGb}}},
      {"interruption_tolerance", std::string(toString(w.tolerance))},
      {"startup_minutes", w.startupMinutes},
      {"restart_minutes", w.restartMinutes},
      {"data", {{"size_gb", w.dataSizeGb}, {"region", w.dataRegion}, {"output_gb", w.outputSizeGb}}},
  };
  if (w.kind == WorkloadKind::Inference) {
    j["inference"] = {{"tokens", w.inferenceTokens},
                      {"tokens_per_second_per_gpu", w.tokensPerSecondPerGpu},
                      {"latency_target_ms", w.latencyTargetMs}};
  } else {
    j["steps"] = w.steps;
    j["tokens_per_step"] = w.tokensPerStep;
    j["peak_compute_seconds_per_step"] = w.peakComputeSecondsPerStep;
    j["kernel_efficiency"] = w.kernelEfficiency;
    j["comm_overlap"] = w.commOverlap;
    if (w.gradientBytesPerStep) j["gradient_bytes_per_step"] = *w.gradientBytesPerStep;
  }
  return j;
}

std::variant<WorkloadProfile, LoadError> loadWorkloadFile(const std::filesystem::path& file) {
  auto read = readJsonFile(file);
  if (auto* err = std::get_if<JsonFileError>(&read)) return LoadError{err->message};
  auto w = workloadFromJson(std::get<nlohmann::json>(read));
  if (auto* err = std::get_if<LoadError>(&w)) return LoadError{file.string() + ": " + err->message};
  return w;
}

}  // namespace tessera::cost
