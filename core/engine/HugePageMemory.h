#pragma once
// Memory for the engine's large, randomly read structures: orders, levels' entries and per-hour
// counts, orders' per-hour quantities, holdings. A busy book is tens of megabytes read at random,
// a line at a time; with 4 KB pages nearly every such read also misses the TLB and waits for a
// page walk on top of the cache miss. In 2 MB pages the same book fits the TLB.
//
// Huge pages are only used where they were faulted in ahead of time (the prefaulted part): the
// first touch of a fresh 2 MB page can stall for milliseconds while the kernel finds or compacts
// the memory (4.4 ms on the VM the benchmarks ran on), and a matcher must not stop for that in
// the middle of an input. So a matcher is given, when it starts, as much memory as its book is
// expected to need, touched page by page there; beyond it, memory comes in ordinary pages, which
// fault 4 KB at a time. Transparent huge pages are asked for with madvise, which the usual
// "madvise" setting honours; where the kernel has them off, the prefaulted part is ordinary
// memory that is already faulted in.
#include <cstddef>
#include <memory_resource>
#include <vector>

namespace tessera {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// A zeroed mapping of at least `bytes` (rounded up to huge pages), aligned to a huge page. With
// `huge`, advised to be in huge pages. Throws std::bad_alloc if the system has no memory left.
void* mapPages(std::size_t bytes, bool huge);
// Gives back a mapping from mapPages of the same `bytes`.
void unmapPages(void* mapping, std::size_t bytes) noexcept;

// One matcher's memory. Requests are rounded up to a size class (64-byte steps up to 4 KB, then
// powers of two); classes under a huge page are carved from 2 MB blocks, larger ones are runs of
// whole blocks. A block given back is handed out again for its class: O(1) both ways (std::pmr's
// pool resources search their chunks on every deallocation), and nothing goes back to the system
// before the memory is destroyed, so memory once faulted in stays so. Alignments up to a huge page
// are honoured. Not thread-safe: a matcher is used from one thread.
class EngineMemory final : public std::pmr::memory_resource {
 public:
  // Maps `prefaultBytes` (rounded up to huge pages) in huge pages and touches every page of it,
  // which can take a while (milliseconds per huge page on a VM): do it before trading starts.
  explicit EngineMemory(std::size_t prefaultBytes = 0);
  EngineMemory(const EngineMemory&) = delete;
  EngineMemory& operator=(const EngineMemory&) = delete;
  ~EngineMemory() override;

  std::size_t prefaultedBytes() const { return static_cast<std::size_t>(prefaultedEnd_ - prefaulted_); }
  // Blocks carved so far (from the prefaulted part and beyond), whether in use or given back.
  std::size_t carvedBytes() const { return carved_; }

  // The size of the blocks of the class a request of `bytes` falls in (for tests).
  static std::size_t blockSize(std::size_t bytes) { return classSize(classOf(bytes)); }

 private:
  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t kFineLimit = 4096;
  static constexpr std::size_t kFineClasses = kFineLimit / kLine;
  static constexpr std::size_t kClasses = kFineClasses + 40;  // 8 KB ... 4 TB
  static std::size_t classedBytes(std::size_t bytes, std::size_t alignment);
  static std::size_t classOf(std::size_t bytes);
  static std::size_t classSize(std::size_t c);

  // `bytes` (a multiple of a huge page) of contiguous blocks: the next of the prefaulted part, or
  // a mapping of ordinary pages once that is used up.
  std::byte* takeBlocks(std::size_t bytes);

  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::byte* prefaulted_ = nullptr;  // the prefaulted mapping
  std::byte* prefaultedNext_ = nullptr;
  std::byte* prefaultedEnd_ = nullptr;
  struct Mapping {
    void* at;
    std::size_t bytes;
  };
  std::vector<Mapping> mappings_;          // beyond the prefaulted part
  std::vector<void*> reusable_[kClasses];  // by class: blocks given back, to be handed out again
  std::byte* next_ = nullptr;              // what is left of the block being carved
  std::size_t left_ = 0;
  std::size_t carved_ = 0;
};

}  // namespace tessera
