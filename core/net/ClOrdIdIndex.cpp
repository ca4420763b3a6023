#include "core/net/ClOrdIdIndex.h"

#include "core/net/ClientMessage.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>

namespace tessera::net {

namespace {
// Slots of the old table moved per operation. A table grows when `fill` of it is used (between
// 3/8 and 1/2, see ClOrdIdIndex()); the new one has twice its slots (or as many, if most used
// slots are erased ones), and the old one is empty after capacity/8 operations, before the new
// table can reach its own limit (that takes capacity/8 more entries than it can receive by then
// whenever fill >= 1/4).
constexpr std::size_t kSlotsPerOperation = 8;
constexpr std::size_t kFirstCapacity = 64;
constexpr std::size_t kMapAtBytes = 64 * 1024;

static_assert(kMaxClOrdIdLength <= 255, "lengths are stored in a byte");
}  // namespace

ClOrdIdIndex::ClOrdIdIndex() {
  // The 50 accounts of a busy exchange take ids at the same pace; at one fill they would all
  // grow in the same few batches and fault in all their new tables' pages at once (bench/net).
  // Each table's fill is drawn once from [3/8, 1/2], so their growth spreads over many batches.
  static std::atomic<std::uint64_t> tables{0};
  const std::uint64_t n = tables.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull;
  fillPermille_ = 375 + static_cast<std::uint32_t>((n >> 32) % 126);
}

ClOrdIdIndex::~ClOrdIdIndex() = default;
ClOrdIdIndex::ClOrdIdIndex(ClOrdIdIndex&&) noexcept = default;
ClOrdIdIndex& ClOrdIdIndex::operator=(ClOrdIdIndex&&) noexcept = default;

std::size_t ClOrdIdIndex::limitOf(std::size_t capacity) const { return capacity * fillPermille_ / 1000; }

void ClOrdIdIndex::FreeSlots::operator()(Slot* p) const {
  if (mappedBytes)
    ::munmap(p, mappedBytes);
  else
    std::free(p);
}

ClOrdIdIndex::Table ClOrdIdIndex::makeTable(std::size_t capacity) {
  // A large table is mapped: zero pages from the kernel, touched (and paid for) only as slots
  // fill, instead of a memset of the whole table inside one operation (calloc would memset a
  // block it reuses from the heap, and glibc raises its mmap threshold after each free).
  Table t;
  const std::size_t bytes = capacity * sizeof(Slot);
  if (bytes >= kMapAtBytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    t.cells = std::unique_ptr<Slot[], FreeSlots>(static_cast<Slot*>(p), FreeSlots{bytes});
  } else {
    t.cells = std::unique_ptr<Slot[], FreeSlots>(static_cast<Slot*>(std::calloc(capacity, sizeof(Slot))), FreeSlots{0});
    if (!t.cells) throw std::bad_alloc();
  }
  t.capacity = capacity;
  return t;
}

std::string_view ClOrdIdIndex::keyOf(const Slot& s) const {
  return {pages_[s.key / kPageBytes].get() + s.key % kPageBytes, s.length};
}

std::uint32_t ClOrdIdIndex::store(std::string_view key) {
  if (pageUsed_ + key.size() > kPageBytes) {
    if (pages_.size() >= (std::size_t{1} << 32) / kPageBytes) throw std::length_error("client order id arena full");
    pages_.push_back(std::make_unique<char[]>(kPageBytes));
    pageUsed_ = 0;
  }
  const auto at = static_cast<std::uint32_t>((pages_.size() - 1) * kPageBytes + pageUsed_);
  std::memcpy(pages_.back().get() + pageUsed_, key.data(), key.size());
  pageUsed_ += key.size();
  return at;
}

ClOrdIdIndex::Slot* ClOrdIdIndex::lookup(const Table& t, std::uint64_t hash, std::string_view key) const {
  if (t.capacity == 0) return nullptr;
  const std::size_t mask = t.capacity - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = t.cells[i];
    if (s.state == kEmpty) return nullptr;
    if (s.state == kFull && s.hash == hash && s.length == key.size() && keyOf(s) == key) return &s;
  }
}

void ClOrdIdIndex::insert(Table& t, const Slot& s) {
  const std::size_t mask = t.capacity - 1;
  std::size_t i = s.hash & mask;
  while (t.cells[i].state != kEmpty) i = (i + 1) & mask;  // erased slots stay: see startGrowing
  t.cells[i] = s;
  t.cells[i].state = kFull;
  ++t.used;
}

void ClOrdIdIndex::moveSomeSlots() {
  if (old_.capacity == 0) return;
  for (std::size_t n = 0; n < kSlotsPerOperation && nextOld_ < old_.capacity; ++n, ++nextOld_) {
    Slot& s = old_.cells[nextOld_];
    if (s.state != kFull) continue;
    insert(current_, s);
    s.state = kErased;  // not kEmpty: the slots after it may be on its probe path
  }
  if (nextOld_ == old_.capacity) {
    old_ = Table{};
    nextOld_ = 0;
  }
}

void ClOrdIdIndex::startGrowing() {
  while (old_.capacity != 0) moveSomeSlots();  // one generation at a time (normally long over)
  // Erased slots are dropped as the entries move, so a table of many erasures does not double.
  const bool crowded = live_ * 2 > limitOf(current_.capacity);
  const std::size_t capacity = crowded ? current_.capacity * 2 : current_.capacity;
  old_ = std::move(current_);
  current_ = makeTable(std::max(capacity, kFirstCapacity));
  nextOld_ = 0;
}

bool ClOrdIdIndex::claim(std::string_view clOrdId, OrderId id) {
  // The parsers enforce the length; a longer id here is a bug, not a user's mistake.
  if (clOrdId.size() > kMaxClOrdIdLength)
    throw std::invalid_argument("client order id longer than the protocol allows");
  moveSomeSlots();
  const std::uint64_t hash = std::hash<std::string_view>{}(clOrdId);
  if (lookup(current_, hash, clOrdId) || lookup(old_, hash, clOrdId)) return false;
  if (current_.capacity == 0 || current_.used + 1 > limitOf(current_.capacity)) startGrowing();
  insert(current_, Slot{hash, id, store(clOrdId), static_cast<std::uint8_t>(clOrdId.size()), kFull});
  ++live_;
  return true;
}

void ClOrdIdIndex::erase(std::string_view clOrdId) {
  const std::uint64_t hash = std::hash<std::string_view>{}(clOrdId);
  Slot* s = lookup(current_, hash, clOrdId);
  if (!s) s = lookup(old_, hash, clOrdId);
  if (!s) return;
  s->state = kErased;
  --live_;
  // The usual erasure is a claim given back at once (a rejected order): give its bytes back too.
  if (!pages_.empty() && s->key + s->length == (pages_.size() - 1) * kPageBytes + pageUsed_) pageUsed_ -= s->length;
  moveSomeSlots();
}

std::optional<OrderId> ClOrdIdIndex::find(std::string_view clOrdId) const {
  const std::uint64_t hash = std::hash<std::string_view>{}(clOrdId);
  if (const Slot* s = lookup(current_, hash, clOrdId)) return s->id;
  if (const Slot* s = lookup(old_, hash, clOrdId)) return s->id;
  return std::nullopt;
}

}  // namespace tessera::net
