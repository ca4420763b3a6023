// Workload files: the shipped profiles load; bad ones say what is wrong.
#include "CostTestData.h"
#include "core/cost/WorkloadJson.h"

#include <QDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

nlohmann::json training() {
  return nlohmann::json::parse(R"({
    "kind": "training", "model_params_billions": 7, "parallelism": {"data": 16, "tensor": 2},
    "total_tokens": 1e9, "tokens_per_step": 1e6, "peak_compute_seconds_per_step": 0.5
  })");
}

QString errorOf(const nlohmann::json& j) {
  auto r = workloadFromJson(j);
  if (auto* e = std::get_if<LoadError>(&r)) return QString::fromStdString(e->message);
  return {};
}

}  // namespace

class TestWorkloadJson : public QObject {
  Q_OBJECT

 private slots:
  void shippedWorkloadsLoad() {
    QDir dir(td::sourcePath("resources/workloads"));
    const QStringList files = dir.entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() >= 4);
    for (const QString& f : files) {
      auto r = loadWorkloadFile(dir.filePath(f).toStdString());
      QVERIFY2(std::holds_alternative<WorkloadProfile>(r),
               qPrintable(f + ": " +
                          QString::fromStdString(std::get_if<LoadError>(&r) ? std::get_if<LoadError>(&r)->message
                                                                            : std::string())));
    }
  }

  // What the workload editor saves reads back as the same workload, for every shipped profile
  // (they cover every kind and the optional fields). Fails if toJson leaves out a field the
  // reader takes (mutation tried: no "comm_overlap").
  void writtenWorkloadsReadBackTheSame() {
    QDir dir(td::sourcePath("resources/workloads"));
    for (const QString& f : dir.entryList({"*.json"}, QDir::Files)) {
      auto r = loadWorkloadFile(dir.filePath(f).toStdString());
      QVERIFY(std::holds_alternative<WorkloadProfile>(r));
      const nlohmann::json written = toJson(std::get<WorkloadProfile>(r));
      auto back = workloadFromJson(written);
      QVERIFY2(std::holds_alternative<WorkloadProfile>(back), qPrintable(f));
      QCOMPARE(QString::fromStdString(toJson(std::get<WorkloadProfile>(back)).dump()),
               QString::fromStdString(written.dump()));
      const auto& a = std::get<WorkloadProfile>(r);
      const auto& b = std::get<WorkloadProfile>(back);
      QCOMPARE(b.steps, a.steps);
      QCOMPARE(b.commOverlap, a.commOverlap);
      QCOMPARE(b.gpus(), a.gpus());
      QCOMPARE(b.gradientBytesPerStep.has_value(), a.gradientBytesPerStep.has_value());
    }
  }

  void defaultsAndDerivedFields() {
    auto w = std::get<WorkloadProfile>(workloadFromJson(training()));
    QCOMPARE(w.gpus(), 32);
    QCOMPARE(w.steps, 1000.0);
    QCOMPARE(w.kernelEfficiency, 0.55);
    QVERIFY(w.tolerance == InterruptionTolerance::RestartFromCheckpoint);
    QCOMPARE(w.gradientBytes(), 2.0 * 7e9 / 2);  // bf16 gradients of a tensor-parallel half
    QCOMPARE(usefulUnits(w), 1000.0);            // 1e9 tokens = 1000 x 1M
  }

  void errors() {
    auto j = training();
    j["kind"] = "mining";
    QVERIFY(errorOf(j).contains("unknown kind 'mining'"));
    j = training();
    j.erase("parallelism");
    QCOMPARE(errorOf(j), QStringLiteral("workload.parallelism: missing required field"));
    j = training();
    j["comm_overlap"] = 1.5;
    QVERIFY(errorOf(j).startsWith("workload.comm_overlap: must be between 0 and 1"));
    j = training();
    j["parallelism"]["data"] = 0;
    QVERIFY(errorOf(j).contains("parallelism.data"));
    j = training();
    j.erase("tokens_per_step");
    QVERIFY(errorOf(j).contains("needs tokens_per_step"));
    j = training();
    j["checkpoint"] = {{"size_gb", "big"}};
    QCOMPARE(errorOf(j), QStringLiteral("workload.checkpoint.size_gb: must be a number"));
    auto inf = nlohmann::json::parse(R"({"kind": "inference", "parallelism": {"data": 2}})");
    QCOMPARE(errorOf(inf), QStringLiteral("workload.inference: missing required field"));
    QVERIFY(errorOf(nlohmann::json::array()).contains("must be a JSON object"));
  }
};

QTEST_APPLESS_MAIN(TestWorkloadJson)
#include "test_workload_json.moc"
