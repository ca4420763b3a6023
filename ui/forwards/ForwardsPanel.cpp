#include "ui/forwards/ForwardsPanel.h"

#include "ui/forwards/ForwardBookModel.h"
#include "ui/forwards/ForwardOrdersModel.h"
#include "ui/forwards/ForwardPositionsModel.h"
#include "ui/shell/DisplayFormat.h"

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QGridLayout>
#include <QResizeEvent>
#include <QTabWidget>

namespace tessera::ui {
namespace {

constexpr int kWeeksShown = 8;

QTableView* table(QAbstractItemModel* model, QWidget* parent) {
  auto* v = new QTableView(parent);
  v->setModel(model);
  v->setSelectionBehavior(QAbstractItemView::SelectRows);
  v->setSelectionMode(QAbstractItemView::SingleSelection);
  v->verticalHeader()->hide();
  v->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  v->horizontalHeader()->setStretchLastSection(true);
  v->setAlternatingRowColors(true);
  return v;
}

}  // namespace

ForwardsPanel::ForwardsPanel(QWidget* parent) : QWidget(parent) {
  book_ = new ForwardBookModel(this);
  orders_ = new ForwardOrdersModel(this);
  positions_ = new ForwardPositionsModel(this);

  accelerator_ = new QComboBox(this);
  for (Accelerator a : {Accelerator::H100, Accelerator::H200, Accelerator::B200, Accelerator::GB200, Accelerator::A100,
                        Accelerator::MI300X, Accelerator::L40S, Accelerator::RTX4090})
    accelerator_->addItem(toQString(toString(a)), static_cast<int>(a));
  week_ = new QComboBox(this);
  indexLabel_ = new QLabel(this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);

  auto* pick = new QGridLayout;
  pick->addWidget(new QLabel(tr("Index class"), this), 0, 0);
  pick->addWidget(accelerator_, 0, 1);
  pick->addWidget(new QLabel(tr("Delivery week"), this), 0, 2);
  pick->addWidget(week_, 0, 3);
  pick->setColumnStretch(3, 1);
  pick->addWidget(indexLabel_, 1, 0, 1, 4);

  bookView_ = table(book_, this);
  bookView_->setSelectionMode(QAbstractItemView::NoSelection);

  gpuHours_ = new QSpinBox(this);
  gpuHours_->setRange(1, 1'000'000'000);
  gpuHours_->setSingleStep(1000);
  gpuHours_->setValue(10'000);
  gpuHours_->setSuffix(tr(" GPU-h"));
  price_ = new QDoubleSpinBox(this);
  price_->setRange(0.01, 100.0);
  price_->setDecimals(4);
  price_->setSingleStep(0.01);
  price_->setValue(2.0);
  price_->setPrefix("$");
  price_->setSuffix(tr(" /GPU-h"));
  margin_ = new QLabel(this);
  margin_->setWordWrap(true);
  buy_ = new QPushButton(tr("Buy (long)"), this);
  sell_ = new QPushButton(tr("Sell (short)"), this);
  buy_->setShortcut(QKeySequence(tr("Ctrl+Alt+B")));
  sell_->setShortcut(QKeySequence(tr("Ctrl+Alt+S")));
  buy_->setToolTip(tr("Buy the forward: gains when the week's mean next-day index ends above your price (Ctrl+Alt+B)"));
  sell_->setToolTip(
      tr("Sell the forward: gains when the week's mean next-day index ends below your price; "
         "a provider's hedge (Ctrl+Alt+S)"));

  auto* ticketBox = new QGroupBox(tr("Forward ticket"), this);
  auto* form = new QFormLayout(ticketBox);
  form->addRow(tr("Quantity"), gpuHours_);
  form->addRow(tr("Index price"), price_);
  form->addRow(tr("Initial margin"), margin_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(buy_);
  buttons->addWidget(sell_);
  form->addRow(buttons);

  auto* bookBox = new QGroupBox(tr("Book"), this);
  auto* bookLayout = new QVBoxLayout(bookBox);
  bookLayout->addWidget(bookView_);

  // Book beside the ticket when there is room, above it in a narrow dock (see resizeEvent).
  auto* trade = new QWidget(this);
  tradeLayout_ = new QBoxLayout(QBoxLayout::LeftToRight, trade);
  tradeLayout_->setContentsMargins(0, 0, 0, 0);
  tradeLayout_->addWidget(bookBox, 3);
  tradeLayout_->addWidget(ticketBox, 2);

  ordersView_ = table(orders_, this);
  cancel_ = new QPushButton(tr("Cancel selected"), this);
  auto* ordersTab = new QWidget(this);
  auto* ordersLayout = new QVBoxLayout(ordersTab);
  ordersLayout->addWidget(ordersView_);
  ordersLayout->addWidget(cancel_, 0, Qt::AlignRight);

  positionsView_ = table(positions_, this);
  pnl_ = new QLabel(this);
  auto* positionsTab = new QWidget(this);
  auto* positionsLayout = new QVBoxLayout(positionsTab);
  positionsLayout->addWidget(
      new QLabel(tr("Marked to the next-day index; settled at the mean index of the week."), this));
  positionsLayout->addWidget(positionsView_);
  positionsLayout->addWidget(pnl_);

  notices_ = new QListWidget(this);

  tabs_ = new QTabWidget(this);
  tabs_->addTab(trade, tr("Trade"));
  tabs_->addTab(positionsTab, tr("Positions"));
  tabs_->addTab(ordersTab, tr("Working orders"));
  tabs_->addTab(notices_, tr("Margin and settlement"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(pick);
  layout->addWidget(status_);
  layout->addWidget(tabs_, 1);

  connect(accelerator_, &QComboBox::currentIndexChanged, this, [this] { selectionChanged(); });
  connect(week_, &QComboBox::currentIndexChanged, this, [this] { selectionChanged(); });
  connect(gpuHours_, &QSpinBox::valueChanged, this, [this] { updateTicket(); });
  connect(price_, &QDoubleSpinBox::valueChanged, this, [this] { updateTicket(); });
  connect(buy_, &QPushButton::clicked, this, [this] { send(Side::Buy); });
  connect(sell_, &QPushButton::clicked, this, [this] { send(Side::Sell); });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    const auto rows = ordersView_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    if (const auto* o = orders_->orderAt(rows.first().row())) emit cancelRequested(o->orderId);
  });
  setAvailable(false, tr("Waiting for the exchange…"));
  updateTicket();
}

void ForwardsPanel::setAvailable(bool available, const QString& whyNot) {
  buy_->setEnabled(available);
  sell_->setEnabled(available);
  cancel_->setEnabled(available);
  status_->setText(available ? QString() : whyNot);
  status_->setVisible(!available);
}

void ForwardsPanel::setNow(Hour now) {
  if (now == now_) return;
  const Hour before = week_->count() ? selectedWeek() : 0;
  now_ = now;
  if (nextWeekStart(now) != (week_->count() ? week_->itemData(0).toLongLong() : 0)) refillWeeks();
  if (before && before > now) {
    const int i = week_->findData(QVariant::fromValue<qlonglong>(before));
    if (i >= 0) week_->setCurrentIndex(i);
  }
}

void ForwardsPanel::refillWeeks() {
  const QSignalBlocker block(week_);
  week_->clear();
  Hour w = nextWeekStart(now_);
  for (int i = 0; i < kWeeksShown; ++i, w += kHoursPerWeek)
    week_->addItem(tr("Week of %1").arg(formatDay(w)), QVariant::fromValue<qlonglong>(w));
  selectionChanged();
}

Accelerator ForwardsPanel::selectedAccelerator() const {
  return static_cast<Accelerator>(accelerator_->currentData().toInt());
}

Hour ForwardsPanel::selectedWeek() const { return week_->currentData().toLongLong(); }

void ForwardsPanel::selectionChanged() {
  const auto key = std::pair{selectedAccelerator(), selectedWeek()};
  auto it = books_.find(key);
  book_->setBook(it != books_.end() ? it->second : net::ForwardBookView{key.first, key.second, {}, {}});
  auto idx = index_.find(key.first);
  indexLabel_->setText(idx == index_.end()
                           ? tr("next-day index: no trades yet")
                           : tr("next-day index %1%2")
                                 .arg(formatPrice(idx->second.first), idx->second.second ? tr(" (stale)") : QString()));
  if (key.second > 0) emit bookWanted(key.first, key.second);
  updateTicket();
}

void ForwardsPanel::setBook(const net::ForwardBookView& book) {
  books_[{book.accelerator, book.weekStart}] = book;
  if (book.accelerator == selectedAccelerator() && book.weekStart == selectedWeek()) book_->setBook(book);
}

void ForwardsPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  tradeLayout_->setDirection(e->size().width() < 640 ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
}

void ForwardsPanel::setWorkingOrders(std::vector<net::ForwardWorkingOrder> orders) {
  tabs_->setTabText(2, orders.empty() ? tr("Working orders") : tr("Working orders (%1)").arg(orders.size()));
  orders_->setOrders(std::move(orders));
}

void ForwardsPanel::setPositions(std::vector<net::ForwardPositionView> positions) {
  tabs_->setTabText(1, positions.empty() ? tr("Positions") : tr("Positions (%1)").arg(positions.size()));
  positions_->setPositions(std::move(positions));
  pnl_->setText(tr("Open P&L at the index: %1").arg(formatMoney(positions_->totalOpenPnl())));
}

void ForwardsPanel::setIndex(Accelerator a, Price nextDay, bool stale) {
  index_[a] = {nextDay, stale};
  positions_->setIndex(a, nextDay);
  pnl_->setText(tr("Open P&L at the index: %1").arg(formatMoney(positions_->totalOpenPnl())));
  if (a == selectedAccelerator())
    indexLabel_->setText(tr("next-day index %1%2").arg(formatPrice(nextDay), stale ? tr(" (stale)") : QString()));
}

void ForwardsPanel::addNotice(const QString& text) {
  notices_->insertItem(0, text);
  while (notices_->count() > 200) delete notices_->takeItem(notices_->count() - 1);
}

Money ForwardsPanel::initialMargin(std::int64_t gpuHours, Price price) {
  return initialMarginFor(gpuHours, price);  // at the exchange's default share
}

net::ForwardNewOrder ForwardsPanel::orderFor(Side side) const {
  net::ForwardNewOrder o;
  o.side = side;
  o.accelerator = selectedAccelerator();
  o.weekStart = selectedWeek();
  o.gpuHours = gpuHours_->value();
  o.price = priceFromDollars(price_->value());
  return o;
}

void ForwardsPanel::updateTicket() {
  const auto o = orderFor(Side::Buy);
  margin_->setText(tr("%1 (15% of %2 notional)")
                       .arg(formatMoney(initialMargin(o.gpuHours, o.price)), formatMoney(o.price * o.gpuHours)));
}

void ForwardsPanel::send(Side side) {
  net::ForwardNewOrder o = orderFor(side);
  if (o.weekStart <= now_) return;
  o.clOrdId = "fwd-" + std::to_string(QDateTime::currentMSecsSinceEpoch()) + "-" + std::to_string(++clOrdSeq_);
  emit submitRequested(o);
}

}  // namespace tessera::ui
