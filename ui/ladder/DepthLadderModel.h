#pragma once
// The depth ladder (DOM) of one or more delivery hours of the watched cluster: one row per price,
// highest first, asks above bids, with the GPUs offered or bid at that price and the GPUs of the
// account's own working orders there. Over several hours a level shows the GPUs offered at that
// price in every one of them (the fewest), which is what a rectangle at that price could take.
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

namespace tessera::ui {

struct LadderRow {
  Price price = 0;
  Side side = Side::Sell;  // which side of the book the level is on
  GpuCount gpus = 0;       // in the book at this price (every hour of the range)
  GpuCount ownGpus = 0;    // the account's working orders at this price and side
  bool operator==(const LadderRow&) const = default;
};

class DepthLadderModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { MyBids, Bids, PriceColumn, Asks, MyAsks, ColumnCount };

  explicit DepthLadderModel(QObject* parent = nullptr);
  // Hours [first, end) of `book` (the watched cluster or group), and the account's orders.
  void setState(const BookSnapshotPtr& book, const std::vector<OrderView>& own, Hour first, Hour end);
  const std::vector<LadderRow>& rows() const { return rows_; }
  const LadderRow* rowAt(int row) const;
  Hour first() const { return first_; }
  Hour end() const { return end_; }
  // Whether the book covers the hours at all (false: not watched yet, or in the past).
  bool covered() const { return covered_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  // The rows for hours [first, end) of `book` (pure; what setState shows).
  [[nodiscard]] static std::vector<LadderRow> rowsOf(const BookSnapshot& book, const std::vector<OrderView>& own,
                                                     Hour first, Hour end);

 private:
  std::vector<LadderRow> rows_;
  Hour first_ = 0;
  Hour end_ = 0;
  bool covered_ = false;
};

}  // namespace tessera::ui
