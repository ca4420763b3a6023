// How a listing's terms read: the compact line of the grid tooltip and the ticket, and the
// grid's hover text over an ask level (that level's terms) and elsewhere in the hour (the best
// ask's terms).
#include "ScriptedMarket.h"

#include "ui/grid/OrderBookGridView.h"
#include "ui/shell/TermsFormat.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

OfferTerms creditTerms() {
  OfferTerms t;
  t.estimatedTflopsPerGpu = 989;
  t.billing = BillingBasis::WallClockDelivered;
  t.uptimePromisePpm = 990'000;
  t.remedy = Remedy::Credit;
  t.creditPerUndeliveredGpuHour = 500'000;
  return t;
}

OfferTerms replacementTerms() {
  OfferTerms t;
  t.guaranteesLocation = false;
  t.guaranteesFabric = false;
  t.billing = BillingBasis::CommittedBlock;
  t.uptimePromisePpm = 999'500;
  t.remedy = Remedy::Replacement;
  t.replacementWithinHours = 4;
  t.creditPerUndeliveredGpuHour = 250'000;
  return t;
}

}  // namespace

class TestTermsTooltip : public QObject {
  Q_OBJECT
 private slots:
  void compactLineOfACreditListing() {
    QCOMPARE(describeTerms(creditTerms()),
             QString::fromUtf8("guaranteed: devices, location, fabric \u00b7 est. 989 TFLOPS/GPU \u00b7 billed: "
                               "wall-clock delivered \u00b7 uptime 99.0% \u00b7 remedy: credit $0.50/GPU-h"));
  }

  void compactLineOfAReplacementListing() {
    QCOMPARE(describeTerms(replacementTerms()),
             QString::fromUtf8("guaranteed: devices \u00b7 billed: committed block \u00b7 uptime 99.95% \u00b7 "
                               "remedy: replacement within 4 h, else credit $0.25/GPU-h"));
  }

  void partsOfTheLine() {
    OfferTerms none;
    none.guaranteesDeviceCount = none.guaranteesLocation = none.guaranteesFabric = false;
    QCOMPARE(guaranteesText(none), QString("guaranteed: nothing"));
    QCOMPARE(remedyText(OfferTerms{}), QString("remedy: no credit"));
    QCOMPARE(billingLabel(BillingBasis::SuccessfulWork), QString("successful work"));
    QCOMPARE(uptimePercentText(1'000'000), QString("100.0%"));
    QCOMPARE(uptimePercentText(999'950), QString("99.9950%"));
    QCOMPARE(uptimePercentText(0), QString("0.0%"));
  }

  void gridTooltipShowsTheTermsOfTheLevelOrTheBestAsk() {
    auto s = std::make_shared<BookSnapshot>();
    s->clusters = {kCluster};
    s->firstHour = kT0;
    s->now = kT0;
    s->cells.resize(24);
    auto& cell = s->cells[2];
    cell.asks = {BookLevel{kCheap, 16, 1, creditTerms()}, BookLevel{kDear, 8, 1, replacementTerms()}};
    cell.bids = {BookLevel{1'500'000, 6, 2, {}}};
    OrderBookGridView view;
    view.resize(900, 500);
    view.setSnapshot(s);
    view.setVisibleHours(kT0, 24);
    const Hour h = kT0 + 2;

    // Over the cheap level (GPUs 1-16) and over the dear one (17-24).
    const QString cheap = view.describeAt(view.pointOf(h + 0.5, 8).toPoint());
    QVERIFY2(cheap.contains("Terms of this level:\n" + describeTerms(creditTerms())), qPrintable(cheap));
    const QString dear = view.describeAt(view.pointOf(h + 0.5, 20).toPoint());
    QVERIFY2(dear.contains("Terms of this level:\n" + describeTerms(replacementTerms())), qPrintable(dear));
    // Over the bids a seller would hit: the hour's best ask's terms, named as such.
    const QString bid = view.describeAt(view.pointOf(h + 0.5, -3).toPoint());
    QVERIFY2(bid.contains("Best ask terms:\n" + describeTerms(creditTerms())), qPrintable(bid));
    // An hour with no asks has no terms to show.
    const QString empty = view.describeAt(view.pointOf(kT0 + 10.5, 5).toPoint());
    QVERIFY2(!empty.contains("terms"), qPrintable(empty));
  }
};

QTEST_MAIN(TestTermsTooltip)
#include "test_terms_tooltip.moc"
