// Runs every hand-written scenario in tests/scenarios through `tessera-cli match` (fast engine
// and reference matcher) and compares the events with the expected file, line by line.
#include "core/engine/MatchCommand.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

class MatchScenariosTest : public QObject {
  Q_OBJECT

  static fs::path scenarioDir() {
    const char* root = std::getenv("TESSERA_SOURCE_DIR");
    return fs::path(root ? root : ".") / "tests" / "scenarios";
  }
  static std::vector<std::string> lines(std::istream& in) {
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

 private slots:
  void scenarios_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("reference");
    std::vector<fs::path> inputs;
    for (const auto& e : fs::directory_iterator(scenarioDir()))
      if (e.path().string().ends_with(".in.jsonl")) inputs.push_back(e.path());
    std::sort(inputs.begin(), inputs.end());
    QVERIFY2(inputs.size() >= 8, "scenario files are missing");
    for (const auto& p : inputs) {
      const auto name = p.filename().string();
      QTest::newRow((name + " fast").c_str()) << QString::fromStdString(p.string()) << false;
      QTest::newRow((name + " reference").c_str()) << QString::fromStdString(p.string()) << true;
    }
  }

  void scenarios() {
    QFETCH(QString, input);
    QFETCH(bool, reference);
    std::string path = input.toStdString();
    std::ifstream in(path);
    QVERIFY(in.good());
    std::string expectedPath = path.substr(0, path.size() - std::string(".in.jsonl").size()) + ".out.jsonl";
    std::ifstream expectedFile(expectedPath);
    QVERIFY2(expectedFile.good(), ("missing " + expectedPath).c_str());
    std::ostringstream out, err;
    std::string arg0 = "match", arg1 = "--reference";
    char* argv[] = {arg0.data(), arg1.data()};
    QCOMPARE(tessera::runMatchCommand(reference ? 2 : 1, argv, in, out, err), 0);
    std::istringstream actualStream(out.str());
    const auto actual = lines(actualStream);
    const auto expected = lines(expectedFile);
    for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i)
      QVERIFY2(actual[i] == expected[i],
               ("line " + std::to_string(i + 1) + "\n actual:   " + actual[i] + "\n expected: " + expected[i]).c_str());
    QCOMPARE(actual.size(), expected.size());
  }
};

QTEST_GUILESS_MAIN(MatchScenariosTest)
#include "test_match_scenarios.moc"
