// Settlement in the terminal: the settlement notices tab (rows newest first, state text, trouble
// in red, CSV), the contracts table's settlement columns (state, delivered, escrow, remedy, the
// contract a replacement makes good, tinted rows), the blotter and account panel saying so when
// the market does not settle, and the delivery-problem dialog's checks.
#include "ScriptedMarket.h"

#include "ui/account/AccountPanel.h"
#include "ui/blotter/BlotterWidget.h"
#include "ui/blotter/ContractsModel.h"
#include "ui/blotter/CsvExport.h"
#include "ui/blotter/ReportDeliveryDialog.h"
#include "ui/blotter/SettlementNotesModel.h"
#include "ui/session/SettlementState.h"
#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

constexpr AccountId kMe = 5;

SettlementNote note(ContractId c, const char* state, const char* what, Hour h) {
  return SettlementNote{c, parseContractState(state), QString::fromLatin1(state), QString::fromLatin1(what), h};
}

Contract contract(ContractId id, AccountId buyer, AccountId seller, ContractId replaces = 0) {
  Contract c;
  c.id = id;
  c.buyer = buyer;
  c.seller = seller;
  c.cluster = kCluster;
  c.gpus = 8;
  c.start = kT0 + 1;
  c.end = kT0 + 5;  // 32 GPU-hours
  c.price = kCheap;
  c.terms.creditPerUndeliveredGpuHour = 500'000;
  c.replaces = replaces;
  return c;
}

ContractSettlementStatus status(ContractId id, const char* state, std::int64_t delivered, Money escrow,
                                ContractId replaces = 0) {
  return ContractSettlementStatus{id,      parseContractState(state), QString::fromLatin1(state), delivered, escrow,
                                  replaces};
}

QString text(const QAbstractItemModel& m, int row, int col) { return m.index(row, col).data().toString(); }

QString csv(const QAbstractItemModel& m) {
  QString s;
  QTextStream out(&s);
  writeCsv(m, out);
  out.flush();
  return s;
}

void setHour(QDateTimeEdit* e, Hour h) { e->setDateTime(QDateTime::fromSecsSinceEpoch(h * 3600, QTimeZone::utc())); }

}  // namespace

class TestSettlementViews : public QObject {
  Q_OBJECT
 private slots:
  void statesReadAsWords() {
    QVERIFY(parseContractState("partly_delivered") == ContractState::PartlyDelivered);
    QVERIFY(parseContractState("pending_start") == ContractState::PendingStart);
    QVERIFY(!parseContractState("exploded"));
    QCOMPARE(contractStateLabel(ContractState::PendingStart, "pending_start"), QString("pending start"));
    QCOMPARE(contractStateLabel(ContractState::PartlyDelivered, "partly_delivered"), QString("partly delivered"));
    // A state this terminal does not know is shown as the exchange sent it.
    QCOMPARE(contractStateLabel(std::nullopt, "in_arbitration"), QString("in_arbitration"));
    QVERIFY(isShortfall(ContractState::Failed));
    QVERIFY(isShortfall(ContractState::PartlyDelivered));
    QVERIFY(!isShortfall(ContractState::Settled));
    QVERIFY(!isShortfall(std::nullopt));
  }

  void noticesListNewestFirstWithStateText() {
    SettlementNotesModel m;
    QCOMPARE(m.columnCount(), int(SettlementNotesModel::ColumnCount));
    m.addNotes(
        {note(3, "pending_start", "paid $64.00 into escrow", kT0), note(3, "delivering", "delivery started", kT0 + 1)});
    m.addNotes({note(3, "partly_delivered", "4 of 32 GPU-hours not delivered", kT0 + 5)});
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(text(m, 0, SettlementNotesModel::State), QString("partly delivered"));
    QCOMPARE(text(m, 0, SettlementNotesModel::What), QString("4 of 32 GPU-hours not delivered"));
    QCOMPARE(text(m, 0, SettlementNotesModel::Contract), QString("3"));
    QCOMPARE(text(m, 0, SettlementNotesModel::ExchangeHour), formatHour(kT0 + 5));
    QCOMPARE(text(m, 2, SettlementNotesModel::State), QString("pending start"));
    // Trouble is red; a normal step is not coloured.
    QVERIFY(m.index(0, SettlementNotesModel::State).data(Qt::ForegroundRole).value<QBrush>().color().red() > 200);
    QVERIFY(!m.index(1, SettlementNotesModel::State).data(Qt::ForegroundRole).isValid());
    QCOMPARE(m.headerData(SettlementNotesModel::What, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString("What happened"));
  }

  void noticesExportAsCsv() {
    SettlementNotesModel m;
    m.addNotes({note(12, "settled", "credit $2.00 to buyer, escrow empty", kT0 + 7)});
    QCOMPARE(csv(m),
             QString("Exchange time (UTC),Contract,State,What happened\r\n%1,12,settled,\"credit $2.00 to buyer, "
                     "escrow empty\"\r\n")
                 .arg(formatHour(kT0 + 7)));
  }

  void noticesKeepTheNewestWhenFull() {
    SettlementNotesModel m(nullptr, 3);
    for (int i = 0; i < 5; ++i) m.addNotes({note(static_cast<ContractId>(i), "delivering", "hour", kT0 + i)});
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(text(m, 0, SettlementNotesModel::Contract), QString("4"));
    QCOMPARE(text(m, 2, SettlementNotesModel::Contract), QString("2"));
    m.addNotes({note(9, "settled", "a", kT0 + 9), note(10, "settled", "b", kT0 + 9), note(11, "settled", "c", kT0 + 9),
                note(12, "settled", "d", kT0 + 9)});
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(text(m, 0, SettlementNotesModel::Contract), QString("12"));
    QCOMPARE(text(m, 2, SettlementNotesModel::Contract), QString("10"));
  }

  void contractsShowWhereTheyStandInSettlement() {
    ContractsModel m([](ClusterId) { return QString("c"); });
    m.setContracts({contract(1, kMe, 9), contract(2, 9, kMe), contract(3, kMe, 9, 1)}, {}, kMe);
    m.setSettlement({{1, status(1, "failed", 0, 0)},
                     {2, status(2, "delivering", 8, 192'000'000)},
                     {3, status(3, "pending_start", 0, 256'000'000)}},
                    {1}, true);
    QCOMPARE(text(m, 0, ContractsModel::State), QString("failed"));
    QCOMPARE(text(m, 1, ContractsModel::State), QString("delivering"));
    QCOMPARE(text(m, 1, ContractsModel::Delivered), QString("8 of 32"));
    QCOMPARE(text(m, 1, ContractsModel::Escrow), QString("$192.00"));
    QCOMPARE(text(m, 0, ContractsModel::Remedy), QString("credit $0.50/GPU-h"));
    QCOMPARE(text(m, 2, ContractsModel::Replaces), QString("Replaces #1"));
    QVERIFY(text(m, 1, ContractsModel::Replaces).isEmpty());
    // The failed contract and the replacement stand out; the others do not.
    QVERIFY(m.index(0, ContractsModel::Id).data(Qt::BackgroundRole).value<QBrush>().color() ==
            ContractsModel::shortfallTint());
    QVERIFY(m.index(2, ContractsModel::Id).data(Qt::BackgroundRole).value<QBrush>().color() ==
            ContractsModel::replacementTint());
    QVERIFY(!m.index(1, ContractsModel::Id).data(Qt::BackgroundRole).isValid());
    QVERIFY(m.index(0, ContractsModel::State).data(Qt::DecorationRole).isValid());

    // Settled after failing: still marked, now reading "settled".
    m.setSettlement({{1, status(1, "settled", 0, 0)}}, {1}, true);
    QCOMPARE(text(m, 0, ContractsModel::State), QString("settled"));
    QVERIFY(m.index(0, ContractsModel::Id).data(Qt::BackgroundRole).isValid());
    QCOMPARE(text(m, 1, ContractsModel::State), QString("awaiting status"));
  }

  void inProcessMarketSaysItHasNoSettlement() {
    BlotterWidget b([](ClusterId) { return QString("c"); });
    b.contracts().setContracts({contract(1, kMe, 9)}, {}, kMe);
    b.contracts().setSettlement({}, {}, false);
    QVERIFY(text(b.contracts(), 0, ContractsModel::State).contains("no settlement"));
    b.setSettlementAvailable(false);
    auto* hint = b.findChild<QLabel*>("settlementHint");
    QVERIFY(hint);
    QVERIFY(hint->text().contains("does not settle"));
    b.setSettlementAvailable(true);
    QVERIFY(hint->text().contains("No settlement steps yet"));
    b.settlementNotes().addNotes({note(1, "delivering", "x", kT0)});
    QVERIFY(hint->isHidden());

    AccountPanel local;
    AccountSummary a;
    a.balance = 1'000'000'000;
    a.name = "local";
    local.setAccount(a, {}, 1, 0);
    QVERIFY(local.findChild<QLabel*>("accountEscrow")->text().contains("n/a"));
    a.settlementKnown = true;
    a.escrow = 64'000'000;
    a.credits = 2'500'000;
    local.setAccount(a, {}, 1, 0);
    QCOMPARE(local.findChild<QLabel*>("accountEscrow")->text(), QString("$64.00"));
    QCOMPARE(local.findChild<QLabel*>("accountCredits")->text(), QString("$2.50"));
  }

  void settlementTabExportsWhatItShows() {
    BlotterWidget b([](ClusterId) { return QString("c"); });
    b.settlementNotes().addNotes({note(4, "completed", "all delivered", kT0 + 3)});
    b.tabs()->setCurrentIndex(3);
    QCOMPARE(b.tabs()->tabText(3), QString("Settlement"));
    QVERIFY(csv(b.shownModel()).contains("4,completed,all delivered"));
  }

  void reportActionIsForContractsWeSold() {
    BlotterWidget b([](ClusterId) { return QString("c"); });
    b.setSettlementAvailable(true);
    b.contracts().setContracts({contract(1, kMe, 9), contract(2, 9, kMe)}, {}, kMe);
    QSignalSpy asked(&b, &BlotterWidget::reportDeliveryRequested);
    QTableView* v = b.contractsView();
    auto select = [v](const QString& side) {
      for (int r = 0; r < v->model()->rowCount(); ++r) {
        if (v->model()->index(r, ContractsModel::Side).data().toString() == side)
          v->setCurrentIndex(v->model()->index(r, 0));
      }
    };
    select("Held (bought)");  // not ours to report
    b.reportDeliveryAction()->trigger();
    QCOMPARE(asked.count(), 0);
    select("Sold");
    b.reportDeliveryAction()->trigger();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).value<Contract>().id, ContractId{2});
  }

  void deliveryReportDialogChecksTheReport() {
    const Contract c = contract(2, 9, kMe);  // 8 GPUs, kT0+1 .. kT0+5
    ReportDeliveryDialog d(c, kT0 + 2);
    // Starts at the first hour not yet settled, one hour long, one GPU short.
    auto r = d.report();
    QVERIFY(std::holds_alternative<DeliveryReport>(r));
    QCOMPARE(std::get<DeliveryReport>(r).start, kT0 + 2);
    QCOMPARE(std::get<DeliveryReport>(r).end, kT0 + 3);
    QCOMPARE(std::get<DeliveryReport>(r).usableGpus, 7);
    QVERIFY(std::get<DeliveryReport>(r).problem == DeliveryProblem::MissingGpus);

    setHour(d.toEdit(), kT0 + 5);
    d.usableBox()->setValue(5);
    r = d.report();
    QVERIFY(std::holds_alternative<DeliveryReport>(r));
    QCOMPARE(std::get<DeliveryReport>(r).contract, ContractId{2});
    QCOMPARE(std::get<DeliveryReport>(r).end, kT0 + 5);
    QCOMPARE(std::get<DeliveryReport>(r).usableGpus, 5);

    setHour(d.toEdit(), kT0 + 6);
    QVERIFY(std::get<QString>(d.report()).contains("within the contract"));
    setHour(d.toEdit(), kT0 + 4);
    setHour(d.fromEdit(), kT0 + 1);
    QVERIFY(std::get<QString>(d.report()).contains("already settled"));
    setHour(d.fromEdit(), kT0 + 4);
    setHour(d.toEdit(), kT0 + 4);
    QVERIFY(std::get<QString>(d.report()).contains("after the start"));
    setHour(d.toEdit(), kT0 + 5);
    d.usableBox()->setValue(8);
    QVERIFY(std::get<QString>(d.report()).contains("fewer than all 8"));
    // A degraded link leaves the GPUs there: every one usable is a valid report.
    d.problemBox()->setCurrentIndex(d.problemBox()->findData(static_cast<int>(DeliveryProblem::LinkDegraded)));
    r = d.report();
    QVERIFY(std::holds_alternative<DeliveryReport>(r));
    QVERIFY(std::get<DeliveryReport>(r).problem == DeliveryProblem::LinkDegraded);
    QCOMPARE(std::get<DeliveryReport>(r).usableGpus, 8);
  }
};

QTEST_MAIN(TestSettlementViews)
#include "test_settlement_views.moc"
