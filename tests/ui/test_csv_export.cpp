// CSV export of blotter tables: header, rows in view order, RFC 4180 quoting.
#include "ui/blotter/CsvExport.h"
#include "ui/blotter/FillsModel.h"

#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

class TestCsvExport : public QObject {
  Q_OBJECT
 private slots:
  void quotesFieldsThatNeedIt() {
    QStandardItemModel m(2, 2);
    m.setHorizontalHeaderLabels({"name", "note"});
    m.setItem(0, 0, new QStandardItem("a,b"));
    m.setItem(0, 1, new QStandardItem("say \"hi\""));
    m.setItem(1, 0, new QStandardItem("plain"));
    m.setItem(1, 1, new QStandardItem(""));
    QString s;
    QTextStream out(&s);
    writeCsv(m, out);
    out.flush();
    QCOMPARE(s, QString("name,note\r\n\"a,b\",\"say \"\"hi\"\"\"\r\nplain,\r\n"));
  }
  void exportsFillsToAFile() {
    FillsModel m([](ClusterId id) { return QString("c%1").arg(id); });
    Fill f;
    f.trade = 9;
    f.order = 4;
    f.cluster = 3;
    f.gpus = 8;
    f.start = 10;
    f.end = 12;
    f.price = 2'000'000;
    m.addFills({f});
    QTemporaryDir dir;
    const QString path = dir.filePath("fills.csv");
    QCOMPARE(exportCsv(m, path), QString());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY2(text.startsWith("Trade,Order,Side,Cluster,GPUs"), qPrintable(text));
    QVERIFY2(text.contains("9,4,Bought,c3,8,"), qPrintable(text));
    QVERIFY2(text.contains(",$2.00,$32.00,"), qPrintable(text));  // notional: 8 GPUs x 2 h x $2.00
  }
  void reportsAnUnwritablePath() {
    QStandardItemModel m(0, 1);
    QVERIFY(!exportCsv(m, "/nonexistent-dir/x.csv").isEmpty());
  }
};

QTEST_MAIN(TestCsvExport)
#include "test_csv_export.moc"
