#include "core/net/Journal.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <fstream>

using namespace tessera::net;

namespace {
std::unique_ptr<Journal> openOrFail(const std::string& path) {
  auto r = Journal::open(path, false);
  if (auto* e = std::get_if<std::string>(&r)) qFatal("%s", e->c_str());
  return std::move(std::get<std::unique_ptr<Journal>>(r));
}
std::vector<JournalEntry> all(Journal& j) {
  std::vector<JournalEntry> out;
  j.replay([&](const JournalEntry& e) { out.push_back(e); });
  return out;
}
}  // namespace

class TestJournal : public QObject {
  Q_OBJECT
 private slots:
  void committedEntriesSurviveReopen() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    {
      auto j = openOrFail(path);
      j->append("a", "{\"x\":1}");
      j->append("", "{\"x\":2}");
      j->commit();
      j->append("c", "{\"x\":3}");
      j->commit();
    }
    auto j = openOrFail(path);
    const auto entries = all(*j);
    QCOMPARE(entries.size(), std::size_t(3));
    QCOMPARE(entries[0].seq, std::uint64_t(1));
    QCOMPARE(entries[0].clOrdId, std::string("a"));
    QCOMPARE(entries[2].input, std::string("{\"x\":3}"));
    QCOMPARE(j->lastSeq(), std::uint64_t(3));
    j->append("d", "{}");  // continues the sequence
    j->commit();
    QCOMPARE(all(*j).back().seq, std::uint64_t(4));
  }
  void uncommittedEntriesAreInvisibleToOthers() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    auto writer = openOrFail(path);
    writer->append("a", "{}");
    writer->commit();
    writer->append("b", "{}");  // a batch in progress: never acknowledged
    auto reader = openOrFail(path);
    QCOMPARE(all(*reader).size(), std::size_t(1));
    writer->commit();
    QCOMPARE(all(*reader).size(), std::size_t(2));
  }
  void walModeIsOn() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    auto j = openOrFail(path);
    j->append("a", "{}");
    j->commit();
    QVERIFY(QFile::exists(dir.filePath("j.db-wal")));
  }
  void walIsCheckpointedInTheBackground() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    auto j = openOrFail(path);
    const std::string row(200, 'r');
    for (int batch = 0; batch < 50; ++batch) {
      for (int i = 0; i < 100; ++i) j->append("x", row);
      j->commit();
    }
    // The main file receives the pages without the writer ever checkpointing itself.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(dir.filePath("j.db")).size() > 1'000'000, 5000);
    // And the WAL is reused rather than growing without bound.
    const qint64 wal = QFileInfo(dir.filePath("j.db-wal")).size();
    for (int batch = 0; batch < 50; ++batch) {
      for (int i = 0; i < 100; ++i) j->append("x", row);
      j->commit();
      QTest::qWait(20);
    }
    QVERIFY2(QFileInfo(dir.filePath("j.db-wal")).size() <= wal * 3 / 2 + 1'000'000,
             qPrintable(QString::number(QFileInfo(dir.filePath("j.db-wal")).size())));
  }
  void walStartsOverUnderASteadyStream() {
    // Commits a few milliseconds apart, as a busy exchange makes them: each background round must
    // end with the WAL wholly copied between two transactions, so that it starts over. Before,
    // a round whose unlocked passes had caught up skipped that last pass and the WAL grew past
    // a round's 16 MiB, round after round, to 64 MiB.
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    auto j = openOrFail(path);
    const std::string row(200, 'r');
    qint64 largest = 0;
    for (int batch = 0; batch < 500; ++batch) {
      // The writer's transaction is open while the batch is applied, and the next one opens
      // as soon as this one commits, as on the matching thread; a background pass is quicker
      // than the batch, so it catches up with every commit while the next batch is open.
      for (int i = 0; i < 400; ++i) {
        j->append("x", row);
        if (i == 0) QThread::usleep(4000);
      }
      j->commit();
      largest = std::max(largest, QFileInfo(dir.filePath("j.db-wal")).size());
    }
    QVERIFY2(QFileInfo(dir.filePath("j.db")).size() > 30'000'000, "the rows did not reach the main file");
    QVERIFY2(largest < 32'000'000, qPrintable(QString("the WAL grew to %1 bytes").arg(largest)));
  }
  void garbageFileIsAClearError() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.db").toStdString();
    std::ofstream(path) << std::string(8192, 'x');
    auto r = Journal::open(path, false);
    QVERIFY(std::holds_alternative<std::string>(r));
    QVERIFY(std::get<std::string>(r).find("bad.db") != std::string::npos);
  }
  void missingDirectoryIsAClearError() {
    auto r = Journal::open("/nonexistent-dir/x/j.db", false);
    QVERIFY(std::holds_alternative<std::string>(r));
  }
  void inMemory() {
    auto j = openOrFail(":memory:");
    j->append("a", "{}");
    j->commit();
    QCOMPARE(all(*j).size(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestJournal)
#include "test_journal.moc"
