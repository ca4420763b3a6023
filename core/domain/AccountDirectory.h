#pragma once
// Maps account names (what people and files use) to the dense AccountIds the engine uses.
#include "core/domain/Types.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera {

class AccountDirectory {
 public:
  // Returns the id of `name`, assigning the next free id (starting at 1) on first use.
  AccountId intern(std::string_view name);
  std::optional<AccountId> find(std::string_view name) const;
  // The name of `id`, or "#<id>" for an id that was never interned.
  std::string name(AccountId id) const;
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, AccountId> ids_;
  std::vector<std::string> names_;  // names_[id - 1]
};

}  // namespace tessera
