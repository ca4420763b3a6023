#pragma once
// Memory for the engine's large, randomly read structures, in 2 MB pages where the kernel allows
// it. A busy book's orders and per-hour arrays are tens of megabytes read at random, a line at a
// time: with 4 KB pages nearly every such read also missed the TLB and waited for a page walk on
// top of the cache miss. Transparent huge pages are asked for with madvise, which the usual
// "madvise" setting honours; where the kernel has them off this is ordinary memory (the same
// behaviour, only slower).
#include <cstddef>
#include <memory_resource>
#include <vector>

namespace tessera {

// The size blocks are rounded up to: one huge page.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// A zeroed block of at least `bytes`, aligned to a huge page. Throws std::bad_alloc if the
// system has no memory left.
void* allocateHugePages(std::size_t bytes);
// Gives back a block from allocateHugePages of the same `bytes`.
void freeHugePages(void* block, std::size_t bytes) noexcept;

// One matcher's memory for its per-order and per-level arrays (orders' per-hour quantities,
// levels' entries and per-hour counts, holdings). Blocks are carved from huge pages by size
// class, and a block given back is handed out again for its class; a request of half a huge
// page or more gets a mapping of its own. O(1) both ways, unlike std::pmr's pool resources,
// which search their chunks on every deallocation. Not thread-safe: a matcher is used from one
// thread. Everything goes back to the system with it.
class EngineMemory final : public std::pmr::memory_resource {
 public:
  EngineMemory() = default;
  EngineMemory(const EngineMemory&) = delete;
  EngineMemory& operator=(const EngineMemory&) = delete;
  ~EngineMemory() override;

  // The size of the blocks of the class a request of `bytes` falls in (for tests).
  static std::size_t blockSize(std::size_t bytes) { return classSize(classOf(bytes)); }

 private:
  // 64-byte steps up to 4 KB (per-hour arrays of up to a thousand hours waste at most a line),
  // then powers of two up to half a huge page.
  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t kFineLimit = 4096;
  static constexpr std::size_t kFineClasses = kFineLimit / kLine;
  static constexpr std::size_t kClasses = kFineClasses + 8;  // 8 KB ... 1 MB
  static constexpr std::size_t kOwnMapping = kHugePageBytes / 2;
  static std::size_t classOf(std::size_t bytes);
  static std::size_t classSize(std::size_t c);

  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::vector<void*> blocks_;              // the huge-page blocks carved, each kHugePageBytes
  std::vector<void*> reusable_[kClasses];  // by class: blocks given back, to be handed out again
  std::byte* next_ = nullptr;              // what is left of the newest block
  std::size_t left_ = 0;
};

}  // namespace tessera
