#pragma once
// Writes what a table shows (header and display text, in view order) as RFC 4180 CSV.
#include <QString>

class QAbstractItemModel;
class QTextStream;

namespace tessera::ui {

void writeCsv(const QAbstractItemModel& model, QTextStream& out);
// Writes to `path`; returns an error for the user, or an empty string.
QString exportCsv(const QAbstractItemModel& model, const QString& path);

}  // namespace tessera::ui
