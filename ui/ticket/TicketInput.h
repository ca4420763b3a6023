#pragma once
// Reads what a trader typed into a ticket field. Nothing is clamped, rounded or dropped: a
// value is either exactly what the text says or a reason, for a person, why it cannot be sent.
#include "core/domain/Types.h"

#include <QString>

class QLabel;
class QWidget;

#include <variant>

namespace tessera::ui {

// A whole number in [min, max], written with or without thousands separators ("1,024").
// `noun` names the value in the reasons ("GPUs", "hours").
[[nodiscard]] std::variant<std::int64_t, QString> parseWholeNumber(const QString& text, const QString& noun,
                                                                   std::int64_t min, std::int64_t max);
// A limit in dollars per GPU-hour, whole cents, above $0.00 and at most the exchange's maximum.
[[nodiscard]] std::variant<Price, QString> parseLimitPrice(const QString& text);
// The text a price is written as in a ticket field: "2.50", "1,000.00".
QString limitText(Price p);

// A field with its reason under it (`reason`, named `name` for tests): the reason is shown only
// while the value cannot be sent. `prefix` and `suffix` are short labels beside the field ("$").
QWidget* fieldWithReason(QWidget* parent, QWidget* field, QLabel** reason, const QString& name,
                         const QString& prefix = {}, const QString& suffix = {});
// Shows `why` under the field and outlines the field, or hides both when `why` is empty.
void showReason(QLabel* label, QWidget* field, const QString& why);

}  // namespace tessera::ui
