// The fuzzing harness, run in CI: thousands of mutated scenario scripts (bytes flipped, lines cut,
// duplicated, swapped, numbers made huge) through both matchers. Neither may crash, disagree,
// or print anything but events.
#include "MatchInputFuzzing.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

class MatchInputMutationsTest : public QObject {
  Q_OBJECT
 private slots:
  void mutatedScenariosNeverBreakTheEngine() {
    const char* root = std::getenv("TESSERA_SOURCE_DIR");
    std::vector<std::string> seeds;
    for (const auto& e : fs::directory_iterator(fs::path(root ? root : ".") / "tests" / "scenarios"))
      if (e.path().string().ends_with(".in.jsonl")) {
        std::ifstream f(e.path());
        std::stringstream s;
        s << f.rdbuf();
        seeds.push_back(s.str());
      }
    QVERIFY(!seeds.empty());
    std::mt19937_64 rng(2026);
    auto u = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
    const char* tokens[] = {
        "99999999999999999999", "-1", "0", "null", "\"\"", "[]", "{}", "1e308", "\"H100\"", ",", "\""};
    for (int round = 0; round < 3000; ++round) {
      std::string s = seeds[u(0, seeds.size() - 1)];
      for (std::size_t k = u(1, 4); k > 0 && !s.empty(); --k) {
        const std::size_t at = u(0, s.size() - 1);
        switch (u(0, 4)) {
          case 0: s[at] = static_cast<char>(u(0, 255)); break;
          case 1: s.erase(at, u(1, 20)); break;
          case 2: s.insert(at, tokens[u(0, std::size(tokens) - 1)]); break;
          case 3: s.insert(at, s.substr(at, u(1, 200))); break;  // duplicate a run (often whole lines)
          default: s.insert(at, "\n"); break;
        }
      }
      std::string why;
      const bool ok = tessera::testing::runMatchOnBytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size(), why);
      if (!ok) QFAIL((why + "\ninput:\n" + s).c_str());
    }
  }
};

QTEST_GUILESS_MAIN(MatchInputMutationsTest)
#include "test_match_input_mutations.moc"
