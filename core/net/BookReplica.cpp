#include "core/net/BookReplica.h"

#include <algorithm>

namespace tessera::net {

std::unique_ptr<Matcher> replicateAsks(const std::vector<Cluster>& clusters, Hour now, const BookMirror& book) {
  auto engine = makeMatchingEngine();
  std::vector<Event> events;
  constexpr AccountId kSellers = 1;  // every ask of the live book, under one account
  for (const Cluster& c : clusters) engine->apply(c, events);
  engine->apply(ClockAdvance{now}, events);
  const std::vector<BookCell> cells = book.cells();
  Hour last = now;
  for (const BookCell& cell : cells)
    if (cell.key.side == Side::Sell) last = std::max(last, cell.key.hour + 1);
  for (const Cluster& c : clusters)
    engine->apply(CapacityGrant{kSellers, c.id, c.totalGpus(), now, last}, events);
  OrderId id = 1;
  for (const BookCell& cell : cells) {
    if (cell.key.side != Side::Sell || cell.key.hour < now) continue;
    for (const BookLevel& level : cell.levels) {
      OrderRequest o;
      o.id = id++;
      o.account = kSellers;
      o.side = Side::Sell;
      o.cluster = cell.key.cluster;
      o.gpus = level.gpus;
      o.start = cell.key.hour;
      o.end = cell.key.hour + 1;
      o.limit = level.price;
      o.terms = level.terms;
      engine->apply(o, events);
    }
  }
  return engine;
}

}  // namespace tessera::net
