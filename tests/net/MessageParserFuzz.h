#pragma once
// The body of the message-parser fuzz target, shared by the libFuzzer entry
// (fuzz_message_parser.cpp) and the corpus-driven Qt test (test_client_message.cpp).
#include "core/net/ClientMessage.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace tessera::net::fuzz {

// Returns true if `bytes` parsed into a request. Aborts on a broken invariant, which is what
// a fuzzer needs to notice.
inline bool parseOne(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto result = parseClientMessage(line);
  if (auto* e = std::get_if<ParseError>(&result)) {
    if (e->code.empty() || e->reason.empty()) std::abort();
    return false;
  }
  const auto& m = std::get<ClientMessage>(result);
  if (typeName(m.request).empty()) std::abort();
  if (auto* o = std::get_if<NewOrder>(&m.request)) {
    if (o->clOrdId.empty() || o->clOrdId.size() > kMaxClOrdIdLength) std::abort();
  }
  return true;
}

}  // namespace tessera::net::fuzz
