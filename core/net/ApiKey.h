#pragma once
// API keys: generated at random, stored only as libsodium's Argon2id string
// ("$argon2id$v=19$m=...,t=...,p=1$salt$hash", which carries its own salt and cost), checked
// with crypto_pwhash_str_verify. A check costs what the stored string says (production: about
// 25 ms and 32 MiB), so it never runs on the matching thread (LogonGate.h runs it).
#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::net {

// Argon2id's cost: passes over memory and the memory itself.
struct KeyHashCost {
  unsigned long long opsLimit = 0;
  std::size_t memLimit = 0;

  // For accounts files: about 25 ms and 32 MiB a check on this project's 2-core machine.
  static KeyHashCost production();
  // libsodium's minimum (microseconds): for tests and the embedded demo market only, whose
  // keys are public anyway. Never the default of anything.
  static KeyHashCost minimal();
};

// The stored form of `key`, with a fresh random salt.
[[nodiscard]] std::string hashApiKey(std::string_view key, KeyHashCost cost);
// True if `key` is the key `stored` (an Argon2id string) was made from. False for anything
// else, a stored string of another form included.
[[nodiscard]] bool verifyApiKey(std::string_view stored, std::string_view key);
// True if `stored` is in the Argon2id string form (older files held hex SHA-256).
[[nodiscard]] bool isArgon2idHash(std::string_view stored);
// A new key: 32 random bytes, base64url without padding (43 characters).
[[nodiscard]] std::string generateApiKey();

}  // namespace tessera::net
