#pragma once
// The forwards dock: trade cash-settled forwards on the next-day price index of one accelerator
// class for a future delivery week (docs/settlement.md). Pick class and week, see that book and
// the index, send a long or short order with its initial margin shown, and follow working orders
// and positions marked to the index. The panel only shows and asks; TradingSession does the rest.
#include "core/net/ForwardDesk.h"
#include "core/net/ForwardViews.h"

#include <QWidget>

#include <map>

class QComboBox;
class QDoubleSpinBox;
class QBoxLayout;
class QLabel;
class QTabWidget;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableView;

namespace tessera::ui {

class ForwardBookModel;
class ForwardOrdersModel;
class ForwardPositionsModel;

class ForwardsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ForwardsPanel(QWidget* parent = nullptr);

  void setAvailable(bool available, const QString& whyNot);
  void setNow(Hour now);
  void setBook(const net::ForwardBookView& book);
  void setWorkingOrders(std::vector<net::ForwardWorkingOrder> orders);
  void setPositions(std::vector<net::ForwardPositionView> positions);
  void setIndex(Accelerator a, Price nextDay, bool stale);
  void addNotice(const QString& text);

  Accelerator selectedAccelerator() const;
  Hour selectedWeek() const;
  // The order the ticket would send now for `side`; margin is the 15% initial margin.
  net::ForwardNewOrder orderFor(Side side) const;
  static Money initialMargin(std::int64_t gpuHours, Price price);

 signals:
  void submitRequested(tessera::net::ForwardNewOrder order);
  void cancelRequested(std::uint64_t orderId);
  void bookWanted(tessera::Accelerator accelerator, tessera::Hour weekStart);

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  void refillWeeks();
  void selectionChanged();
  void updateTicket();
  void send(Side side);

  QComboBox* accelerator_;
  QComboBox* week_;
  QLabel* indexLabel_;
  QLabel* status_;
  QTableView* bookView_;
  QSpinBox* gpuHours_;
  QDoubleSpinBox* price_;
  QLabel* margin_;
  QPushButton* buy_;
  QPushButton* sell_;
  QTableView* ordersView_;
  QPushButton* cancel_;
  QTableView* positionsView_;
  QLabel* pnl_;
  QListWidget* notices_;
  QTabWidget* tabs_;
  QBoxLayout* tradeLayout_;
  ForwardBookModel* book_;
  ForwardOrdersModel* orders_;
  ForwardPositionsModel* positions_;
  std::map<std::pair<Accelerator, Hour>, net::ForwardBookView> books_;
  std::map<Accelerator, std::pair<Price, bool>> index_;
  Hour now_ = 0;
  int clOrdSeq_ = 0;
};

}  // namespace tessera::ui

Q_DECLARE_METATYPE(tessera::net::ForwardNewOrder)
