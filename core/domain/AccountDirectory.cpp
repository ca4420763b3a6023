#include "core/domain/AccountDirectory.h"

namespace tessera {

AccountId AccountDirectory::intern(std::string_view name) {
  auto it = ids_.find(std::string(name));
  if (it != ids_.end()) return it->second;
  names_.emplace_back(name);
  const auto id = static_cast<AccountId>(names_.size());
  ids_.emplace(std::string(name), id);
  return id;
}

std::optional<AccountId> AccountDirectory::find(std::string_view name) const {
  auto it = ids_.find(std::string(name));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::string AccountDirectory::name(AccountId id) const {
  if (id >= 1 && id <= names_.size()) return names_[id - 1];
  return "#" + std::to_string(id);
}

}  // namespace tessera
