#include "ui/ticket/TicketInput.h"

#include "ui/shell/DisplayFormat.h"

#include "core/engine/MarketLimits.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace tessera::ui {
namespace {

// The texts' translation context (lupdate reads Q_DECLARE_TR_FUNCTIONS).
struct TicketInputText {
  Q_DECLARE_TR_FUNCTIONS(TicketInput)
};

// Digits with optional thousands separators (every group of three), nothing else.
const QRegularExpression& wholeRe() {
  static const QRegularExpression re(QStringLiteral("^(\\d+|\\d{1,3}(,\\d{3})+)$"));
  return re;
}

}  // namespace

std::variant<std::int64_t, QString> parseWholeNumber(const QString& text, const QString& noun, std::int64_t min,
                                                     std::int64_t max) {
  const QString t = text.trimmed();
  if (t.isEmpty()) return TicketInputText::tr("Enter the number of %1.").arg(noun);
  if (t.startsWith('-')) return TicketInputText::tr("%1 cannot be negative (you typed %2).").arg(noun, t);
  if (!wholeRe().match(t).hasMatch()) return TicketInputText::tr("\"%1\" is not a whole number of %2.").arg(t, noun);
  QString digits = t;
  digits.remove(',');
  bool ok = false;
  const qlonglong v = digits.size() <= 15 ? digits.toLongLong(&ok) : 0;
  if (!ok || v > max)
    return TicketInputText::tr("%1 %2 is more than the %3 allowed here.").arg(t, noun, formatCount(max));
  if (v < min) {
    if (v == 0) return TicketInputText::tr("0 %1: enter at least %2.").arg(noun, formatCount(min));
    return TicketInputText::tr("%1 %2 is fewer than the %3 needed here.").arg(t, noun, formatCount(min));
  }
  return static_cast<std::int64_t>(v);
}

std::variant<Price, QString> parseLimitPrice(const QString& text) {
  QString t = text.trimmed();
  if (t.startsWith('$')) t = t.mid(1).trimmed();
  if (t.isEmpty()) return TicketInputText::tr("Enter a limit price in dollars per GPU-hour, e.g. 2.50.");
  if (t.startsWith('-'))
    return TicketInputText::tr("The limit must be above $0.00 (you typed %1).").arg(text.trimmed());
  static const QRegularExpression re(QStringLiteral("^(\\d+|\\d{1,3}(,\\d{3})+)?(\\.(\\d*))?$"));
  const auto m = re.match(t);
  if (!m.hasMatch() || t == QStringLiteral("."))
    return TicketInputText::tr("\"%1\" is not a price: type dollars per GPU-hour, e.g. 2.50.").arg(text.trimmed());
  const QString cents = m.captured(4);
  if (cents.size() > 2)
    return TicketInputText::tr("Prices are in whole cents: %1 has more than two decimals.").arg(text.trimmed());
  QString whole = m.captured(1);
  whole.remove(',');
  if (whole.size() > 9)
    return TicketInputText::tr("%1 is above the exchange's maximum of %2/GPU-h.")
        .arg(text.trimmed(), formatPrice(limits::kMaxPrice));
  const std::int64_t dollarsPart = whole.isEmpty() ? 0 : whole.toLongLong();
  const std::int64_t centsPart = (cents + QStringLiteral("00")).left(2).toLongLong();
  const Price p = dollarsPart * kMicrosPerDollar + centsPart * (kMicrosPerDollar / 100);
  if (p <= 0) return TicketInputText::tr("A limit of $0.00 cannot trade: enter a price above $0.00.");
  if (p > limits::kMaxPrice)
    return TicketInputText::tr("%1 is above the exchange's maximum of %2/GPU-h.")
        .arg(text.trimmed(), formatPrice(limits::kMaxPrice));
  return p;
}

QString limitText(Price p) { return formatMoney(p).mid(1); }

QWidget* fieldWithReason(QWidget* parent, QWidget* field, QLabel** reason, const QString& name, const QString& prefix,
                         const QString& suffix) {
  auto* box = new QWidget(parent);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  auto* h = new QHBoxLayout;
  h->setContentsMargins(0, 0, 0, 0);
  if (!prefix.isEmpty()) h->addWidget(new QLabel(prefix, box));
  h->addWidget(field, 1);
  if (!suffix.isEmpty()) h->addWidget(new QLabel(suffix, box));
  v->addLayout(h);
  *reason = new QLabel(box);
  (*reason)->setObjectName(name);
  (*reason)->setWordWrap(true);
  (*reason)->setStyleSheet(QStringLiteral("color:#e5484d; font-weight:600;"));
  (*reason)->hide();
  v->addWidget(*reason);
  return box;
}

void showReason(QLabel* label, QWidget* field, const QString& why) {
  label->setText(why);
  label->setVisible(!why.isEmpty());
  field->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("border:1px solid #e5484d;"));
}

}  // namespace tessera::ui
