#include "core/engine/HugePageMemory.h"

#include <sys/mman.h>

#include <bit>
#include <cstdint>
#include <new>

namespace tessera {

namespace {
std::size_t roundedUp(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }
}  // namespace

void* allocateHugePages(std::size_t bytes) {
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
  // Advice only: without it (or where it fails) the block is ordinary memory.
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void freeHugePages(void* block, std::size_t bytes) noexcept {
  if (block) munmap(block, roundedUp(bytes, kHugePageBytes));
}

std::size_t EngineMemory::classOf(std::size_t bytes) {
  if (bytes <= kFineLimit) return bytes == 0 ? 0 : (bytes - 1) / kLine;
  // 4 KB < bytes <= 8 KB is the first class after the fine ones.
  return kFineClasses + static_cast<std::size_t>(std::bit_width(bytes - 1)) - 13;
}

std::size_t EngineMemory::classSize(std::size_t c) {
  return c < kFineClasses ? (c + 1) * kLine : std::size_t{1} << (c - kFineClasses + 13);
}

EngineMemory::~EngineMemory() {
  for (void* b : blocks_) freeHugePages(b, kHugePageBytes);
}

void* EngineMemory::do_allocate(std::size_t bytes, std::size_t alignment) {
  // Blocks start on a line: no alignment a matcher asks for is larger.
  if (bytes >= kOwnMapping || alignment > kLine) return allocateHugePages(bytes);
  const std::size_t c = classOf(bytes);
  if (auto& reusable = reusable_[c]; !reusable.empty()) {
    void* p = reusable.back();
    reusable.pop_back();
    return p;
  }
  const std::size_t size = classSize(c);
  if (size > left_) {
    if (blocks_.size() == blocks_.capacity()) blocks_.reserve(2 * blocks_.size() + 1);
    blocks_.push_back(allocateHugePages(kHugePageBytes));
    next_ = static_cast<std::byte*>(blocks_.back());
    left_ = kHugePageBytes;
  }
  void* p = next_;
  next_ += size;
  left_ -= size;
  return p;
}

void EngineMemory::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  if (bytes >= kOwnMapping || alignment > kLine) {
    freeHugePages(p, bytes);
    return;
  }
  reusable_[classOf(bytes)].push_back(p);
}

}  // namespace tessera
