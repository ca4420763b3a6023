#pragma once
// The client order id `tessera-cli` gives an order when the user names none: derived from the
// account and the order itself, so that sending the same request again (a retry after a timeout,
// when the first may or may not have arrived) names the same order, and the exchange refuses the
// copy as `duplicate_cl_ord_id` instead of trading twice.
#include "core/domain/Order.h"

#include <string>

namespace tessera::net {

// "cli-" and 32 hex digits of a BLAKE2b hash of the account and the order's fields (its `id` and
// `account` excluded). Equal requests give equal ids; any field that differs gives another.
[[nodiscard]] std::string clOrdIdFor(const std::string& account, const OrderRequest& order);
// The same with `context` hashed in too: what the order was decided from (tessera-cli scale:
// the holding and the book it saw), so that equal decisions name the same order.
[[nodiscard]] std::string clOrdIdFor(const std::string& account, const OrderRequest& order, const std::string& context);

}  // namespace tessera::net
