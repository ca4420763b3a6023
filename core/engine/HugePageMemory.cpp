#include "core/engine/HugePageMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <new>

namespace tessera {

namespace {
std::size_t roundedUp(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }
}  // namespace

void* mapPages(std::size_t bytes, bool huge) {
  const std::size_t size = roundedUp(bytes, kHugePageBytes);
  // mmap aligns to 4 KB only: map a huge page more and trim both ends to the aligned block.
  const std::size_t mapped = size + kHugePageBytes;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = roundedUp(at, kHugePageBytes);
  if (aligned > at) munmap(p, aligned - at);
  const std::uintptr_t tail = at + mapped - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  // Advice only: where it fails the mapping is ordinary memory.
  if (huge) madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void unmapPages(void* mapping, std::size_t bytes) noexcept {
  if (mapping) munmap(mapping, roundedUp(bytes, kHugePageBytes));
}

EngineMemory::EngineMemory(std::size_t prefaultBytes) {
  if (prefaultBytes == 0) return;
  const std::size_t size = roundedUp(prefaultBytes, kHugePageBytes);
  prefaulted_ = static_cast<std::byte*>(mapPages(size, true));
  prefaultedNext_ = prefaulted_;
  prefaultedEnd_ = prefaulted_ + size;
  // Every small page, not only every huge one: where the kernel could not give a huge page it
  // gave a small one, and the rest of those 2 MB would still fault later.
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (std::byte* q = prefaulted_; q < prefaultedEnd_; q += page)
    *reinterpret_cast<volatile std::byte*>(q) = std::byte{0};
}

EngineMemory::~EngineMemory() {
  unmapPages(prefaulted_, prefaultedBytes());
  for (const Mapping& m : mappings_) unmapPages(m.at, m.bytes);
}

std::size_t EngineMemory::classedBytes(std::size_t bytes, std::size_t alignment) {
  // Blocks of a class start on a line at least; a larger alignment (which no container of the
  // engine asks for) is met by a run of whole huge pages.
  return alignment > kLine && bytes < kHugePageBytes ? kHugePageBytes : bytes;
}

std::size_t EngineMemory::classOf(std::size_t bytes) {
  if (bytes <= kFineLimit) return bytes == 0 ? 0 : (bytes - 1) / kLine;
  // 4 KB < bytes <= 8 KB is the first class after the fine ones.
  return kFineClasses + static_cast<std::size_t>(std::bit_width(bytes - 1)) - 13;
}

std::size_t EngineMemory::classSize(std::size_t c) {
  return c < kFineClasses ? (c + 1) * kLine : std::size_t{1} << (c - kFineClasses + 13);
}

std::byte* EngineMemory::takeBlocks(std::size_t bytes) {
  if (bytes <= static_cast<std::size_t>(prefaultedEnd_ - prefaultedNext_)) {
    std::byte* p = prefaultedNext_;
    prefaultedNext_ += bytes;
    carved_ += bytes;
    return p;
  }
  // Room first, so that a failed push cannot lose the mapping.
  if (mappings_.size() == mappings_.capacity()) mappings_.reserve(2 * mappings_.size() + 1);
  auto* p = static_cast<std::byte*>(mapPages(bytes, false));
  mappings_.push_back({p, bytes});
  carved_ += bytes;
  return p;
}

void* EngineMemory::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (alignment > kHugePageBytes) throw std::bad_alloc();
  bytes = classedBytes(bytes, alignment);
  const std::size_t c = classOf(bytes);
  if (c >= kClasses) throw std::bad_alloc();
  if (auto& reusable = reusable_[c]; !reusable.empty()) {
    void* p = reusable.back();
    reusable.pop_back();
    return p;
  }
  const std::size_t size = classSize(c);
  if (size >= kHugePageBytes) return takeBlocks(size);
  if (size > left_) {
    next_ = takeBlocks(kHugePageBytes);
    left_ = kHugePageBytes;
  }
  void* p = next_;
  next_ += size;
  left_ -= size;
  return p;
}

void EngineMemory::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  reusable_[classOf(classedBytes(bytes, alignment))].push_back(p);
}

}  // namespace tessera
