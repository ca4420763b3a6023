#pragma once
// Shared inputs for the cost tests: the article's worked example built from its stated figures.
#include "core/cost/Placement.h"
#include "core/cost/Topology.h"
#include "core/cost/WorkloadProfile.h"

#include <QString>
#include <QtGlobal>
#include <QtTest>

#include <string>

namespace tessera::cost::testdata {

// Communication share of the step on the contiguous cluster that turns an 18x slower sync
// into a 4.5x longer run: (1 - f) + 18 f = 4.5  =>  f = 3.5 / 17.
inline constexpr double kCommFraction = 3.5 / 17.0;
inline constexpr double kContiguousMfu = 0.462;
inline constexpr double kStepSeconds = 17.0;  // contiguous step time (any value works)
inline constexpr int kGpus = 1000;

inline Topology articleCluster(bool contiguous) {
  Topology t;
  t.name = contiguous ? "contiguous" : "fragmented";
  t.region = "us-east";
  t.gpusPerNode = 8;
  t.intraNodeGBpsPerGpu = 900;
  t.nodesPerNvlinkDomain = contiguous ? 125 : 1;  // the article's idealised 900 GB/s domain
  t.fabric.railsPerNode = 8;
  t.fabric.gbpsPerRail = 400;                   // 8 x 400G NDR: 50 GB/s per GPU
  t.fabric.nodesPerLeaf = contiguous ? 32 : 1;  // fragmented: every node under another leaf
  t.fabric.hopLatencyUs = 1;
  t.sites = {Site{"us-east-1", 125}};
  t.storageGBps = 400;
  t.reliability.nodeFailuresPerYear = 0;  // the article counts lease cost only
  return t;
}

inline WorkloadProfile articleTraining() {
  WorkloadProfile w;
  w.name = "article";
  w.kind = WorkloadKind::Training;
  w.parallelism.data = kGpus;
  const double syncSeconds = kCommFraction * kStepSeconds;
  const double computeSeconds = kStepSeconds - syncSeconds;
  w.peakComputeSecondsPerStep = kContiguousMfu * kStepSeconds;
  w.kernelEfficiency = w.peakComputeSecondsPerStep / computeSeconds;
  // Ring all-reduce moves 2(n-1)/n of the buffer at 900 GB/s in `syncSeconds`.
  w.gradientBytesPerStep = syncSeconds * 900e9 / (2.0 * (kGpus - 1) / kGpus);
  w.commOverlap = 0;
  w.steps = 30.0 * 24 * 3600 / kStepSeconds;  // 30 days on the contiguous cluster
  w.tokensPerStep = 4e6;
  w.startupMinutes = 0;
  w.checkpointIntervalHours = 2;
  return w;
}

inline QString sourcePath(const char* relative) {
  return qEnvironmentVariable("TESSERA_SOURCE_DIR", QStringLiteral(".")) + "/" + relative;
}

}  // namespace tessera::cost::testdata
