// Topology files: the shipped examples load, bad files give one clear message, clusters derive.
#include "CostTestData.h"
#include "core/cost/TopologyJson.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

nlohmann::json validTopology() {
  return nlohmann::json::parse(R"({
    "name": "t", "region": "us-east", "accelerator": "H100", "gpus_per_node": 8,
    "intra_node": {"link": "NVSwitch", "gbytes_per_s_per_gpu": 900},
    "fabric": {"class": "InfiniBand", "rails_per_node": 8, "gbps_per_rail": 400, "nodes_per_leaf": 32},
    "sites": [{"name": "a", "nodes": 4}]
  })");
}

std::string errorOf(const nlohmann::json& j) {
  auto r = topologyFromJson(j);
  if (auto* e = std::get_if<LoadError>(&r)) return e->message;
  return {};
}

}  // namespace

class TestTopologyJson : public QObject {
  Q_OBJECT

 private slots:
  void shippedTopologiesLoad() {
    QDir dir(td::sourcePath("resources/topologies"));
    const QStringList files = dir.entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() >= 5);
    for (const QString& f : files) {
      auto r = loadTopologyFile(dir.filePath(f).toStdString());
      QVERIFY2(std::holds_alternative<Topology>(r),
               qPrintable(f + ": " +
                          QString::fromStdString(std::get_if<LoadError>(&r) ? std::get_if<LoadError>(&r)->message
                                                                            : std::string())));
    }
    auto hgx = std::get<Topology>(loadTopologyFile(dir.filePath("hgx-h100-ndr-ib.json").toStdString()));
    QCOMPARE(hgx.totalGpus(), 1024);
    QCOMPARE(hgx.fabric.nodeGBps(), 400.0);  // 8 x 400 Gb/s
    QCOMPARE(leafCount(hgx), 4);
    auto twoSite = std::get<Topology>(loadTopologyFile(dir.filePath("two-site-h100.json").toStdString()));
    QCOMPARE(twoSite.sites.size(), std::size_t{2});
    QCOMPARE(locate(twoSite, 40).site, 1);
  }

  void roundTrip() {
    auto t = std::get<Topology>(topologyFromJson(validTopology()));
    QCOMPARE(t.nodeCount(), 4);
    QCOMPARE(t.fabric.oversubscription, 1.0);  // default
    QCOMPARE(t.reliability.nodeFailuresPerYear, 0.10);
    auto again = topologyFromJson(toJson(t));
    QVERIFY(std::holds_alternative<Topology>(again));
    QVERIFY(std::get<Topology>(again) == t);
  }

  void missingField() {
    auto j = validTopology();
    j["fabric"].erase("rails_per_node");
    QCOMPARE(QString::fromStdString(errorOf(j)),
             QStringLiteral("topology.fabric.rails_per_node: missing required field"));
  }

  void wrongType() {
    auto j = validTopology();
    j["gpus_per_node"] = "eight";
    QCOMPARE(QString::fromStdString(errorOf(j)), QStringLiteral("topology.gpus_per_node: must be an integer"));
    j = validTopology();
    j["sites"] = {{"name", "x"}};
    QVERIFY(QString::fromStdString(errorOf(j)).contains("must be an array"));
  }

  void negativeSizes() {
    auto j = validTopology();
    j["sites"][0]["nodes"] = -3;
    QVERIFY(QString::fromStdString(errorOf(j)).startsWith("topology.sites[0].nodes: must be between 1"));
    j = validTopology();
    j["intra_node"]["gbytes_per_s_per_gpu"] = -900;
    QVERIFY(QString::fromStdString(errorOf(j)).contains("intra_node.gbytes_per_s_per_gpu"));
  }

  void unknownEnumAndTwoSitesNeedALink() {
    auto j = validTopology();
    j["accelerator"] = "TPUv5";
    QVERIFY(QString::fromStdString(errorOf(j)).contains("unknown value 'TPUv5'"));
    j = validTopology();
    j["sites"].push_back({{"name", "b"}, {"nodes", 2}});
    QVERIFY(QString::fromStdString(errorOf(j)).contains("topology.inter_site: missing required field"));
  }

  void badFiles() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("bad.json").toStdString();
    { std::ofstream(path) << "{ \"name\": "; }
    auto r = loadTopologyFile(path);
    QVERIFY(std::holds_alternative<LoadError>(r));
    QVERIFY(QString::fromStdString(std::get<LoadError>(r).message).contains("not valid JSON"));
    auto missing = loadTopologyFile(tmp.filePath("nope.json").toStdString());
    QVERIFY(QString::fromStdString(std::get<LoadError>(missing).message).contains("cannot open"));
    { std::ofstream(path) << "[1, 2]"; }
    QVERIFY(std::holds_alternative<LoadError>(loadTopologyFile(path)));
  }

  void deriveFromCluster() {
    Cluster c;
    c.name = "tier3-4090";
    c.region = "eu-west";
    c.accelerator = Accelerator::RTX4090;
    c.gpusPerNode = 4;
    c.nodeCount = 10;
    c.intraNodeLink = IntraNodeLink::PCIe;
    c.intraNodeGBps = 32;
    c.fabric = FabricClass::Ethernet;
    c.fabricGbpsPerNode = 100;
    const Topology t = deriveTopology(c);
    QCOMPARE(t.totalGpus(), 40);
    QCOMPARE(t.fabric.railsPerNode, 1);
    QCOMPARE(t.fabric.nodeGBps(), 12.5);
    QCOMPARE(t.fabric.oversubscription, 2.0);
    QCOMPARE(t.region, std::string("eu-west"));
    Cluster big;  // defaults: 8 x H100, 3200 Gb/s InfiniBand
    big.nodeCount = 64;
    const Topology b = deriveTopology(big);
    QCOMPARE(b.fabric.railsPerNode, 8);
    QCOMPARE(b.fabric.gbpsPerRail, 400.0);
    QCOMPARE(leafCount(b), 2);
  }
};

QTEST_APPLESS_MAIN(TestTopologyJson)
#include "test_topology_json.moc"
