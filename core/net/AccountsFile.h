#pragma once
// Edits of the accounts file (resources/exchange/accounts.json) for `tessera-exchange accounts`:
// a new account with a new key, or a new key for an account. The key is generated here and
// returned once (the file keeps only its Argon2id hash). The file is rewritten whole and
// atomically (a temporary file in the same folder, fsync, rename): a crash leaves the old file
// or the new one, never half of one. Its other entries and members are kept in their order.
#include "core/domain/Order.h"
#include "core/net/ApiKey.h"

#include <string>
#include <variant>

namespace tessera::net {

struct AccountsFileError {
  std::string message;
};

// Adds account `name` with `cash` (micro-dollars); creates the file if it does not exist.
// Refuses a name already there. Returns the new key.
[[nodiscard]] std::variant<std::string, AccountsFileError> addAccount(const std::string& path, const std::string& name,
                                                                      Money cash, bool house, KeyHashCost cost);
// Gives account `name` a new key (replacing an old-style hash and its salt too). Returns it.
[[nodiscard]] std::variant<std::string, AccountsFileError> rotateAccountKey(const std::string& path,
                                                                            const std::string& name, KeyHashCost cost);

}  // namespace tessera::net
