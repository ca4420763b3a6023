#include "ui/ticket/OrderMessages.h"

#include "ui/shell/DisplayFormat.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>

#include <map>

namespace tessera::ui {
namespace {

// The texts' translation context (lupdate reads Q_DECLARE_TR_FUNCTIONS).
struct OrderMessagesText {
  Q_DECLARE_TR_FUNCTIONS(OrderMessages)
};

QString tifText(const OrderRequest& o) {
  switch (o.tif) {
    case TimeInForce::GTC: return OrderMessagesText::tr("good till cancelled");
    case TimeInForce::GTD:
      return OrderMessagesText::tr("good till %1 UTC")
          .arg(o.expireAt ? formatHour(*o.expireAt) : OrderMessagesText::tr("(no date)"));
    case TimeInForce::IOC: return OrderMessagesText::tr("immediate or cancel");
    case TimeInForce::FOK: return OrderMessagesText::tr("fill or kill");
  }
  return {};
}

}  // namespace

Money orderNotional(const OrderRequest& o) { return o.limit * static_cast<Money>(o.gpus) * o.hours(); }

QString describeOrder(const OrderRequest& o, const ClusterNameOf& clusterName) {
  QString what;
  if (o.side == Side::Buy)
    what = o.fill == FillStyle::AllOrNone ? OrderMessagesText::tr("Buy all-or-none")
                                          : OrderMessagesText::tr("Buy divisible");
  else
    what =
        o.sellBack ? OrderMessagesText::tr("Sell back (contract #%1)").arg(*o.sellBack) : OrderMessagesText::tr("Sell");
  QString where = o.cluster ? clusterName(*o.cluster) : OrderMessagesText::tr("any cluster matching the constraints");
  // Firm is the default and goes unsaid; interruptible capacity is always named.
  if (o.interruptible)
    where += o.cluster ? OrderMessagesText::tr(" (interruptible capacity)")
                       : OrderMessagesText::tr(", firm or interruptible");
  if (o.checkpointHours)
    where += OrderMessagesText::tr(", checkpointing every %1 h").arg(formatCount(*o.checkpointHours));
  const std::int64_t gpuHours = static_cast<std::int64_t>(o.gpus) * o.hours();
  QString window = OrderMessagesText::tr("%1 to %2 UTC").arg(formatHour(o.start), formatHour(o.end));
  if (o.duration)
    window = OrderMessagesText::tr("%1 consecutive hours between %2 and %3 UTC")
                 .arg(formatCount(*o.duration), formatHour(o.start), formatHour(o.end));
  const QString price = o.side == Side::Buy ? OrderMessagesText::tr("at up to %1/GPU-h: at most %2")
                                            : OrderMessagesText::tr("at no less than %1/GPU-h: at least %2");
  return OrderMessagesText::tr("%1 %2 GPUs on %3, %4 (%5 h, %6 GPU-hours) %7, %8%9")
      .arg(what, formatCount(o.gpus), where, window, formatCount(o.hours()), formatCount(gpuHours),
           price.arg(formatPrice(o.limit), formatMoney(orderNotional(o))), tifText(o),
           o.postOnly ? OrderMessagesText::tr(", post only") : QString());
}

QString describeReject(const QString& codeAndDetail) {
  const qsizetype colon = codeAndDetail.indexOf(':');
  const QString code = (colon < 0 ? codeAndDetail : codeAndDetail.left(colon)).trimmed();
  const QString detail = colon < 0 ? QString() : codeAndDetail.mid(colon + 1).trimmed();
  static const std::map<QString, const char*> plain = {
      {"insufficient_cash", "Not enough cash available for this order at its limit."},
      {"capacity_mismatch", "The cluster is the other kind of capacity (firm or interruptible) than the order says."},
      {"insufficient_holdings", "You do not own or hold these GPU-hours, so you cannot sell them."},
      {"too_many_open_orders", "You have too many working orders: cancel some first."},
      {"duplicate_cl_ord_id", "This order was already sent: nothing new was sent."},
      {"duplicate_order_id", "This order was already sent: nothing new was sent."},
      {"unknown_cluster", "The exchange does not list this cluster."},
      {"invalid_gpu_count", "The number of GPUs is not allowed."},
      {"invalid_window", "The delivery window is not valid."},
      {"window_in_past", "The delivery window has already started or passed."},
      {"invalid_price", "The limit price is not allowed."},
      {"invalid_time_in_force", "The time in force is not allowed for this order."},
      {"unsupported", "The market does not trade this kind of order."},
      {"no_matching_cluster", "No cluster matches the constraints."},
      {"unknown_contract", "The contract to sell back is not yours or no longer exists."},
      {"exceeds_cluster_size", "The cluster does not have that many GPUs."},
      {"post_only_would_trade", "Post-only: the order would have traded on entry, so it was not placed."},
      {"not_your_order", "That order is not yours."},
      {"unknown_order", "The exchange knows no such working order (it may have filled or been cancelled)."},
      {"nothing_to_amend", "The amendment changes nothing."},
      {"invalid_terms", "The listing terms are not valid."},
      {"rate_limited", "Too many messages at once: the exchange dropped this one. Try again."},
  };
  const auto it = plain.find(code);
  QString text =
      it != plain.end() ? OrderMessagesText::tr(it->second) : OrderMessagesText::tr("The exchange refused the order.");
  // Raw amounts in micro-dollars or long ids are for machines, not for the trader.
  static const QRegularExpression raw(QStringLiteral("\\d{7,}|micro"));
  if (!detail.isEmpty() && !raw.match(detail).hasMatch())
    text += QLatin1Char(' ') + detail.left(1).toUpper() + detail.mid(1);
  else if (it == plain.end() && !code.isEmpty() && !code.contains(raw))
    text += OrderMessagesText::tr(" (%1)").arg(QString(code).replace('_', ' '));
  return text;
}

QString describeCancel(const QString& code) {
  if (code == QLatin1String("user")) return OrderMessagesText::tr("cancelled by you");
  if (code == QLatin1String("expired")) return OrderMessagesText::tr("expired");
  if (code == QLatin1String("ioc") || code == QLatin1String("immediate_or_cancel"))
    return OrderMessagesText::tr("the unfilled rest of an immediate-or-cancel order");
  if (code == QLatin1String("fok") || code == QLatin1String("fill_or_kill"))
    return OrderMessagesText::tr("fill-or-kill could not fill completely");
  if (code == QLatin1String("self_trade")) return OrderMessagesText::tr("it would have traded with your own order");
  return QString(code).replace('_', ' ');
}

}  // namespace tessera::ui
