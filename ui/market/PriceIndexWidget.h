#pragma once
// The "Price index" dock: the published compute price index per accelerator class (one line
// each, stale values drawn dashed with hollow markers) for a chosen tenor over exchange time,
// and the current values in a table beside the chart.
#include "ui/market/PriceIndexSeries.h"

#include <QWidget>

class QComboBox;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QSplitter;
class QTableWidget;

namespace tessera::ui {

class PriceIndexWidget : public QWidget {
  Q_OBJECT
 public:
  explicit PriceIndexWidget(QWidget* parent = nullptr);
  void setSource(IndexSource source);
  void setHistory(const IndexHistory& history);
  void setTenor(Tenor t);
  Tenor tenor() const;
  void setDark(bool dark);
  // The exchange clock: where an empty chart's time axis sits.
  void setNow(Hour now);

  QCustomPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }
  QLabel* note() const { return note_; }
  QLabel* sourceLabel() const { return source_label_; }
  // The lines now drawn (one per accelerator class with a value in the tenor).
  const std::vector<IndexLine>& lines() const { return lines_; }

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  void rebuild();
  void updateNote();

  QComboBox* tenor_;
  QLabel* source_label_;
  QLabel* note_;
  QCustomPlot* plot_;
  QCPItemText* empty_;
  QTableWidget* table_;
  QSplitter* split_;
  bool splitMoved_ = false;  // the trader dragged the splitter: keep their sizes
  IndexSource source_ = IndexSource::None;
  IndexHistory history_;
  std::vector<IndexLine> lines_;
  bool dark_ = true;
  Hour now_ = 0;
};

}  // namespace tessera::ui
