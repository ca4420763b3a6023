#include "core/net/ClOrdIdIndex.h"

namespace tessera::net {

namespace {
// Buckets of the old table moved per operation. With the new table reserved for twice the old
// size, the old one is empty long before the new one is full: it has about as many buckets as
// entries, so it is gone after size/2 operations, by when the new table holds 1.5x the old.
constexpr std::size_t kBucketsPerOperation = 2;
}  // namespace

void ClOrdIdIndex::moveSomeBuckets() {
  if (old_.empty()) return;
  const std::size_t buckets = old_.bucket_count();
  for (std::size_t moved = 0; moved < kBucketsPerOperation && nextBucket_ < buckets; ++nextBucket_, ++moved) {
    // Erasing never rehashes, so bucket numbers stay put while the bucket is emptied.
    while (old_.bucket_size(nextBucket_) > 0) current_.insert(old_.extract(old_.begin(nextBucket_)->first));
  }
  if (old_.empty() || nextBucket_ >= buckets) {
    // Whatever is left in buckets already passed was inserted there before growth began and
    // moved; anything else cannot be: new ids go to current_.
    while (!old_.empty()) current_.insert(old_.extract(old_.begin()));
    old_ = Table{};
    nextBucket_ = 0;
  }
}

void ClOrdIdIndex::startGrowing() {
  // Only one generation at a time: finish the last growth first (it is normally long over).
  while (!old_.empty()) moveSomeBuckets();
  old_.swap(current_);
  current_ = Table{};
  current_.reserve(2 * old_.size() + 16);
  nextBucket_ = 0;
}

std::pair<OrderId*, bool> ClOrdIdIndex::claim(const std::string& clOrdId) {
  moveSomeBuckets();
  if (!old_.empty()) {
    if (auto it = old_.find(clOrdId); it != old_.end()) return {&it->second, false};
  }
  if (current_.size() + 1 > static_cast<std::size_t>(current_.max_load_factor() * static_cast<float>(current_.bucket_count())) &&
      current_.size() >= 1024) {
    // The next insert would rehash the whole table: grow incrementally instead.
    if (auto it = current_.find(clOrdId); it != current_.end()) return {&it->second, false};
    startGrowing();
  }
  auto [it, fresh] = current_.try_emplace(clOrdId, OrderId{0});
  return {&it->second, fresh};
}

void ClOrdIdIndex::erase(const std::string& clOrdId) {
  if (current_.erase(clOrdId) == 0) old_.erase(clOrdId);
  moveSomeBuckets();
}

std::optional<OrderId> ClOrdIdIndex::find(const std::string& clOrdId) const {
  if (auto it = current_.find(clOrdId); it != current_.end()) return it->second;
  if (auto it = old_.find(clOrdId); it != old_.end()) return it->second;
  return std::nullopt;
}

}  // namespace tessera::net
