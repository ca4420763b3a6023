// Placements: what a contract's GPUs span, and the slowest link of their ring.
#include "CostTestData.h"
#include "core/cost/Placement.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::cost;

namespace {

Topology twoSites() {
  Topology t;
  t.gpusPerNode = 8;
  t.fabric.railsPerNode = 8;
  t.fabric.gbpsPerRail = 400;
  t.fabric.nodesPerLeaf = 4;
  t.fabric.oversubscription = 2;
  t.sites = {Site{"a", 8}, Site{"b", 8}};
  t.interSite.gbps = 800;
  t.interSite.latencyMs = 1;
  return t;
}

}  // namespace

class TestPlacement : public QObject {
  Q_OBJECT

 private slots:
  void locations() {
    const Topology t = twoSites();
    QCOMPARE(leafCount(t), 4);
    QCOMPARE(locate(t, 5).leaf, 1);
    QCOMPARE(locate(t, 8).site, 1);
    QCOMPARE(locate(t, 8).leaf, 2);
    QCOMPARE(locate(t, 15).nvlinkDomain, 15);
  }

  void packedStaysCompact() {
    const Topology t = twoSites();
    const auto p = packPlacement(t, 20);
    QVERIFY(p);
    QCOMPARE(p->gpus(), 20);
    const PlacementSpan s = spanOf(t, *p);
    QCOMPARE(s.nodes, 3);
    QCOMPARE(s.leaves, 1);
    QCOMPARE(s.fabricHops, 2);
    QVERIFY(syncPathOf(t, *p).bottleneck == Bottleneck::NodeFabric);
    QCOMPARE(syncPathOf(t, *p).gbytesPerSecPerGpu, 50.0);
    QVERIFY(!packPlacement(t, 129));
    QVERIFY(!packPlacement(t, 0));
  }

  void oneNodeIsNvlinkOnly() {
    const Topology t = twoSites();
    const Placement p{{{3, 8}}};
    const PlacementSpan s = spanOf(t, p);
    QCOMPARE(s.fabricHops, 0);
    const SyncPath path = syncPathOf(t, p);
    QVERIFY(path.bottleneck == Bottleneck::NVLink);
    QCOMPARE(path.gbytesPerSecPerGpu, 900.0);
    QCOMPARE(path.latencySecondsPerAllReduce, 0.0);
  }

  void crossingLeavesAndSites() {
    const Topology t = twoSites();
    const Placement leaves{{{0, 8}, {4, 8}}};
    QCOMPARE(spanOf(t, leaves).fabricHops, 4);
    QVERIFY(syncPathOf(t, leaves).bottleneck == Bottleneck::LeafUplinks);
    QCOMPARE(syncPathOf(t, leaves).gbytesPerSecPerGpu, 25.0);
    const Placement sites{{{0, 8}, {8, 8}}};
    const PlacementSpan s = spanOf(t, sites);
    QCOMPARE(s.sites, 2);
    QCOMPARE(s.fabricHops, 6);
    const SyncPath path = syncPathOf(t, sites);
    QVERIFY(path.bottleneck == Bottleneck::InterSite);
    QCOMPARE(path.gbytesPerSecPerGpu, 800.0 / 8 / 8);  // 100 GB/s shared by 8 rings
    QVERIFY(path.latencySecondsPerAllReduce >= 2e-3);
  }

  void rackScaleNvlinkDomain() {
    Topology t;
    t.gpusPerNode = 4;
    t.intraNodeGBpsPerGpu = 1800;
    t.nodesPerNvlinkDomain = 18;
    t.fabric.railsPerNode = 4;
    t.fabric.gbpsPerRail = 800;
    t.fabric.nodesPerLeaf = 18;
    t.sites = {Site{"a", 36}};
    const auto inRack = packPlacement(t, 72);
    QCOMPARE(spanOf(t, *inRack).nvlinkDomains, 1);
    QVERIFY(syncPathOf(t, *inRack).bottleneck == Bottleneck::NVLink);
    const auto twoRacks = packPlacement(t, 76);
    QCOMPARE(spanOf(t, *twoRacks).nvlinkDomains, 2);
    QCOMPARE(syncPathOf(t, *twoRacks).gbytesPerSecPerGpu, 100.0);
  }

  void scatterAndValidate() {
    const Topology t = twoSites();
    const auto p = scatterPlacement(t, 8, 2, 4);
    QVERIFY(p);
    QCOMPARE(p->nodes.size(), std::size_t{4});
    QCOMPARE(p->nodes[3].node, 12);
    QCOMPARE(spanOf(t, *p).sites, 2);
    QVERIFY(!scatterPlacement(t, 64, 1, 1));
    QVERIFY(validate(t, *p) == std::nullopt);
    QVERIFY(validate(t, Placement{{{16, 1}}}).has_value());
    QVERIFY(validate(t, Placement{{{1, 9}}}).has_value());
    QVERIFY(validate(t, Placement{{{1, 2}, {1, 2}}}).has_value());
    QVERIFY(validate(t, Placement{}).has_value());
  }
};

QTEST_APPLESS_MAIN(TestPlacement)
#include "test_placement.moc"
