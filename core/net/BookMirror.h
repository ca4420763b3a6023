#pragma once
// The client's copy of the exchange's order book: built from a snapshot, kept current by
// sequenced deltas, and able to tell when a delta is missing so the client can re-request.
#include "core/engine/Matcher.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace tessera::net {

struct CellKey {
  ClusterId cluster = 0;
  Hour hour = 0;
  Side side = Side::Buy;
  auto operator<=>(const CellKey&) const = default;
};

struct BookCell {
  CellKey key;
  std::vector<BookLevel> levels;  // best first; empty: the cell has nothing resting
  bool operator==(const BookCell&) const = default;
};

class BookMirror {
 public:
  enum class Result { Applied, Duplicate, Gap, NotSynced };

  // Replaces everything; `seq` is the sequence number of the last delta the snapshot includes.
  void applySnapshot(std::uint64_t seq, const std::vector<BookCell>& cells);
  // A delta replacing one cell. Gap: seq skipped ahead, the delta is not applied and the mirror
  // is unsynced until a snapshot or the missing deltas (resent, in order) arrive.
  Result applyCell(std::uint64_t seq, const BookCell& cell);
  // Any other sequenced market-data message (trade, clock): only advances the sequence.
  Result advance(std::uint64_t seq);
  void reset();

  bool synced() const { return hasBase_ && !gap_; }
  bool hasSnapshot() const { return hasBase_; }
  std::uint64_t seq() const { return seq_; }
  const std::vector<BookLevel>* levels(const CellKey& key) const;
  std::vector<BookCell> cells() const;  // non-empty cells in key order

 private:
  Result check(std::uint64_t seq);
  std::map<CellKey, std::vector<BookLevel>> cells_;
  std::uint64_t seq_ = 0;
  bool hasBase_ = false;  // a snapshot was applied
  bool gap_ = false;      // a delta was missed since
};

}  // namespace tessera::net
