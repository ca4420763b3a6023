#include "ui/shell/ScreenshotTour.h"

#include "ui/grid/OrderBookGridView.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QTimer>

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
    });
  });
}

}  // namespace tessera::ui
