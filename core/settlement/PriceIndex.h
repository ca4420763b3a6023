#pragma once
// A published compute price index per accelerator class and delivery tenor: the volume-weighted
// price per GPU-hour of the trades of the trailing window (a day by default), weighted by
// GPU-hours. Method (docs/settlement.md): a trade counts for the tenor its lead time falls in
// (delivery start minus trade hour); the value is sum(price * gpu_hours) / sum(gpu_hours),
// rounded to the nearest micro-dollar; with no trade in the window the index keeps its last
// value and says it is stale.
#include "core/domain/Cluster.h"
#include "core/domain/Types.h"

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string_view>

namespace tessera {

class SnapshotWriter;
class SnapshotReader;

enum class Tenor : std::uint8_t {
  NextDay,    // delivery starting within 24 hours of the trade
  NextWeek,   // within 24 h .. 7 days
  NextMonth,  // within 7 .. 30 days
};
inline constexpr std::array<Tenor, 3> kTenors{Tenor::NextDay, Tenor::NextWeek, Tenor::NextMonth};
std::string_view toString(Tenor t);
std::optional<Tenor> tenorOf(Hour leadHours);

struct TradePrint {
  Hour tradedAt = 0;  // exchange hour when the trade happened
  Accelerator accelerator = Accelerator::H100;
  Hour deliveryStart = 0;
  std::int64_t gpuHours = 0;
  Price price = 0;
};

struct IndexValue {
  Price price = 0;
  std::int64_t gpuHours = 0;  // volume in the window
  int trades = 0;
  bool stale = false;  // no trade in the window: the last value carried forward
  bool operator==(const IndexValue&) const = default;
};

// A published value of the index of one accelerator class and tenor as of an hour
// (docs/settlement.md "Price index"): what the exchange sends in md_index, the client hands on,
// and the terminal charts, whether the value came from the exchange or was computed locally.
struct IndexPoint {
  Accelerator accelerator = Accelerator::H100;
  Tenor tenor = Tenor::NextDay;
  Hour asOf = 0;
  Price price = 0;
  std::int64_t gpuHours = 0;
  int trades = 0;
  bool stale = false;  // no trade in the window: the last value carried forward
};

class PriceIndex {
 public:
  explicit PriceIndex(Hour windowHours = kHoursPerDay) : window_(windowHours) {}
  // Prints must arrive in non-decreasing tradedAt order.
  void record(const TradePrint& p);
  // The index as of the end of hour `asOf`: trades with asOf - window < tradedAt <= asOf.
  // Drops prints that fell out of the window, so successive calls must not go back in time.
  std::optional<IndexValue> value(Accelerator a, Tenor t, Hour asOf);
  // Drops the prints no value at or after `asOf` can use, as value() does for its own series,
  // in every series: a reader that asks for some series rarely (a backtest asks only at its
  // fills) keeps memory bounded by the window, not the run. Changes no value.
  void prune(Hour asOf);
  // The snapshot form (core/engine/SnapshotCodec.h); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  struct Series {
    std::deque<TradePrint> prints;
    std::optional<IndexValue> last;
  };
  void dropOutOfWindow(Series& s, Hour asOf) const;
  Hour window_;
  std::map<std::pair<Accelerator, Tenor>, Series> series_;
};

}  // namespace tessera
