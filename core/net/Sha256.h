#pragma once
// SHA-256 (FIPS 180-4), written here because the project links no crypto library.
// Used only to store API keys hashed; it is not meant for anything adversarial beyond that.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::net {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  Sha256Digest finish();  // the object must not be updated afterwards

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t totalBytes_ = 0;
};

Sha256Digest sha256(std::string_view bytes);
std::string toHex(const Sha256Digest& d);
std::string sha256Hex(std::string_view bytes);

// The stored form of an API key: hex(SHA-256(salt + ":" + key)). The salt is per account, so
// two accounts with the same key have different hashes.
std::string hashApiKey(std::string_view salt, std::string_view key);
// Compares without an early exit, so the time taken does not reveal how much of a hash matched.
bool constantTimeEquals(std::string_view a, std::string_view b);

}  // namespace tessera::net
