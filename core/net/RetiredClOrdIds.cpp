#include "core/net/RetiredClOrdIds.h"

#include "core/domain/Fnv1a.h"
#include "core/engine/SnapshotCodec.h"

namespace tessera::net {

template <typename F>
void RetiredClOrdIds::forEachBit(AccountId account, std::string_view clOrdId, F&& f) {
  Fnv1a h;
  h.add(std::string_view(reinterpret_cast<const char*>(&account), sizeof account));
  h.add(clOrdId);
  // Double hashing (Kirsch-Mitzenmacher): bit i at h1 + i * h2, h2 odd.
  const std::uint64_t h1 = h.value();
  std::uint64_t h2 = h1 * 0x9E3779B97F4A7C15ull;
  h2 = (h2 ^ (h2 >> 29)) | 1;
  constexpr std::uint64_t kMask = (std::uint64_t{1} << kLog2Bits) - 1;
  for (int i = 0; i < kHashes; ++i) f((h1 + static_cast<std::uint64_t>(i) * h2) & kMask);
}

void RetiredClOrdIds::add(AccountId account, std::string_view clOrdId) {
  forEachBit(account, clOrdId, [this](std::uint64_t bit) { words_[bit >> 6] |= std::uint64_t{1} << (bit & 63); });
}

bool RetiredClOrdIds::mayContain(AccountId account, std::string_view clOrdId) const {
  bool all = true;
  forEachBit(account, clOrdId, [&](std::uint64_t bit) { all = all && (words_[bit >> 6] >> (bit & 63) & 1); });
  return all;
}

void RetiredClOrdIds::save(SnapshotWriter& w) const { w.podVector(words_); }

void RetiredClOrdIds::load(SnapshotReader& r) {
  const std::size_t size = words_.size();
  r.podVector(words_);
  if (words_.size() != size) throw SnapshotCorrupt("snapshot: the retired client order ids are not of this size");
}

}  // namespace tessera::net
