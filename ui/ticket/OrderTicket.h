#pragma once
// The order ticket: every order type the engine trades, a live quote from the book that takes
// the order type and its limit into account, Enter to submit, Escape to cancel, and a
// confirmation above a configurable size. The ticket is the order: every field is read exactly
// as typed (no clamping, no dropped characters); a value that cannot be sent shows its reason
// under the field and disables Submit; a sent ticket is not sent again until it changes. The
// Option kind trades options on the price index (OptionTicketForm) through the same Enter,
// Escape, confirmation and send-once rules.
#include "core/net/OptionViews.h"
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/FillQuote.h"

#include <QWidget>

#include <functional>
#include <variant>

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTimer;
class QGroupBox;
class QFormLayout;

namespace tessera {
class Matcher;
}

namespace tessera::ui {

class ListingTermsEditor;
class OptionTicketForm;

enum class TicketKind { AllOrNoneBuy, DivisibleBuy, DivisibleSell, FlexibleBuy, ConstraintBuy, SellBack, Option };

class OrderTicket : public QWidget {
  Q_OBJECT
 public:
  explicit OrderTicket(QWidget* parent = nullptr);

  void setClusters(const std::vector<Cluster>& clusters);
  // `held`: what is left of each bought contract after its sales (a sell-back can sell at most
  // the GPUs held in every hour of its window).
  void setContracts(const std::vector<Contract>& contracts, AccountId me, const std::vector<ContractMark>& held = {});
  // A sell-back ticket for contract `id` (its remaining hours and the GPUs still held in all of them).
  void sellBack(ContractId id);
  void setBook(BookSnapshotPtr book);
  void setNow(Hour now);
  // The market's call mode: the ticket says whether the chosen cluster trades continuously or
  // waits for the next call (and when that is).
  void setCallAuction(const CallAuctionView& view);
  QString tradingModeText() const;
  // For "New buy/sell ticket": a window whose start the exchange clock has passed moves to start
  // at the next hour, keeping its length (the user asked for a new ticket; a window is never
  // moved while it is being worked on).
  void renewDeliveredWindow();
  // A new ticket (F2/F3): the limit is offered from the book once, unless the trader has typed
  // one for this ticket and not sent it yet.
  void offerLimitOnce();
  // Orders of more GPU-hours than this ask for confirmation first (0: always ask).
  void setConfirmAboveGpuHours(std::int64_t gpuHours) { confirmAbove_ = gpuHours; }
  std::int64_t confirmAboveGpuHours() const { return confirmAbove_; }

  // Where new client order ids come from (the session's); without one the ticket sends id 0.
  void setOrderIdSource(std::function<OrderId()> source) { newOrderId_ = std::move(source); }
  // Runs a job on the market's book off the GUI thread (TradingSession::runOnBook): quotes of
  // constraint orders and of clusters the grid does not show alone come from there.
  using BookReader = std::function<void(std::function<void(const Matcher&)>)>;
  void setBookReader(BookReader reader) { bookReader_ = std::move(reader); }
  // How the terminal names an order to the trader: the exchange's id once it is known.
  void noteAccepted(OrderId sentId, OrderId shownId);
  void noteRejected(OrderId sentId, const QString& why);

  // Fills the ticket from a rectangle dragged on the grid.
  void prefill(ClusterId cluster, const GridSelection& selection);
  // A divisible order of `side` at `price` for [start, end) (a level clicked on the depth ladder);
  // GPUs stay as typed if the field holds a valid number, else `gpus`.
  void prefillAtPrice(ClusterId cluster, Side side, Hour start, Hour end, GpuCount gpus, Price price);

  // "Buy this placement" from the planner: an all-or-none bid for the plan's rectangle at its
  // limit, carrying its effective-cost factors, with the plan's effective cost shown next to
  // the hourly price. The factors go with the order while the ticket stays an all-or-none buy
  // on that cluster; another prefill forgets the plan.
  struct PlanPrefill {
    ClusterId cluster = 0;
    GridSelection window;
    Price limit = 0;
    std::vector<ClusterCostFactor> costFactors;
    QString effectiveCostNote;  // e.g. "Plan for llm-70b: effective cost $4.1M ..."
  };
  void prefillPlan(const PlanPrefill& plan);
  bool planApplies() const;
  void setKind(TicketKind kind);
  TicketKind kind() const;

  // Options on the price index: the exchange's chain of a class (its reference values, delta and
  // book show beside the order), and a series picked on the option chain dock.
  void setOptionChain(const net::OptionChainView& chain);
  void prefillOption(const indexoptions::OptionSeries& series, Side side, std::optional<Price> premium);
  OptionTicketForm* optionForm() const { return options_; }

  // The order the form describes, or what is wrong with it.
  std::variant<OrderRequest, QString> order() const;
  // The quote for the current form, if the book shows its cluster.
  std::optional<FillQuote> quote() const;
  QString quoteText() const;
  // Why the form cannot be sent (empty if it can), field by field as shown under the fields.
  QString problem() const;
  bool canSubmit() const;
  // The id the last submit sent, while the form still describes that order.
  std::optional<OrderId> sentOrderId() const;
  // Buy orders: the terms of the best asks in the window the order would trade against.
  QString askTermsText() const;
  ListingTermsEditor* listingTerms() const { return terms_; }
  // "On fill run": a command for each contract a buy fills (ui/session OnFillWatcher). The
  // field shows on buy tickets once the terminal can run such commands.
  void setOnFillAvailable(bool available);
  // The command typed for this buy, trimmed; empty for sells or when not available.
  QString onFillCommand() const;

  ClusterId clusterId() const;
  GpuCount gpus() const;
  Hour start() const;
  Hour end() const;
  Price limit() const;

 public slots:
  // Validates, asks for confirmation if large, then emits submitRequested.
  void submit();
  void cancel();

 signals:
  void submitRequested(const tessera::OrderRequest& order);
  void optionSubmitRequested(const tessera::net::OptionNewOrder& order);
  // The option form's class: its chain is wanted (the option chain dock follows it).
  void optionChainWanted(tessera::Accelerator accelerator);
  void cancelled();
  void invalidOrder(const QString& why);
  void quoteChanged();
  // The ticket's cluster (0: any that fits) or window was set by the trader or by opening a
  // ticket (drag, ladder, sell-back): the depth ladder follows it.
  void windowChanged(tessera::ClusterId cluster, tessera::Hour start, tessera::Hour end);

 private:
  void updateVisibility();
  void refreshQuote();
  void fillFromContract();
  void noteWindow();
  std::tuple<ClusterId, Hour, Hour> notedWindow_{0, 0, 0};
  void validate();
  void requestBookQuote();
  QString describeQuote(const OrderRequest& r, const FillQuote& q, const QString& where) const;
  GpuCount maxGpus() const;
  std::optional<std::int64_t> parsedGpus() const;
  std::optional<Price> parsedLimit() const;
  std::optional<Hour> parsedDuration() const;
  void setLimitText(Price p);

  QComboBox* kind_;
  QComboBox* cluster_;
  QComboBox* contract_;
  QLineEdit* gpus_;
  QDateTimeEdit* start_;
  QDateTimeEdit* end_;
  QLineEdit* duration_;
  QLineEdit* limit_;
  QWidget* gpusRow_;
  QWidget* durationRow_;
  QWidget* limitRow_;
  QWidget* startRow_;
  QWidget* endRow_;
  QLabel* gpusError_;
  QLabel* startError_;
  QLabel* endError_;
  QLabel* durationError_;
  QLabel* limitError_;
  QLabel* status_;
  QLabel* tradingMode_;
  CallAuctionView calls_;
  void showTradingMode();
  QComboBox* tif_;
  QDateTimeEdit* expire_;
  QCheckBox* postOnly_;
  // Firm or interruptible capacity (docs/protocol.md, "Interruptible capacity"): follows the
  // chosen cluster's kind, and chooses it for constraint buys; an interruptible all-or-none buy
  // says how often its job checkpoints.
  QComboBox* capacity_;
  QLineEdit* checkpoint_;
  QWidget* checkpointRow_;
  QLabel* checkpointError_;
  bool interruptibleChosen() const;
  const Cluster* chosenCluster() const;
  QLineEdit* onFill_;
  bool onFillAvailable_ = false;
  QGroupBox* constraints_;
  QListWidget* accelerators_;
  QSpinBox* minMemory_;
  QLineEdit* regions_;
  QComboBox* minFabric_;
  QSpinBox* maxCarbon_;
  ListingTermsEditor* terms_;
  QLabel* askTerms_;
  QLabel* quote_;
  QLabel* planNote_ = nullptr;
  std::optional<PlanPrefill> plan_;
  QPushButton* submit_;
  QPushButton* cancel_;
  QFormLayout* form_;
  OptionTicketForm* options_;
  // The option order last sent: the same content is not sent again.
  std::optional<net::OptionNewOrder> sentOption_;
  void submitOption();
  void validateOption();
  // Says why the form was not sent (status line, invalidOrder); forgetNotSent hides that line
  // once the form's problem (`why`, none when it can be sent) is another.
  void refuse(const QString& why);
  void forgetNotSent(const QString* why);

  std::vector<Cluster> clusters_;
  std::vector<Contract> contracts_;
  std::vector<ContractMark> held_;
  // The GPUs of the selected sell-back contract held in every hour of [start, end).
  GpuCount heldThroughout(Hour start, Hour end) const;
  BookSnapshotPtr book_;
  Hour now_ = 0;
  QString notSentWhy_;  // the reason the status line gives for a refused submit, while shown
  // Start at the hour after `now`, for `hours`; the expiry a day after `now`. The window is then
  // the ticket's own offer, which follows the exchange clock until somebody sets one.
  void showWindowFrom(Hour now, Hour hours = 24);
  // The window was set by the trader, or for them (a grid drag, a plan, a contract): it never
  // moves by itself, and a start the clock has passed is shown as a reason.
  bool windowChosen_ = false;
  std::int64_t confirmAbove_ = 100'000;
  bool limitTouched_ = false;
  // A limit may be offered from the book once, when a ticket is opened (a grid drag, F2/F3):
  // never after a field has been edited, so the limit changes only when the trader types it.
  bool proposeLimit_ = true;
  QLabel* limitSource_ = nullptr;  // where an offered limit came from (sell-back: book or mark)
  void offerSellBackLimit(const Contract& c);
  bool settingLimit_ = false;
  std::function<OrderId()> newOrderId_;
  BookReader bookReader_;
  // The order last sent and its id: the same content is not sent again.
  std::optional<OrderRequest> sentContent_;
  OrderId sentId_ = 0;
  OrderId shownId_ = 0;
  // The quote from the market's book for orders the grid's snapshot cannot quote.
  struct BookQuote {
    OrderRequest order;
    std::optional<FillQuote> quote;
    ClusterId cluster = 0;
    int candidates = 0;
  };
  std::optional<BookQuote> bookQuote_;
  std::optional<OrderRequest> bookQuoteAsked_;
  QTimer* bookQuoteTimer_ = nullptr;
};

}  // namespace tessera::ui
