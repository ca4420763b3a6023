#pragma once
// The flat, typed form of an InputEvent shared by the SQLite table and the CSV files, so the
// hot replay path reads integers rather than parsing JSON.
#include "core/store/HistoryRecord.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace tessera::store {

enum class InputKind : std::int8_t {
  Cluster = 0,
  Grant = 1,
  Order = 2,
  Cancel = 3,
  Amend = 4,
  Clock = 5,
  Transfer = 6,
  Reclaim = 7
};
inline constexpr int kLastInputKind = 7;

struct InputRow {
  std::int64_t seq = 0;
  std::int64_t timeMicros = 0;
  InputKind kind = InputKind::Clock;
  std::optional<std::int64_t> cluster;
  std::optional<std::int64_t> account;
  std::optional<std::int64_t> order;
  std::optional<std::int64_t> side;  // 0 buy, 1 sell
  std::optional<std::int64_t> gpus;
  std::optional<std::int64_t> start;  // window start; the clock hour for Clock
  std::optional<std::int64_t> end;
  std::optional<std::int64_t> duration;
  std::optional<std::int64_t> price;  // order limit, or amended limit
  std::optional<std::int64_t> fill;   // FillStyle
  std::optional<std::int64_t> tif;    // TimeInForce
  std::optional<std::int64_t> expireAt;
  std::optional<std::int64_t> flags;  // bit 0 post-only, bit 1 stp = CancelResting
  std::optional<std::int64_t> sellBack;
  std::string extra;  // JSON: the cluster, or an order with constraints
};

InputRow toRow(const RecordedInput& in);
std::variant<RecordedInput, StoreError> fromRow(const InputRow& row);

std::string_view toString(InputKind k);
std::optional<InputKind> parseInputKind(std::string_view s);

}  // namespace tessera::store
