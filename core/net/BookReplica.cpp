#include "core/net/BookReplica.h"

namespace tessera::net {

std::unique_ptr<Matcher> replicateAsks(const std::vector<Cluster>& clusters, Hour now, const BookMirror& book) {
  auto engine = makeMatchingEngine();
  std::vector<Event> events;
  constexpr AccountId kSellers = 1;  // every ask of the live book, under one account
  for (const Cluster& c : clusters) engine->apply(c, events);
  engine->apply(ClockAdvance{now}, events);
  const std::vector<BookCell> cells = book.cells();
  OrderId id = 1;
  for (const BookCell& cell : cells) {
    if (cell.key.side != Side::Sell || cell.key.hour < now) continue;
    // Each cell's asks are granted exactly: a cluster and its interruptible book share the
    // physical cluster's size, which the live book's asks of both together never exceed.
    GpuCount offered = 0;
    for (const BookLevel& level : cell.levels) offered += level.gpus;
    engine->apply(CapacityGrant{kSellers, cell.key.cluster, offered, cell.key.hour, cell.key.hour + 1}, events);
    const Cluster* cluster = engine->cluster(cell.key.cluster);
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
      o.interruptible = cluster && cluster->interruptible();
      engine->apply(o, events);
    }
  }
  return engine;
}

}  // namespace tessera::net
