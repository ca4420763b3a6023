// The paper account survives quitting: the embedded exchange (fed by the simulated market, as
// the terminal runs it by default) journals to a file; a terminal started again on that file
// finds the same cash, holds, escrow, working orders and contracts, read from the exchange by a
// client of the account, and a market that goes on from the clock it left. A second terminal
// cannot take the file while the first holds it; an unreadable journal is kept aside.
#include "TestSettings.h"
#include "ExchangeAccountReader.h"
#include "core/net/ExchangeClient.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/PaperAccount.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QMenuBar>
#include <QMessageBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <mutex>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

backtest::SimulatedMarketConfig marketConfig() {
  backtest::SimulatedMarketConfig c;
  c.seed = 11;
  c.clusterCount = 4;
  c.ticksPerHour = 4;  // a simulated hour every 4 steps: the clock visibly moves within a test
  return c;
}
constexpr int kStepMs = 250;  // a simulated hour a second: the bought hours stay two days ahead

// A terminal's market on `journal`: the backend the terminal makes by default, in a session.
struct Terminal {
  EmbeddedExchangeBackend* backend = nullptr;  // owned by the session
  std::unique_ptr<TradingSession> session;
  explicit Terminal(const QString& journal, backtest::SimulatedMarketConfig market = marketConfig(),
                    int stepMs = kStepMs) {
    auto b = std::make_unique<EmbeddedExchangeBackend>(market, "trader", stepMs, std::string(), journal.toStdString());
    backend = b.get();
    session = std::make_unique<TradingSession>(std::move(b));
    session->start();
  }
  bool ready() const {
    return session->connection() == ConnectionState::Connected && !session->clusters().empty() &&
           session->account().balance > 0;
  }
  std::uint16_t port() const { return backend->exchangePort(); }
};

bool sameOrders(std::vector<net::WorkingOrder> a, std::vector<net::WorkingOrder> b) {
  auto key = [](const net::WorkingOrder& w) { return w.orderId; };
  std::sort(a.begin(), a.end(), [&](auto& x, auto& y) { return key(x) < key(y); });
  std::sort(b.begin(), b.end(), [&](auto& x, auto& y) { return key(x) < key(y); });
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].orderId != b[i].orderId || a[i].clOrdId != b[i].clOrdId || a[i].leavesGpuHours != b[i].leavesGpuHours ||
        a[i].filledGpuHours != b[i].filledGpuHours || a[i].request.limit != b[i].request.limit ||
        a[i].request.gpus != b[i].request.gpus || a[i].request.start != b[i].request.start ||
        a[i].request.end != b[i].request.end)
      return false;
  }
  return true;
}

}  // namespace

class TestPaperAccount : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_paper_account", false); }

  // Fails when the embedded exchange journals to ":memory:" again (EmbeddedExchangeBackend
  // ignoring journalPath: cash back to $1,000,000, no orders or contracts); when the feeder
  // starts at its configured start (a wall-clock hour a month later) instead of the restored
  // clock (config_.start not set from clockAtStart(): the clock jumps a month, the bid expires
  // and the bought hour is delivered, so reserved and escrow differ).
  void everythingComesBackAfterARestart() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString journal = dir.filePath("paper/exchange.db");
    PaperAccount account(journal);
    const auto chosen = chooseJournal(account, false, [](const QString&) { return false; });
    QVERIFY(chosen && *chosen == journal);

    AccountState before;
    {
      Terminal t(journal);
      QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 15000);
      // Buy one GPU-hour two days ahead at the best ask (fills against the simulated market),
      // and rest a bid far below the market three days ahead: a contract, escrow, a hold.
      std::optional<std::pair<ClusterId, Hour>> where;
      std::optional<Price> ask;
      std::atomic<bool> looked = false;
      const Hour now = t.session->now();
      t.session->runOnBook([&](const Matcher& book) {
        for (const Cluster& c : book.clusters()) {
          for (Hour h = now + 48; h < now + 96 && !where; ++h) {
            const auto levels = book.depth(c.id, h, Side::Sell, 1);
            if (!levels.empty()) {
              where = std::pair{c.id, h};
              ask = levels.front().price;
            }
          }
          if (where) break;
        }
        looked = true;
      });
      QTRY_VERIFY_WITH_TIMEOUT(looked.load(), 5000);
      QVERIFY2(where.has_value(), "the simulated market lists nothing two to four days ahead");
      OrderRequest buy;
      buy.side = Side::Buy;
      buy.cluster = where->first;
      buy.gpus = 1;
      buy.start = where->second;
      buy.end = where->second + 1;
      buy.limit = 3 * *ask;  // fills even if that ask was taken meanwhile
      t.session->submit(buy);
      QTRY_VERIFY_WITH_TIMEOUT(!t.session->contracts().empty(), 10000);
      OrderRequest bid;
      bid.side = Side::Buy;
      bid.cluster = where->first;
      bid.gpus = 2;
      bid.start = now + 72;
      bid.end = now + 75;
      bid.limit = 50'000;  // $0.05: far below every ask, it rests
      t.session->submit(bid);
      QTRY_VERIFY_WITH_TIMEOUT(t.session->workingOrders().size() == 1, 10000);
      auto read = readAccount(t.port());
      QVERIFY(read);
      before = *read;
    }  // quitting: the session stops the client, the feeder and the exchange
    QVERIFY(before.balance.escrow > 0);
    QVERIFY(before.balance.reserved > 0);
    QCOMPARE(before.orders.size(), std::size_t{1});
    QVERIFY(!before.contracts.empty());
    QVERIFY(before.balance.cash < 1'000'000 * kMicrosPerDollar);

    // Started again a month later by the wall clock, as the terminal configures its market.
    backtest::SimulatedMarketConfig later = marketConfig();
    later.start += 30 * kHoursPerDay;
    Terminal again(journal, later);
    QTRY_VERIFY_WITH_TIMEOUT(again.ready(), 15000);
    auto after = readAccount(again.port());
    QVERIFY(after);
    QCOMPARE(after->balance.cash, before.balance.cash);
    QCOMPARE(after->balance.reserved, before.balance.reserved);
    QCOMPARE(after->balance.escrow, before.balance.escrow);
    QVERIFY(sameOrders(after->orders, before.orders));
    QCOMPARE(after->contracts.size(), before.contracts.size());
    for (std::size_t i = 0; i < before.contracts.size(); ++i) QVERIFY(after->contracts[i] == before.contracts[i]);
    QVERIFY2(after->now >= before.now, "the exchange clock went backwards");
    // The market goes on from the restored clock and trades (a trade after the restored hour
    // is the new run's: a resumed session is also sent earlier trades).
    const Hour restored = after->now;
    QVERIFY2(restored < before.now + 24, "the clock jumped on restart");
    QTRY_VERIFY_WITH_TIMEOUT(again.session->now() > restored + 1, 10000);
    QVERIFY(again.session->now() < restored + 24);
    auto tradedSince = [&] {
      const auto& t = again.session->trades();
      return std::any_of(t.begin(), t.end(), [&](const ui::TradePrint& p) { return p.exchangeTime > restored; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(tradedSince(), 5000);
    QCOMPARE(again.session->account().balance, before.balance.cash);
  }

  // Fails when PaperAccount::claim() does not lock (always Owned): the second terminal is
  // handed the first one's journal file.
  void aSecondTerminalIsOfferedAnAccountInMemory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString journal = dir.filePath("exchange.db");
    PaperAccount first(journal);
    QVERIFY(chooseJournal(first, false, [](const QString&) { return false; }) == journal);
    Terminal running(journal);
    QTRY_VERIFY_WITH_TIMEOUT(running.ready(), 15000);

    PaperAccount second(journal);
    QString told;
    // Refused: the terminal does not run.
    QVERIFY(!chooseJournal(second, false, [&](const QString& why) {
      told = why;
      return false;
    }));
    QVERIFY2(told.contains("another Tessera"), qPrintable(told));
    QVERIFY(told.contains(journal));
    // Accepted: a temporary account in memory, $1,000,000, while the first keeps its file.
    const auto memory = chooseJournal(second, true, [](const QString&) { return true; });
    QVERIFY(memory && *memory == QLatin1String(kMemoryJournal));
    QVERIFY(!second.owned());
    Terminal temporary(*memory);
    QTRY_VERIFY_WITH_TIMEOUT(temporary.ready(), 15000);
    QCOMPARE(temporary.session->account().balance, 1'000'000 * kMicrosPerDollar);
    QVERIFY(temporary.port() != running.port());
    QVERIFY(QFile::exists(journal));  // --fresh on the second did not delete the first's account
    QVERIFY(running.ready());
  }

  // --fresh and File > New paper account... (after its confirmation; the terminal restarts
  // with fresh = true). Fails when PaperAccount::erase() leaves the journal (returns without
  // deleting): the resting bid and its hold come back; and when PaperAccount::journalFiles
  // leaves out the exchange's snapshots (exchange.db.snapshots stays behind).
  void aNewPaperAccountStartsOver() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString journal = dir.filePath("exchange.db");
    PaperAccount account(journal);
    QVERIFY(chooseJournal(account, false, [](const QString&) { return false; }) == journal);
    {
      Terminal t(journal);
      QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 15000);
      OrderRequest bid;
      bid.side = Side::Buy;
      bid.cluster = t.session->clusters().front().id;
      bid.gpus = 2;
      bid.start = t.session->now() + 72;
      bid.end = bid.start + 3;
      bid.limit = 50'000;
      t.session->submit(bid);
      QTRY_VERIFY_WITH_TIMEOUT(t.session->workingOrders().size() == 1, 10000);
      QTRY_VERIFY_WITH_TIMEOUT(t.session->account().reserved > 0, 10000);
    }
    // The exchange wrote a snapshot when it stopped: it belongs to this account too.
    QVERIFY(QFile::exists(journal + ".snapshots"));
    const auto fresh = chooseJournal(account, true, [](const QString&) { return false; });
    QVERIFY(fresh && *fresh == journal);
    for (const QString& f : PaperAccount::journalFiles(journal)) QVERIFY2(!QFile::exists(f), qPrintable(f));
    const QStringList left = QDir(dir.path()).entryList({"exchange.db*"}, QDir::Files);
    QVERIFY2(left.isEmpty() || left == QStringList{"exchange.db.lock"}, qPrintable(left.join(", ")));
    Terminal again(journal);
    QTRY_VERIFY_WITH_TIMEOUT(again.ready(), 15000);
    auto state = readAccount(again.port());
    QVERIFY(state);
    QCOMPARE(state->balance.cash, 1'000'000 * kMicrosPerDollar);
    QCOMPARE(state->balance.reserved, Money{0});
    QVERIFY(state->orders.empty());
  }

  // The menu asks first and says what is lost. Fails when the action emits
  // newPaperAccountRequested without the confirmation (Cancel then starts over too).
  void theMenuAsksBeforeStartingOver() {
    Terminal t(QString::fromLatin1(kMemoryJournal));
    MainWindow w(*t.session);
    w.show();
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 15000);
    QAction* action = nullptr;
    for (QAction* a : w.menuBar()->actions().front()->menu()->actions())
      if (a->text().contains("New paper account")) action = a;
    QVERIFY(action);
    QVERIFY(!action->isVisible());  // not for a market without a paper account
    w.setPaperAccount("/somewhere/exchange.db");
    QVERIFY(action->isVisible());
    QSignalSpy requested(&w, &MainWindow::newPaperAccountRequested);
    QString asked;
    auto answer = [&](QMessageBox::StandardButton b) {
      QTimer::singleShot(0, [&, b] {
        // Bounded: the dialog opens within the action's trigger.
        for (int i = 0; i < 200 && !QApplication::activeModalWidget(); ++i) QTest::qWait(10);
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = box->text();
        box->button(b)->click();
      });
      action->trigger();
    };
    answer(QMessageBox::Cancel);
    QCOMPARE(requested.count(), 0);
    QVERIFY2(asked.contains("/somewhere/exchange.db") && asked.contains("lost"), qPrintable(asked));
    answer(QMessageBox::Discard);
    QCOMPARE(requested.count(), 1);
  }

  // Fails when an unreadable journal is not set aside (EmbeddedExchangeBackend reporting the
  // JournalUnreadable and stopping, or deleting the file): no fresh account, or no copy kept.
  void anUnreadableJournalIsKeptAside() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString journal = dir.filePath("exchange.db");
    const QByteArray garbage = QByteArray("this is not a journal\n").repeated(200);
    {
      QFile f(journal);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(garbage);
    }
    Terminal t(journal);
    QSignalSpy errors(t.session.get(), &TradingSession::errorOccurred);
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 15000);
    QCOMPARE(t.session->account().balance, 1'000'000 * kMicrosPerDollar);
    const QStringList aside = QDir(dir.path()).entryList({"exchange.db.unreadable-*"}, QDir::Files);
    QCOMPARE(aside.size(), 1);
    QFile kept(dir.filePath(aside.front()));
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), garbage);  // untouched
    QTRY_VERIFY_WITH_TIMEOUT(!errors.isEmpty(), 5000);
    const QString said = errors.front().front().toString();
    QVERIFY2(said.contains(dir.filePath(aside.front())), qPrintable(said));
    QVERIFY(QFile::exists(journal));  // the new account's journal
  }
};

QTEST_MAIN(TestPaperAccount)
#include "test_paper_account.moc"
