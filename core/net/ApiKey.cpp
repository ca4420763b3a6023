#include "core/net/ApiKey.h"

#include <sodium.h>

#include <array>
#include <mutex>
#include <stdexcept>

namespace tessera::net {
namespace {

// sodium_init is thread-safe and idempotent, but it can fail (no entropy source): then
// nothing here may run, which is a broken machine, not a user error.
void ensureSodium() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot initialise");
  });
}

}  // namespace

KeyHashCost KeyHashCost::production() { return {crypto_pwhash_OPSLIMIT_INTERACTIVE, 32u << 20}; }

KeyHashCost KeyHashCost::minimal() { return {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN}; }

std::string hashApiKey(std::string_view key, KeyHashCost cost) {
  ensureSodium();
  std::array<char, crypto_pwhash_STRBYTES> out{};
  if (crypto_pwhash_str(out.data(), key.data(), key.size(), cost.opsLimit, cost.memLimit) != 0) {
    throw std::runtime_error("crypto_pwhash_str failed (out of memory?)");
  }
  return std::string(out.data());
}

bool verifyApiKey(std::string_view stored, std::string_view key) {
  if (!isArgon2idHash(stored) || stored.size() >= crypto_pwhash_STRBYTES) return false;
  ensureSodium();
  const std::string terminated(stored);  // the API reads a C string
  return crypto_pwhash_str_verify(terminated.c_str(), key.data(), key.size()) == 0;
}

bool isArgon2idHash(std::string_view stored) { return stored.starts_with("$argon2id$"); }

std::string generateApiKey() {
  ensureSodium();
  std::array<unsigned char, 32> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  std::array<char, sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_URLSAFE_NO_PADDING)> text{};
  sodium_bin2base64(text.data(), text.size(), bytes.data(), bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  sodium_memzero(bytes.data(), bytes.size());
  return std::string(text.data());
}

}  // namespace tessera::net
