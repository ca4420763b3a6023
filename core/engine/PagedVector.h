#pragma once
// A sequence that grows in fixed pages: elements never move, so growth never copies what is
// there (no stall in the middle of matching) and references stay valid. Unlike std::deque, whose
// blocks hold a single element once elements are large, a page holds many, so indexing reads a
// short, hot page table instead of one map pointer per element. Pages come from a memory
// resource, so that a matcher's orders can live in its EngineMemory.
#include <cstddef>
#include <memory>
#include <memory_resource>
#include <new>
#include <utility>
#include <vector>

namespace tessera {

template <typename T, unsigned PageBits = 10>
class PagedVector {
 public:
  explicit PagedVector(std::pmr::memory_resource* memory = std::pmr::new_delete_resource()) : memory_(memory) {}
  PagedVector(const PagedVector&) = delete;
  PagedVector& operator=(const PagedVector&) = delete;
  ~PagedVector() {
    while (size_ > 0) pop_back();
    for (Storage* p : pages_) freePage(p);
  }

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return page(i)[i & kMask]; }
  const T& operator[](std::size_t i) const { return page(i)[i & kMask]; }
  T& back() { return (*this)[size_ - 1]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    // Not zeroed first: every element is constructed in place before it is read.
    if ((size_ >> PageBits) == pages_.size()) {
      // Room first, so that a failed push cannot lose the page.
      if (pages_.size() == pages_.capacity()) pages_.reserve(2 * pages_.size() + 1);
      pages_.push_back(allocatePage());
    }
    T* p = ::new (static_cast<void*>(&pages_[size_ >> PageBits][size_ & kMask])) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() {
    --size_;
    (*this)[size_].~T();
  }

 private:
  static constexpr std::size_t kPageSize = std::size_t{1} << PageBits;
  static constexpr std::size_t kMask = kPageSize - 1;
  struct alignas(T) Storage {
    unsigned char bytes[sizeof(T)];
  };
  T* page(std::size_t i) const { return std::launder(reinterpret_cast<T*>(pages_[i >> PageBits])); }
  static constexpr std::size_t kPageBytes = kPageSize * sizeof(Storage);
  Storage* allocatePage() { return static_cast<Storage*>(memory_->allocate(kPageBytes, alignof(Storage))); }
  void freePage(Storage* p) noexcept { memory_->deallocate(p, kPageBytes, alignof(Storage)); }

  std::pmr::memory_resource* memory_;
  std::vector<Storage*> pages_;
  std::size_t size_ = 0;
};

}  // namespace tessera
