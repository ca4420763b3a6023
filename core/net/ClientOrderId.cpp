#include "core/net/ClientOrderId.h"

#include "core/engine/EventJson.h"

#include <nlohmann/json.hpp>

#include <sodium.h>

#include <array>
#include <stdexcept>

namespace tessera::net {

std::string clOrdIdFor(const std::string& account, const OrderRequest& order) { return clOrdIdFor(account, order, {}); }

std::string clOrdIdFor(const std::string& account, const OrderRequest& order, const std::string& context) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot initialise");
  nlohmann::json j = toJson(order);
  j.erase("id");
  j.erase("account");
  // nlohmann's objects keep their keys sorted, so the dump is one canonical text per order.
  // Without a context the text is what it is for every `cli-` id already given out.
  const std::string text = account + '\n' + j.dump() + (context.empty() ? std::string() : '\n' + context);
  std::array<unsigned char, crypto_generichash_BYTES_MIN> hash{};  // 16 bytes
  crypto_generichash(hash.data(), hash.size(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                     nullptr, 0);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "cli-";
  for (unsigned char b : hash) {
    id += kHex[b >> 4];
    id += kHex[b & 15];
  }
  return id;
}

}  // namespace tessera::net
