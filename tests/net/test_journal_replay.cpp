// JournalReplay on its own: the exchange's own entries go to the one handler of their type,
// engine inputs to the input handler with their entry, nothing is journaled while replaying, an
// entry that cannot be replayed is named, and a snapshot is tied to its journal entry, journal
// and configuration.
// Mutations seen failing: checkHeader not comparing the journal's id
// (aSnapshotIsTiedToItsJournalAndConfiguration); the replaying flag left set when an entry
// throws (aBadEntryIsNamed).
#include "ExchangeParts.h"

#include "core/engine/SnapshotCodec.h"
#include "core/net/JournalForm.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

class TestJournalReplay : public QObject {
  Q_OBJECT
 private slots:
  void entriesGoToTheirHandlers() {
    auto journal = memoryJournal();
    AccountDirectory directory;
    JournalReplay replay(*journal, directory);
    std::string clock;
    writeJournalForm(clock, ClockAdvance{5}, directory);
    journal->append("", R"({"type":"note","n":1})");
    journal->append("", clock);
    journal->append("", R"({"type":"note","n":2})");
    journal->commit();

    std::vector<int> notes;
    std::vector<std::uint64_t> inputs;
    replay.registerEntry("note", [&](const nlohmann::json& j) {
      QVERIFY(replay.replaying());
      notes.push_back(j.at("n").get<int>());
      replay.append(R"({"type":"note","n":3})");  // already in the journal: not written again
    });
    const auto count = replay.run(0, [&](const JournalEntry& e, InputEvent&& in) {
      QCOMPARE(std::get<ClockAdvance>(in).now, Hour{5});
      inputs.push_back(e.seq);
    });
    QCOMPARE(count, std::uint64_t{3});
    QCOMPARE(notes, (std::vector<int>{1, 2}));
    QCOMPARE(inputs, std::vector<std::uint64_t>{2});
    QVERIFY(!replay.replaying());
    QCOMPARE(journal->lastSeq(), std::uint64_t{3});
    // Live, append() writes.
    replay.append(R"({"type":"note","n":4})");
    QCOMPARE(journal->lastSeq(), std::uint64_t{4});
    // After entry 2: only the later entries.
    notes.clear();
    QCOMPARE(replay.run(2, [](const JournalEntry&, InputEvent&&) {}), std::uint64_t{2});
    QCOMPARE(notes, (std::vector<int>{2, 4}));
  }

  void aBadEntryIsNamed() {
    for (const auto& [line, message] :
         std::vector<std::pair<std::string, std::string>>{{"not json", "journal entry 1 is not JSON"},
                                                          {R"({"type":"note"})", "journal entry 1: no n"},
                                                          {R"({"type":"mystery"})", "journal entry 1: "}}) {
      auto journal = memoryJournal();
      AccountDirectory directory;
      JournalReplay replay(*journal, directory);
      replay.registerEntry("note", [](const nlohmann::json& j) {
        if (!j.contains("n")) throw std::runtime_error("no n");
      });
      journal->append("", line);
      journal->commit();
      try {
        replay.run(0, [](const JournalEntry&, InputEvent&&) {});
        QFAIL("replayed a bad entry");
      } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).rfind(message, 0) == 0, e.what());
      }
      QVERIFY(!replay.replaying());
    }
  }

  void aSnapshotIsTiedToItsJournalAndConfiguration() {
    auto journal = memoryJournal();
    auto other = memoryJournal();  // the same entries, another journal
    AccountDirectory directory;
    for (Journal* j : {journal.get(), other.get()}) {
      j->append("", R"({"type":"note","n":1})");
      j->commit();
    }
    JournalReplay replay(*journal, directory);
    std::string bytes;
    SnapshotWriter w(bytes);
    replay.writeHeader(w, 42);
    auto check = [&](JournalReplay& r, std::uint64_t seq, std::uint64_t fingerprint) -> std::string {
      SnapshotReader reader(bytes);
      try {
        r.checkHeader(reader, seq, fingerprint);
        return "";
      } catch (const SnapshotCorrupt& e) {
        return e.what();
      }
    };
    QCOMPARE(check(replay, 1, 42), std::string());
    QCOMPARE(check(replay, 1, 43), std::string("the configured accounts or fee changed since it was taken"));
    QCOMPARE(check(replay, 0, 42), std::string("its bytes name another journal entry than its record"));
    JournalReplay elsewhere(*other, directory);
    QCOMPARE(check(elsewhere, 1, 42), std::string("taken from another journal"));
    // A later entry does not change what the snapshot was taken after.
    journal->append("", R"({"type":"note","n":2})");
    journal->commit();
    QCOMPARE(check(replay, 1, 42), std::string());
  }
};

QTEST_GUILESS_MAIN(TestJournalReplay)
#include "test_journal_replay.moc"
