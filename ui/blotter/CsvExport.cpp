#include "ui/blotter/CsvExport.h"

#include <QAbstractItemModel>
#include <QSaveFile>
#include <QTextStream>

namespace tessera::ui {
namespace {

QString field(const QString& s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  QString q = s;
  q.replace('"', QStringLiteral("\"\""));
  return '"' + q + '"';
}

}  // namespace

void writeCsv(const QAbstractItemModel& model, QTextStream& out) {
  const int cols = model.columnCount();
  for (int c = 0; c < cols; ++c) {
    if (c) out << ',';
    out << field(model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
  }
  out << "\r\n";
  for (int r = 0; r < model.rowCount(); ++r) {
    for (int c = 0; c < cols; ++c) {
      if (c) out << ',';
      out << field(model.data(model.index(r, c), Qt::DisplayRole).toString());
    }
    out << "\r\n";
  }
}

QString exportCsv(const QAbstractItemModel& model, const QString& path) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return f.errorString();
  QTextStream out(&f);
  writeCsv(model, out);
  out.flush();
  if (!f.commit()) return f.errorString();
  return {};
}

}  // namespace tessera::ui
