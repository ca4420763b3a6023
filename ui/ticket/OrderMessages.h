#pragma once
// What the terminal tells a trader about an order: the order in full (dollars, GPUs, hours,
// thousands separators), and the exchange's reject and cancel codes in plain words.
#include "core/domain/Order.h"

#include <QString>

#include <functional>

namespace tessera::ui {

using ClusterNameOf = std::function<QString(ClusterId)>;

// "Buy all-or-none 16 GPUs on us-east-h100-a, Mon 07 Dec 05:00 to Tue 08 Dec 05:00 UTC
// (24 h, 384 GPU-hours) at up to $2.50/GPU-h: at most $960.00, good till cancelled".
QString describeOrder(const OrderRequest& order, const ClusterNameOf& clusterName);
// The notional an order commits at its limit: limit x GPUs x hours.
Money orderNotional(const OrderRequest& order);
// A reject as the backends report it ("code" or "code: detail") in plain words. The detail is
// kept only when it is written for a person (no raw micro-dollar amounts).
QString describeReject(const QString& codeAndDetail);
// A cancel code ("user", "expired", "ioc", ...) in plain words.
QString describeCancel(const QString& code);

}  // namespace tessera::ui
