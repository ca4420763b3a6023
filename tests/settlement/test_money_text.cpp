// The one money formatter (toDollars, core/settlement/ContractSettlement.h; the terminal's
// formatMoney is it too) against amounts written out by hand: cents rounded half away from zero
// from integer micro-dollars, thousands separators, the sign only on an amount that shows
// cents, the extremes of Money.
// Mutations seen failing: rounding half toward zero (">= 5'000" made "> 5'000"); the sign kept on
// an amount that rounds to $0.00; the separator every fourth digit.
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <QtTest>

#include <limits>

using namespace tessera;

class TestMoneyText : public QObject {
  Q_OBJECT
 private slots:
  void dollarsAsPeopleWriteThem_data() {
    QTest::addColumn<qint64>("micros");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64{0} << "$0.00";
    QTest::newRow("a cent") << qint64{10'000} << "$0.01";
    QTest::newRow("half a cent up") << qint64{5'000} << "$0.01";
    QTest::newRow("just under half a cent") << qint64{4'999} << "$0.00";
    QTest::newRow("1.005 up") << qint64{1'005'000} << "$1.01";
    QTest::newRow("-1.225 away from zero") << qint64{-1'225'000} << "-$1.23";
    QTest::newRow("-1.22") << qint64{-1'220'000} << "-$1.22";
    QTest::newRow("no sign on zero cents") << qint64{-4'999} << "$0.00";
    QTest::newRow("thousands") << qint64{1'234'567'890'000} << "$1,234,567.89";
    QTest::newRow("negative thousands") << qint64{-1'224'500'000} << "-$1,224.50";
    QTest::newRow("999.995 carries") << qint64{999'995'000} << "$1,000.00";
    QTest::newRow("most") << std::numeric_limits<qint64>::max() << "$9,223,372,036,854.78";
    QTest::newRow("least") << std::numeric_limits<qint64>::min() << "-$9,223,372,036,854.78";
  }
  void dollarsAsPeopleWriteThem() {
    QFETCH(qint64, micros);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(toDollars(micros)), text);
  }

  void countsWithSeparators() {
    QCOMPARE(withThousands(0), std::string("0"));
    QCOMPARE(withThousands(999), std::string("999"));
    QCOMPARE(withThousands(1000), std::string("1,000"));
    QCOMPARE(withThousands(-1234567), std::string("-1,234,567"));
    QCOMPARE(withThousands(std::numeric_limits<std::int64_t>::min()), std::string("-9,223,372,036,854,775,808"));
  }
};

QTEST_GUILESS_MAIN(TestMoneyText)
#include "test_money_text.moc"
