// The order ticket's listing terms: a sell order carries the terms chosen in the form, invalid
// terms are refused with a reason, the last terms sent are remembered, a sell-back passes on
// the resold contract's terms, and a buy ticket shows the terms of the asks it would take.
#include "TestSettings.h"
#include "ScriptedMarket.h"

#include "ui/shell/TermsFormat.h"
#include "ui/ticket/ListingTermsEditor.h"
#include "ui/ticket/OrderTicket.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

void setWindow(OrderTicket& t, Hour start, Hour end) {
  t.findChild<QDateTimeEdit*>("ticketStart")
      ->setDateTime(QDateTime::fromSecsSinceEpoch(start * 3600, QTimeZone::utc()));
  t.findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(QDateTime::fromSecsSinceEpoch(end * 3600, QTimeZone::utc()));
}

void selectData(QComboBox* box, int data) {
  const int i = box->findData(data);
  QVERIFY(i >= 0);
  box->setCurrentIndex(i);
}

struct SellTicket {
  OrderTicket ticket;
  SellTicket() {
    ticket.setClusters({testCluster()});
    ticket.setNow(kT0);
    ticket.setKind(TicketKind::DivisibleSell);
    ticket.findChild<QLineEdit*>("ticketGpus")->setText(QString::number(8));
    setWindow(ticket, kT0 + 2, kT0 + 26);
    ticket.findChild<QLineEdit*>("ticketLimit")->setText(QString::number(2.40, 'f', 2));
  }
  ListingTermsEditor& terms() { return *ticket.listingTerms(); }
};

BookSnapshotPtr bookWithAsks(const std::vector<std::pair<Hour, OfferTerms>>& asks) {
  auto s = std::make_shared<BookSnapshot>();
  s->clusters = {kCluster};
  s->firstHour = kT0;
  s->now = kT0;
  s->cells.resize(48);
  for (const auto& [h, terms] : asks) {
    BookLevel l;
    l.price = kCheap;
    l.gpus = 16;
    l.orders = 1;
    l.terms = terms;
    s->cells[static_cast<std::size_t>(h - kT0)].asks.push_back(l);
  }
  return s;
}

// What is wrong with an order, for a failure message ("" when it is an order).
QByteArray why(const std::variant<OrderRequest, QString>& o) {
  const QString* w = std::get_if<QString>(&o);
  return w ? w->toUtf8() : QByteArray();
}

}  // namespace

class TestListingTerms : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_listing_terms", false); }
  void init() { QSettings().clear(); }

  void termsSectionShowsForNewListingsOnly() {
    SellTicket t;
    t.ticket.show();
    QVERIFY(t.terms().isVisible());
    QVERIFY(!t.ticket.findChild<QLabel*>("ticketAskTerms")->isVisible());
    t.ticket.setKind(TicketKind::AllOrNoneBuy);
    QVERIFY(!t.terms().isVisible());
    QVERIFY(t.ticket.findChild<QLabel*>("ticketAskTerms")->isVisible());
  }

  void sellOrderCarriesTheChosenTerms() {
    SellTicket t;
    ListingTermsEditor& e = t.terms();
    e.locationBox()->setChecked(false);
    e.tflopsEdit()->setText("989");
    selectData(e.billingBox(), static_cast<int>(BillingBasis::CommittedBlock));
    e.uptimeBox()->setValue(99.5);
    selectData(e.remedyBox(), static_cast<int>(Remedy::Replacement));
    e.replaceWithinBox()->setValue(6);
    e.creditBox()->setValue(0.75);
    const auto o = t.ticket.order();
    QVERIFY2(std::holds_alternative<OrderRequest>(o), why(o).constData());
    const OrderRequest& r = std::get<OrderRequest>(o);
    QVERIFY(r.side == Side::Sell);
    QVERIFY(r.terms.guaranteesDeviceCount);
    QVERIFY(!r.terms.guaranteesLocation);
    QVERIFY(r.terms.guaranteesFabric);
    QCOMPARE(r.terms.estimatedTflopsPerGpu.value_or(0), 989);
    QVERIFY(r.terms.billing == BillingBasis::CommittedBlock);
    QCOMPARE(r.terms.uptimePromisePpm, 995'000);
    QVERIFY(r.terms.remedy == Remedy::Replacement);
    QCOMPARE(r.terms.replacementWithinHours, 6);
    QCOMPARE(r.terms.creditPerUndeliveredGpuHour, Price{750'000});

    QSignalSpy sent(&t.ticket, &OrderTicket::submitRequested);
    t.ticket.submit();
    QCOMPARE(sent.count(), 1);
    QVERIFY(sent.at(0).at(0).value<OrderRequest>().terms == r.terms);
  }

  void emptyThroughputMeansNotStated() {
    SellTicket t;
    t.terms().tflopsEdit()->setText("  ");
    const auto o = t.ticket.order();
    QVERIFY(std::holds_alternative<OrderRequest>(o));
    QVERIFY(!std::get<OrderRequest>(o).terms.estimatedTflopsPerGpu);
  }

  void invalidTermsAreRefusedWithAReason_data() {
    QTest::addColumn<QString>("tflops");
    QTest::addColumn<int>("remedy");
    QTest::addColumn<double>("credit");
    QTest::addColumn<int>("replaceWithin");
    QTest::addColumn<QString>("reason");
    const int credit = static_cast<int>(Remedy::Credit), repl = static_cast<int>(Remedy::Replacement);
    QTest::newRow("text throughput") << "fast" << credit << 0.5 << 4 << "whole number of TFLOPS";
    QTest::newRow("zero throughput") << "0" << credit << 0.5 << 4 << "whole number of TFLOPS";
    QTest::newRow("negative throughput") << "-3" << credit << 0.5 << 4 << "whole number of TFLOPS";
    QTest::newRow("credit of nothing") << "" << credit << 0.0 << 4 << "gives the buyer nothing";
    QTest::newRow("replacement after the end") << "" << repl << 0.5 << 24 << "cannot arrive before";
  }
  void invalidTermsAreRefusedWithAReason() {
    QFETCH(QString, tflops);
    QFETCH(int, remedy);
    QFETCH(double, credit);
    QFETCH(int, replaceWithin);
    QFETCH(QString, reason);
    SellTicket t;  // a 24 h listing
    t.terms().tflopsEdit()->setText(tflops);
    selectData(t.terms().remedyBox(), remedy);
    t.terms().creditBox()->setValue(credit);
    t.terms().replaceWithinBox()->setValue(replaceWithin);
    const auto o = t.ticket.order();
    QVERIFY(std::holds_alternative<QString>(o));
    QVERIFY2(std::get<QString>(o).contains(reason), why(o).constData());
    // The quote panel says why before the trader even presses Enter.
    QVERIFY(t.ticket.quoteText().contains(reason.toHtmlEscaped()));
  }

  void lastTermsSentAreRemembered() {
    {
      SellTicket t;
      t.terms().tflopsEdit()->setText("312");
      t.terms().fabricBox()->setChecked(false);
      selectData(t.terms().billingBox(), static_cast<int>(BillingBasis::SuccessfulWork));
      t.ticket.submit();
    }
    SellTicket next;
    const auto o = next.ticket.order();
    QVERIFY(std::holds_alternative<OrderRequest>(o));
    const OfferTerms& terms = std::get<OrderRequest>(o).terms;
    QCOMPARE(terms.estimatedTflopsPerGpu.value_or(0), 312);
    QVERIFY(!terms.guaranteesFabric);
    QVERIFY(terms.billing == BillingBasis::SuccessfulWork);
  }

  void unreadableSettingsFallBackToDefaults() {
    QSettings().setValue("ticket/terms/billing", "by the phase of the moon");
    QSettings().setValue("ticket/terms/remedy", "prayer");
    SellTicket t;
    const auto o = t.ticket.order();
    QVERIFY(std::holds_alternative<OrderRequest>(o));
    QVERIFY(std::get<OrderRequest>(o).terms.billing == ListingTermsEditor::defaults().billing);
    QVERIFY(std::get<OrderRequest>(o).terms.remedy == ListingTermsEditor::defaults().remedy);
  }

  void buyOrdersCarryNoTerms() {
    SellTicket t;
    t.terms().tflopsEdit()->setText("500");
    t.ticket.setKind(TicketKind::DivisibleBuy);
    const auto o = t.ticket.order();
    QVERIFY(std::holds_alternative<OrderRequest>(o));
    // The engine refuses terms on a buy order: the ticket never sends them.
    QVERIFY(std::get<OrderRequest>(o).terms == OfferTerms{});
  }

  void sellBackPassesOnTheContractsTerms() {
    OrderTicket ticket;
    ticket.setClusters({testCluster()});
    ticket.setNow(kT0);
    Contract c;
    c.id = 7;
    c.buyer = 42;
    c.seller = 9;
    c.cluster = kCluster;
    c.gpus = 4;
    c.start = kT0 + 3;
    c.end = kT0 + 9;
    c.price = kCheap;
    c.terms.remedy = Remedy::Replacement;
    c.terms.replacementWithinHours = 2;
    c.terms.estimatedTflopsPerGpu = 700;
    ticket.setContracts({c}, 42);
    ticket.setKind(TicketKind::SellBack);
    const auto o = ticket.order();
    QVERIFY2(std::holds_alternative<OrderRequest>(o), why(o).constData());
    QCOMPARE(std::get<OrderRequest>(o).sellBack, ContractId{7});
    QVERIFY(std::get<OrderRequest>(o).terms == c.terms);
  }

  void buyTicketShowsTheTermsOfTheAsksItWouldTake() {
    OrderTicket ticket;
    ticket.setClusters({testCluster()});
    ticket.setNow(kT0);
    ticket.setKind(TicketKind::AllOrNoneBuy);
    OfferTerms a;
    a.estimatedTflopsPerGpu = 989;
    a.creditPerUndeliveredGpuHour = 500'000;
    OfferTerms b;
    b.guaranteesFabric = false;
    b.remedy = Remedy::Replacement;
    b.replacementWithinHours = 4;
    ticket.setBook(bookWithAsks({{kT0 + 2, a}, {kT0 + 3, a}, {kT0 + 4, a}, {kT0 + 5, b}}));
    setWindow(ticket, kT0 + 2, kT0 + 6);
    const QString text = ticket.askTermsText();
    QVERIFY2(text.contains(describeTerms(a).toHtmlEscaped() + " <i>(3 of 4 h)</i>"), qPrintable(text));
    QVERIFY2(text.contains(describeTerms(b).toHtmlEscaped() + " <i>(1 of 4 h)</i>"), qPrintable(text));
    QCOMPARE(ticket.findChild<QLabel*>("ticketAskTerms")->text(), text);
    // Most hours first: the terms a buyer mostly gets lead.
    QVERIFY(text.indexOf("989") < text.indexOf("replacement"));

    setWindow(ticket, kT0 + 20, kT0 + 24);
    QVERIFY(ticket.askTermsText().contains("Nothing offered"));
    // A book of another cluster says nothing about this one's terms.
    auto other = std::make_shared<BookSnapshot>(*bookWithAsks({{kT0 + 2, a}}));
    other->clusters = {kCluster + 1};
    ticket.setBook(other);
    QVERIFY(ticket.askTermsText().contains("Show this cluster alone"));
  }
};

QTEST_MAIN(TestListingTerms)
#include "test_listing_terms.moc"
