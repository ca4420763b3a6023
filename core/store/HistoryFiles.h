#pragma once
// Import and export of market histories as JSON lines and CSV.
//
// JSONL inputs: one input event per line in the form of core/engine/EventJson.h (the same lines
// `tessera-cli match` reads), plus optional "seq" and "time_us" fields.
// CSV inputs: the columns of the input_events table (docs/history-schema.md), with account
// names instead of ids. Market events export as JSONL (their stored JSON plus seq, input_seq,
// time_us) or CSV (their key columns).
#include "core/domain/AccountDirectory.h"
#include "core/store/MarketHistoryStore.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::store {

struct ImportReport {
  std::int64_t lines = 0;
  std::int64_t imported = 0;
  std::vector<std::string> errors;  // "line 12: ...", one per skipped line
};

enum class FileFormat : std::uint8_t { Jsonl, Csv };
// From the file name: ".csv" is CSV, anything else JSON lines.
FileFormat formatOf(const std::string& path);

// Bad lines are reported and skipped; every good line is imported, appended after what the
// store holds. Lines without a time get one from the last clock tick seen.
std::variant<ImportReport, StoreError> importInputs(std::istream& in, FileFormat format, MarketHistoryStore& store,
                                                    AccountDirectory& accounts);

// `withTimes` false: JSON lines without "seq" and "time_us", exactly what `tessera-cli match` reads.
std::variant<std::int64_t, StoreError> exportInputs(const MarketHistoryStore& store, const AccountDirectory& accounts,
                                                    const HistoryQuery& q, FileFormat format, std::ostream& out,
                                                    bool withTimes = true);
std::variant<std::int64_t, StoreError> exportEvents(const MarketHistoryStore& store, const HistoryQuery& q,
                                                    FileFormat format, std::ostream& out);

}  // namespace tessera::store
