#pragma once
// The rows of a market history: what reached the exchange, and what it published in answer.
#include "core/engine/Events.h"

#include <cstdint>
#include <string>

namespace tessera::store {

inline constexpr std::int64_t kMicrosPerHour = 3'600'000'000;

// One input event as it reached the engine. `seq` orders inputs (1, 2, ...); 0 when appending
// means "the next one".
struct RecordedInput {
  std::int64_t seq = 0;
  std::int64_t timeMicros = 0;  // arrival time, microseconds since the epoch
  InputEvent event;
};

// A provider's outage: `lostGpus` of its GPUs on `cluster` were missing in hours [start, end).
// Not an engine input: the exchange spreads it over the provider's contracts on the cluster
// (core/settlement/OutageRule), after the input numbered `afterInput` and before the next.
struct RecordedOutage {
  std::int64_t afterInput = 0;
  std::int64_t timeMicros = 0;
  AccountId provider = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount lostGpus = 0;
  bool operator==(const RecordedOutage&) const = default;
};

// A provider's reclaim of interruptible capacity: `gpus` of its GPUs sold on the interruptible
// cluster `cluster`, taken back for hours [start, end) with the cluster's notice. Not an engine
// input as recorded here: a replay spreads it over the provider's contracts on the cluster
// (core/settlement/ReclaimRule), preferring `contract` (the one the exchange reclaimed; 0 for
// a simulated reclaim, which names none), after the input numbered `afterInput`.
struct RecordedReclaim {
  std::int64_t afterInput = 0;
  std::int64_t timeMicros = 0;
  AccountId provider = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  ContractId contract = 0;
  bool operator==(const RecordedReclaim&) const = default;
};

// One market-data event the engine produced. Stored with its search keys as columns and its
// full JSON form (core/engine/EventJson.h), which is what export and analysis read.
struct RecordedEvent {
  std::int64_t seq = 0;       // 0 when appending: the next one
  std::int64_t inputSeq = 0;  // the input that caused it
  std::int64_t timeMicros = 0;
  std::string type;          // the JSON "type" ("fill", "contract", ...)
  std::int64_t cluster = 0;  // 0 when the event is not about one cluster
  std::int64_t account = 0;
  std::int64_t order = 0;
  std::int64_t price = 0;
  std::int64_t gpus = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::string json;
};

// What went wrong with a history file, so that a command can say it and exit with its own code.
enum class StoreErrorKind : std::uint8_t {
  Io,          // cannot open, read or write (permissions, disk full, a missing folder)
  NotFound,    // no such file
  NotHistory,  // a file, but not a Tessera market history (not SQLite, or without its tables)
  Corrupt,     // a history whose bytes are damaged or cut short
  Version,     // a history of another schema version
  Empty,       // a valid history with no inputs
};

struct StoreError {
  std::string message;
  StoreErrorKind kind = StoreErrorKind::Io;
};

}  // namespace tessera::store
