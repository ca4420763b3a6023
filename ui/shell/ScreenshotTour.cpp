#include "ui/shell/ScreenshotTour.h"

#include "ui/blotter/BlotterWidget.h"
#include "ui/blotter/ContractDetailDialog.h"
#include "ui/ladder/DepthLadder.h"
#include "ui/grid/OrderBookGridView.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/ListingTermsEditor.h"
#include "ui/ticket/OrderTicket.h"

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QLineEdit>
#include <QPainter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolTip>

namespace tessera::ui {
namespace {

// The first window of `hours` from `from` on that offers `gpus` GPUs in every hour.
std::optional<Hour> firstFullWindow(const OrderBookGridModel& m, Hour from, Hour hours, GpuCount gpus) {
  for (Hour s = from; s + hours <= m.firstHour() + m.hours(); ++s) {
    bool ok = true;
    for (Hour h = s; h < s + hours && ok; ++h) ok = m.column(h) && m.column(h)->askDepth() >= gpus;
    if (ok) return s;
  }
  return std::nullopt;
}

// Sells back half the GPUs of a bought contract for up to four of its hours (never all) at the
// best bid of the first of them, so the contract is then held as a step shape; retries while no
// bought contract has an hour with a bid.
void sellBackPart(MainWindow& w, TradingSession& session, int attempts) {
  QTimer::singleShot(500, &w, [&w, &session, attempts] {
    // Bought contracts of two hours or more, longest first (the window may have filled in pieces).
    std::vector<const Contract*> bought;
    for (const Contract& c : session.contracts())
      if (c.buyer == session.account().id && c.end - c.start >= 2) bought.push_back(&c);
    std::stable_sort(bought.begin(), bought.end(),
                     [](const Contract* a, const Contract* b) { return a->end - a->start > b->end - b->start; });
    const BookSnapshotPtr book = session.book();
    for (const Contract* c : bought) {
      // From the contract's first hour with a bid, up to four hours, never the whole window.
      for (Hour h = std::max(c->start, session.now() + 1); book && h < c->end; ++h) {
        const BookCell* cell = book->cell(h);
        if (!cell || cell->bids.empty()) continue;
        w.ticket()->sellBack(c->id);
        auto r = w.ticket()->order();
        if (!std::holds_alternative<OrderRequest>(r)) break;
        OrderRequest o = std::get<OrderRequest>(r);
        o.id = 0;
        o.gpus = std::max<GpuCount>(1, c->gpus / 2);
        o.start = h;
        o.end = std::min(c->end, h + 4);
        if (o.start == c->start && o.end == c->end) o.end -= 1;
        o.limit = cell->bids.front().price;
        session.submit(o);
        // The ticket shown again as the trader left it: a fresh drag.
        w.openTicketFromGrid(GridSelection{session.now() + 72, session.now() + 96, 24, Side::Buy});
        return;
      }
    }
    if (attempts > 1) sellBackPart(w, session, attempts - 1);
  });
}

}  // namespace

void startScreenshotTour(MainWindow& w, TradingSession& session) {
  QTimer::singleShot(1500, &w, [&w, &session] {
    const OrderBookGridModel& m = w.grid()->model();
    // Buy 48 GPUs for 12 hours where the book has them: the ticket's limit is the fill-now price.
    if (auto s = firstFullWindow(m, session.now() + 2, 12, 48)) {
      w.openTicketFromGrid(GridSelection{*s, *s + 12, 48, Side::Buy});
      w.ticket()->submit();
    }
    // A resting divisible bid under the market, two days out.
    QTimer::singleShot(400, &w, [&w, &session] {
      const Hour s = session.now() + 48;
      w.openTicketFromGrid(GridSelection{s, s + 18, 32, Side::Buy});
      w.ticket()->setKind(TicketKind::DivisibleBuy);
      OrderRequest o;
      if (auto r = w.ticket()->order(); std::holds_alternative<OrderRequest>(r)) {
        o = std::get<OrderRequest>(r);
        o.limit = o.limit * 85 / 100;
        session.submit(o);
      }
      // Leave a ticket open from a fresh drag, as a trader would see it.
      w.openTicketFromGrid(GridSelection{session.now() + 72, session.now() + 96, 24, Side::Buy});
      // Once the bought window is in the account: tried every half second, ten times at most.
      sellBackPart(w, session, 10);
    });
  });
}

QStringList saveTourShots(MainWindow& w, const QString& folder) {
  QStringList out;
  QDir().mkpath(folder);
  auto settle = [] {
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
  };
  auto save = [&](const QPixmap& p, const QString& name) {
    const QString file = QDir(folder).filePath(name);
    if (p.save(file))
      out << file;
    else
      out << QStringLiteral("error: could not write %1").arg(file);
  };
  auto raise = [&](const char* dock) {
    if (auto* d = w.findChild<QDockWidget*>(dock)) {
      d->show();
      d->raise();
    }
    settle();
  };

  // The blotter's fills (with who took liquidity), settlement views and order history.
  raise("blotterDock");
  QTabWidget* tabs = w.blotter()->tabs();
  const int shownTab = tabs->currentIndex();
  for (auto [tab, name] : {std::pair{1, "blotter-fills.png"},
                           {2, "blotter-contracts.png"},
                           {3, "blotter-settlement.png"},
                           {4, "blotter-history.png"}}) {
    tabs->setCurrentIndex(tab);
    settle();
    save(w.blotter()->grab(), name);
  }
  tabs->setCurrentIndex(shownTab);

  // A sell ticket with its listing terms, then the buy ticket with the terms of the asks.
  raise("ticketDock");
  OrderTicket* t = w.ticket();
  const TicketKind shownKind = t->kind();
  t->setKind(TicketKind::DivisibleSell);
  if (t->listingTerms()->tflopsEdit()->text().isEmpty())
    t->listingTerms()->tflopsEdit()->setText(QStringLiteral("989"));
  settle();
  if (auto* d = w.findChild<QDockWidget*>("ticketDock")) save(d->grab(), "ticket-sell.png");
  t->setKind(shownKind == TicketKind::DivisibleSell ? TicketKind::AllOrNoneBuy : shownKind);
  settle();
  if (auto* d = w.findChild<QDockWidget*>("ticketDock")) save(d->grab(), "ticket-buy.png");
  // The same ticket with values that cannot be sent: the reasons by the fields, Submit off.
  {
    auto* gpus = t->findChild<QLineEdit*>("ticketGpus");
    auto* limit = t->findChild<QLineEdit*>("ticketLimit");
    const QString keepGpus = gpus->text(), keepLimit = limit->text();
    gpus->setText(QStringLiteral("0"));
    limit->setText(QStringLiteral("-5"));
    settle();
    if (auto* d = w.findChild<QDockWidget*>("ticketDock")) save(d->grab(), "ticket-validation.png");
    save(w.grab(), "window-ticket-validation.png");
    gpus->setText(keepGpus);
    limit->setText(keepLimit);
  }
  // The ticket's option mode on the nearest strike of the first listed month, with what the
  // exchange's chain says of it.
  {
    const TicketKind keepKind = t->kind();
    t->setKind(TicketKind::Option);
    settle();
    if (auto* d = w.findChild<QDockWidget*>("ticketDock")) save(d->grab(), "ticket-option.png");
    save(w.grab(), "window-ticket-option.png");
    t->setKind(keepKind);
    settle();
  }

  // The depth ladder of the hour with the most price levels, bids and asks both, in the next two days.
  raise("ladderDock");
  {
    const OrderBookGridModel& m = w.grid()->model();
    std::size_t most = 0;
    Hour best = m.firstHour() + 1;
    for (Hour h = m.firstHour() + 1; h < std::min(m.firstHour() + m.hours(), m.firstHour() + 48); ++h) {
      const GridColumn* c = m.column(h);
      if (!c || c->asks.empty() || c->bids.empty() || c->asks.size() + c->bids.size() <= most) continue;
      most = c->asks.size() + c->bids.size();
      best = h;
    }
    w.depthLadder()->setHours(best, best + 1);
    settle();
    if (auto* d = w.findChild<QDockWidget*>("ladderDock")) save(d->grab(), "ladder.png");
  }
  // A contract after a sell-back: the blotter's contracts and the detail view of the first
  // bought contract that was partly sold.
  raise("blotterDock");
  tabs->setCurrentIndex(2);
  settle();
  {
    QTableView* v = w.blotter()->contractsView();
    const ContractsModel& cm = w.blotter()->contracts();
    for (int r = 0; r < v->model()->rowCount(); ++r) {
      const ContractId id = v->model()->index(r, ContractsModel::Id).data().toULongLong();
      const ContractMark* held = cm.heldOf(id);
      if (!held || held->soldGpuHours == 0) continue;
      v->setCurrentIndex(v->model()->index(r, 0));
      save(w.blotter()->grab(), "blotter-after-sellback.png");
      w.blotter()->showContractDetail();
      settle();
      if (auto* d = w.blotter()->findChild<ContractDetailDialog*>()) {
        settle();
        save(d->grab(), "contract-after-sellback.png");
        d->close();
      }
      break;
    }
  }
  tabs->setCurrentIndex(shownTab);

  // The F1 list of shortcuts: a modal dialog, shot and closed from the event loop it runs.
  QTimer::singleShot(300, &w, [&] {
    if (auto* d = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
      save(d->grab(), "shortcuts.png");
      d->reject();
    }
  });
  w.showShortcuts();

  // The grid with the tooltip over the first hour that offers GPUs, drawn where it would pop up.
  OrderBookGridView* g = w.grid();
  const OrderBookGridModel& m = g->model();
  for (Hour h = static_cast<Hour>(g->visibleFirstHour()); h < m.firstHour() + m.hours(); ++h) {
    const GridColumn* c = m.column(h);
    if (!c || c->askDepth() == 0) continue;
    const QPoint at = g->pointOf(static_cast<double>(h) + 0.5, std::max(1.0, c->askDepth() / 3.0)).toPoint();
    QToolTip::showText(g->mapToGlobal(at), g->describeAt(at), g);
    settle();
    QPixmap shot = g->grab();
    for (QWidget* top : QApplication::topLevelWidgets()) {
      if (!top->isVisible() || !top->inherits("QTipLabel")) continue;
      QPainter p(&shot);
      const QPoint pos = at + QPoint(12, 16);
      const QPixmap tip = top->grab();
      // Kept inside the picture, as the real tooltip stays on screen.
      p.drawPixmap(std::min(pos.x(), shot.width() - tip.width()), std::min(pos.y(), shot.height() - tip.height()), tip);
    }
    QToolTip::hideText();
    save(shot, "grid-tooltip.png");
    break;
  }
  return out;
}

}  // namespace tessera::ui
