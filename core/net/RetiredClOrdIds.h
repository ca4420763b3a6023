#pragma once
// The client order ids of orders retired to the archive (FinishedOrderArchive), as a Bloom filter
// of fixed size: a new order's duplicate check asks the archive on disk only when the filter
// says its (account, cl_ord_id) may be there, instead of on every new order. Its memory does not
// grow with the orders ever placed: 8 MiB, 4 bits per id; false positives (a disk lookup that
// finds nothing) are about 0.1% of new orders after 3 million retired ids, 5% after 10 million,
// and never change an answer. The filter is part of the snapshot; a replay adds the ids it retires
// again.
#include "core/domain/Types.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class RetiredClOrdIds {
 public:
  static constexpr unsigned kLog2Bits = 26;

  RetiredClOrdIds() : words_(std::size_t{1} << (kLog2Bits - 6)) {}
  void add(AccountId account, std::string_view clOrdId);
  // False: `account` never retired an order named `clOrdId`. True: it may have.
  bool mayContain(AccountId account, std::string_view clOrdId) const;

  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  static constexpr int kHashes = 4;
  template <typename F>
  static void forEachBit(AccountId account, std::string_view clOrdId, F&& f);
  std::vector<std::uint64_t> words_;
};

}  // namespace tessera::net
