#pragma once
// A market history in one SQLite file (schema: docs/history-schema.md): the exchange's input
// events and the market data it published, with sequence numbers and timestamps, indexed for
// replay by time range and cluster. WAL mode, prepared statements, one transaction per batch.
#include "core/domain/AccountDirectory.h"
#include "core/store/HistoryRecord.h"
#include "core/store/Sqlite.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

struct sqlite3_stmt;

namespace tessera::store {

inline constexpr int kHistorySchemaVersion = 1;

enum class OpenMode : std::uint8_t { ReadOnly, ReadWrite /* creates the file if missing */ };

// Which rows to read. Empty fields do not restrict.
struct HistoryQuery {
  std::optional<std::int64_t> fromMicros;  // inclusive
  std::optional<std::int64_t> toMicros;    // exclusive
  std::optional<std::int64_t> cluster;     // rows about this cluster only
  std::optional<std::int64_t> fromSeq;     // inclusive
};

struct HistorySummary {
  std::int64_t inputs = 0;
  std::int64_t events = 0;
  std::int64_t firstMicros = 0;
  std::int64_t lastMicros = 0;
  std::int64_t lastInputSeq = 0;
  std::int64_t lastEventSeq = 0;
};

class MarketHistoryStore {
 public:
  static std::variant<std::unique_ptr<MarketHistoryStore>, StoreError> open(const std::string& path, OpenMode mode);
  ~MarketHistoryStore();
  MarketHistoryStore(const MarketHistoryStore&) = delete;
  MarketHistoryStore& operator=(const MarketHistoryStore&) = delete;

  // Each call is one transaction: all rows or none. Rows with seq 0 get the next sequence
  // number; the numbers given are written back into the span.
  std::optional<StoreError> appendInputs(std::span<RecordedInput> rows);
  std::optional<StoreError> appendEvents(std::span<RecordedEvent> rows);
  // Providers' outages, in one transaction (table `outages`, docs/history-schema.md).
  std::optional<StoreError> appendOutages(std::span<const RecordedOutage> rows);
  // Every outage, in the order they happened (none in a history recorded without them).
  std::variant<std::vector<RecordedOutage>, StoreError> outages() const;
  // Providers' reclaims of interruptible capacity (table `reclaims`), the same way.
  std::optional<StoreError> appendReclaims(std::span<const RecordedReclaim> rows);
  std::variant<std::vector<RecordedReclaim>, StoreError> reclaims() const;
  // Stores every account name of `accounts` (ids are kept).
  std::optional<StoreError> saveAccounts(const AccountDirectory& accounts);
  // Interns the stored names in id order, so ids match the file when `accounts` starts empty.
  std::optional<StoreError> loadAccounts(AccountDirectory& accounts) const;
  std::optional<StoreError> setMeta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;

  // Calls `row` for each matching row in sequence order; stop early by returning false.
  // Cluster filter on inputs: rows naming that cluster (cancels, amends and clock ticks have
  // none and are left out).
  std::optional<StoreError> forEachInput(const HistoryQuery& q,
                                         const std::function<bool(const RecordedInput&)>& row) const;
  std::optional<StoreError> forEachEvent(const HistoryQuery& q,
                                         const std::function<bool(const RecordedEvent&)>& row) const;
  std::variant<HistorySummary, StoreError> summary() const;

  const std::string& path() const { return path_; }

 private:
  MarketHistoryStore(SqliteDb db, std::string path, bool writable);
  std::optional<StoreError> prepareWriters();
  std::optional<StoreError> exec(const char* sql) const;
  StoreError error(const std::string& what) const;
  // The side tables (outages, reclaims): rows of integers, appended in one transaction (`insert`
  // binds one ? per value) and read whole (none from a history without `table`).
  std::optional<StoreError> appendIntegerRows(const char* insert, const char* what,
                                              const std::vector<std::vector<std::int64_t>>& rows);
  std::variant<std::vector<std::vector<std::int64_t>>, StoreError> integerRows(const char* table, const char* select,
                                                                               int columns, const char* what) const;

  SqliteDb db_;  // closed after the destructor finalizes the prepared statements
  std::string path_;
  bool writable_ = false;
  sqlite3_stmt* insertInput_ = nullptr;
  sqlite3_stmt* insertEvent_ = nullptr;
  std::int64_t nextInputSeq_ = 1;
  std::int64_t nextEventSeq_ = 1;
};

}  // namespace tessera::store
