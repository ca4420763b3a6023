#include "core/net/MarketDataFeed.h"

#include "core/engine/EventJson.h"
#include "core/engine/SnapshotCodec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace tessera::net {
namespace {

constexpr std::size_t kPublishedLevels = 20;
constexpr Hour kIndexHistoryHours = 30 * kHoursPerDay;
// A `subscribe` with `from_seq` replays at most this many bytes of kept market data; beyond it
// the answer is a snapshot.
constexpr std::size_t kMaxResumeBytes = 1 << 20;

}  // namespace

MarketDataFeed::MarketDataFeed(const Matcher& engine, const Limits& limits) : engine_(engine), limits_(limits) {}

void MarketDataFeed::touch(const OrderRequest& o, Hour from, Hour to) {
  if (o.fill != FillStyle::Divisible || !o.cluster) return;
  const Hour horizon = engine_.now() + limits_.mdHorizonHours;
  for (Hour h = std::max(from, engine_.now()); h < std::min(to, horizon); ++h) touched_.insert({*o.cluster, h, o.side});
}

void MarketDataFeed::dropPastTouches() {
  std::erase_if(touched_, [now = engine_.now()](const CellKey& k) { return k.hour < now; });
}

void MarketDataFeed::publishCells(Outbox* out) {
  if (touched_.empty()) return;
  // touched_ is ordered by cluster, hour, side: one side's cells of one cluster come in hour
  // order, so one pass per side finds the runs of consecutive hours, and each run's depth comes
  // from one engine query (an order over a week touches 168 cells). The cells are then
  // published in touched_'s order, as they would be one by one.
  touchedCells_.assign(touched_.begin(), touched_.end());
  touchedDepth_.resize(touchedCells_.size());
  std::vector<std::size_t>& run = scratchRun_;  // positions in touchedCells_
  auto readRun = [&] {
    if (run.empty()) return;
    const CellKey& first = touchedCells_[run.front()];
    engine_.depthRange(first.cluster, first.hour, touchedCells_[run.back()].hour + 1, first.side, kPublishedLevels,
                       scratchDepth_);
    for (std::size_t k = 0; k < run.size(); ++k) touchedDepth_[run[k]] = std::move(scratchDepth_[k]);
    run.clear();
  };
  for (Side side : {Side::Buy, Side::Sell}) {
    for (std::size_t i = 0; i < touchedCells_.size(); ++i) {
      const CellKey& key = touchedCells_[i];
      if (key.side != side) continue;
      if (!run.empty()) {
        const CellKey& last = touchedCells_[run.back()];
        if (last.cluster != key.cluster || last.hour + 1 != key.hour) readRun();
      }
      run.push_back(i);
    }
    readRun();
  }
  for (std::size_t i = 0; i < touchedCells_.size(); ++i) {
    const CellKey& key = touchedCells_[i];
    std::vector<BookLevel> levels = std::move(touchedDepth_[i]);
    auto it = published_.find(key);
    if (it == published_.end() ? levels.empty() : it->second == levels) continue;
    if (out) {
      std::string line;
      appendCell(line, ++seq_, BookCell{key, levels});
      publish(out, std::move(line));
    }
    if (levels.empty())
      published_.erase(it);
    else
      published_[key] = std::move(levels);
  }
  touched_.clear();
}

void MarketDataFeed::recordPrint(const Fill& f) {
  // The index prices firm capacity: interruptible GPU-hours are another, cheaper good.
  if (const Cluster* cl = engine_.cluster(f.cluster); cl && !cl->interruptible()) {
    index_.record(TradePrint{engine_.now(), cl->accelerator, f.start,
                             static_cast<std::int64_t>(f.gpus) * (f.end - f.start), f.price});
    indexedAccelerators_.insert(cl->accelerator);
  }
}

void MarketDataFeed::publishTrade(const Fill& f, Outbox* out, std::uint64_t call) {
  std::string line;
  const std::uint64_t seq = ++seq_;
  appendTrade(line, seq, f, f.aggressor ? Side::Buy : Side::Sell, call);
  publish(out, std::move(line));
}

void MarketDataFeed::clockAdvanced(Hour now, Outbox* out) {
  // Cells before the new hour cannot trade any more: clear them everywhere.
  for (auto it = published_.begin(); it != published_.end();) {
    if (it->first.hour < now) {
      if (out) {
        std::string line;
        appendCell(line, ++seq_, BookCell{it->first, {}});
        publish(out, std::move(line));
      }
      it = published_.erase(it);
    } else {
      ++it;
    }
  }
  // Hours that came within the market-data horizon are published as they stand.
  const Hour horizon = now + limits_.mdHorizonHours;
  for (Hour h = std::max(publishedThrough_, now); h < horizon; ++h)
    for (const Cluster& cl : engine_.clusters())
      for (Side side : {Side::Buy, Side::Sell}) touched_.insert({cl.id, h, side});
  publishedThrough_ = horizon;
  if (out) {
    std::string line;
    appendClock(line, ++seq_, now);
    publish(out, std::move(line));
  }
}

void MarketDataFeed::publishIndex(Hour now, Outbox* out) {
  // The clock reached `now`: hour now - 1 is over, so the index as of its end is final.
  const Hour asOf = now - 1;
  if (indexAsOf_ && asOf <= *indexAsOf_) return;
  // After a long jump of the clock only the hours the history keeps are computed.
  Hour from = indexAsOf_ ? *indexAsOf_ + 1 : asOf;
  from = std::max(from, asOf - kIndexHistoryHours + 1);
  indexAsOf_ = asOf;
  for (Hour h = from; h <= asOf; ++h) {
    for (Accelerator a : indexedAccelerators_) {
      for (Tenor t : kTenors) {
        auto v = index_.value(a, t, h);
        if (!v) continue;
        IndexPublication p{a, t, h, *v};
        indexNow_[{a, t}] = p;
        indexHistory_.push_back(p);
        if (h == asOf && out) {
          std::string line;
          appendIndex(line, ++seq_, p);
          publish(out, std::move(line));
        }
      }
    }
  }
  while (!indexHistory_.empty() && indexHistory_.front().asOf <= asOf - kIndexHistoryHours) indexHistory_.pop_front();
}

void MarketDataFeed::clusterAdded(const Cluster& c, Outbox* out) {
  if (!out) return;
  std::string line =
      "{\"type\":\"md_cluster\",\"seq\":" + std::to_string(++seq_) + ",\"cluster\":" + toJson(c).dump() + "}\n";
  publish(out, std::move(line));
}

void MarketDataFeed::publishUnnumbered(const std::vector<std::string>& bodies, Outbox* out) {
  if (!out) return;
  for (const std::string& body : bodies) {
    std::string line = "{\"seq\":" + std::to_string(++seq_) + "," + body.substr(1) + "\n";
    publish(out, std::move(line));
  }
}

void MarketDataFeed::publish(Outbox* out, std::string line) {
  out->marketData += line;
  recent_.emplace_back(seq_, std::move(line));
  while (recent_.size() > limits_.mdReplayDepth) recent_.pop_front();
}

void MarketDataFeed::answerSubscribe(std::string& o, std::optional<std::uint64_t> fromSeq, std::uint64_t epoch,
                                     const std::function<std::string()>& forwardBooks) const {
  if (fromSeq && *fromSeq <= seq_ + 1) {
    // A resume is answered only while the missed lines fit kMaxResumeBytes; a longer gap costs
    // the client less as a snapshot, and one short request can never ask for megabytes.
    std::size_t bytes = 0;
    auto first = recent_.end();
    while (first != recent_.begin() && std::prev(first)->first >= *fromSeq &&
           bytes + std::prev(first)->second.size() <= kMaxResumeBytes) {
      --first;
      bytes += first->second.size();
    }
    const std::uint64_t resumesAt = first == recent_.end() ? seq_ + 1 : first->first;
    if (resumesAt == *fromSeq) {
      o += "{\"type\":\"md_resume\",\"from_seq\":" + std::to_string(*fromSeq) + ",\"seq\":" + std::to_string(seq_) +
           "}\n";
      for (; first != recent_.end(); ++first) o += first->second;
      return;
    }
  }
  o += "{\"type\":\"md_snapshot\",\"seq\":" + std::to_string(seq_) + ",\"epoch\":" + std::to_string(epoch) +
       ",\"now\":" + std::to_string(engine_.now()) + ",\"cells\":[";
  bool first = true;
  for (const auto& [key, levels] : published_) {
    if (!first) o += ',';
    first = false;
    o += "{\"cluster\":" + std::to_string(key.cluster) + ",\"hour\":" + std::to_string(key.hour) + ",\"side\":\"" +
         (key.side == Side::Buy ? "buy" : "sell") + "\",\"levels\":";
    appendLevels(o, levels);
    o += '}';
  }
  o += "],\"index\":[";
  first = true;
  for (const auto& [series, p] : indexNow_) {
    if (!first) o += ',';
    first = false;
    appendIndexObject(o, p);
  }
  o += "],\"forward_books\":" + forwardBooks() + "}\n";
}

void MarketDataFeed::appendIndexHistory(std::string& o) const {
  bool first = true;
  for (const IndexPublication& p : indexHistory_) {
    if (!first) o += ',';
    first = false;
    appendIndexObject(o, p);
  }
}

std::map<Accelerator, Price> MarketDataFeed::nextDayPrices() const {
  std::map<Accelerator, Price> nextDay;
  for (const auto& [series, p] : indexNow_)
    if (series.second == Tenor::NextDay) nextDay[series.first] = p.value.price;
  return nextDay;
}

void MarketDataFeed::save(SnapshotWriter& w) const {
  index_.save(w);
  w.pod<std::uint64_t>(indexedAccelerators_.size());
  for (Accelerator a : indexedAccelerators_) w.pod(a);
  w.pod(indexAsOf_.has_value());
  w.pod(indexAsOf_.value_or(0));
  w.pod<std::uint64_t>(indexNow_.size());
  for (const auto& [key, p] : indexNow_) w.pod(p);
  w.pod<std::uint64_t>(indexHistory_.size());
  for (const IndexPublication& p : indexHistory_) w.pod(p);
  w.pod(publishedThrough_);
  w.pod<std::uint64_t>(published_.size());
  for (const auto& [cell, levels] : published_) {
    w.pod(cell.cluster);
    w.pod(cell.hour);
    w.pod(cell.side);
    w.pod<std::uint64_t>(levels.size());
    for (const BookLevel& l : levels) {
      w.pod(l.price);
      w.pod(l.gpus);
      w.pod(l.orders);
      w.terms(l.terms);
    }
  }
}

void MarketDataFeed::load(SnapshotReader& r) {
  index_.load(r);
  for (std::size_t n = r.count(1); n > 0; --n) indexedAccelerators_.insert(r.pod<Accelerator>());
  const bool asOf = r.pod<bool>();
  const auto asOfHour = r.pod<Hour>();
  if (asOf) indexAsOf_ = asOfHour;
  for (std::size_t n = r.count(sizeof(IndexPublication)); n > 0; --n) {
    const auto p = r.pod<IndexPublication>();
    indexNow_[{p.accelerator, p.tenor}] = p;
  }
  for (std::size_t n = r.count(sizeof(IndexPublication)); n > 0; --n)
    indexHistory_.push_back(r.pod<IndexPublication>());
  publishedThrough_ = r.pod<Hour>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    CellKey cell;
    cell.cluster = r.pod<ClusterId>();
    cell.hour = r.pod<Hour>();
    cell.side = r.pod<Side>();
    auto& levels = published_[cell];
    for (std::size_t k = r.count(8); k > 0; --k) {
      BookLevel l;
      l.price = r.pod<Price>();
      l.gpus = r.pod<GpuCount>();
      l.orders = r.pod<int>();
      l.terms = r.terms();
      levels.push_back(l);
    }
  }
}

}  // namespace tessera::net
