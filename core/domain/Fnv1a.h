#pragma once
// FNV-1a, 64 bits: a fast, stable (across runs, builds and machines) hash of bytes, for digests
// that compare two states or two event streams. Not for hash tables keyed by untrusted input
// and not cryptographic.
#include <cstdint>
#include <string_view>

namespace tessera {

class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (char c : bytes) h_ = (h_ ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ull;
};

}  // namespace tessera
