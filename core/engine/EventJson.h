#pragma once
// JSON forms of the engine's input and output events, as used by `tessera-cli match`,
// history import/export and tests. The formats are documented in docs/cli.md.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <variant>

namespace tessera {

// Ranges the JSON forms accept for hours, ids and money fields (limit prices, credits), so
// that every reader of them (FlatMessageParser, too) accepts exactly the same.
inline constexpr std::int64_t kJsonMaxHour = std::int64_t{1} << 40;
inline constexpr std::int64_t kJsonMaxId = std::int64_t{1} << 53;  // exact in every JSON reader
inline constexpr std::int64_t kJsonMinMoney = std::numeric_limits<std::int64_t>::min() / 4;
inline constexpr std::int64_t kJsonMaxMoney = std::numeric_limits<std::int64_t>::max() / 4;

struct JsonError {
  std::string message;  // what is wrong, for a person: "field 'gpus' must be a positive integer"
};

// Parses one input line's JSON object ({"type":"order",...}). Account names are interned.
std::variant<InputEvent, JsonError> inputEventFromJson(const nlohmann::json& j, AccountDirectory& accounts);
// Parses the order fields of `j` (everything but "type" and "account") into `out`.
std::variant<OrderRequest, JsonError> orderFromJson(const nlohmann::json& j, AccountId account);
std::variant<Cluster, JsonError> clusterFromJson(const nlohmann::json& j);

nlohmann::json toJson(const InputEvent& e, const AccountDirectory& accounts);
nlohmann::json toJson(const Event& e, const AccountDirectory& accounts);
nlohmann::json toJson(const OrderRequest& o);  // without the account
nlohmann::json toJson(const Cluster& c);
nlohmann::json toJson(const OfferTerms& t);
nlohmann::json toJson(const Contract& c, const AccountDirectory& accounts);

}  // namespace tessera
