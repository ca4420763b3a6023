#pragma once
// The body of the message-parser fuzz target, shared by the libFuzzer entry
// (fuzz_message_parser.cpp) and the corpus-driven Qt test (test_client_message.cpp).
#include "core/net/ClientMessage.h"
#include "core/net/FlatMessageParser.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace tessera::net::fuzz {

// The fast parser answers only what the tree parser answers, and answers it the same.
inline bool flatAgreesWithTree(std::string_view line) {
  const auto flat = parseFlatMessage(line);
  if (!flat) return true;
  const auto tree = parseClientMessageWithTree(line);
  const auto* t = std::get_if<ClientMessage>(&tree);
  if (!t || t->req != flat->req || t->request.index() != flat->request.index()) return false;
  if (const auto* a = std::get_if<NewOrder>(&flat->request)) {
    const auto& b = std::get<NewOrder>(t->request);
    return a->clOrdId == b.clOrdId && a->order == b.order;
  }
  if (const auto* a = std::get_if<CancelOrder>(&flat->request)) {
    const auto& b = std::get<CancelOrder>(t->request);
    return a->ref.orderId == b.ref.orderId && a->ref.clOrdId == b.ref.clOrdId;
  }
  return false;  // it reads nothing else
}

// Returns true if `bytes` parsed into a request. Aborts on a broken invariant, which is what
// a fuzzer needs to notice.
inline bool parseOne(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  if (!flatAgreesWithTree(line)) std::abort();
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
