#pragma once
// The messages that arrive by the hundred thousand (new_order with only flat fields, cancel),
// read without building a JSON tree: the tree parser spends about 2 us a new_order allocating
// its nodes, a large share of the io thread's time per order (bench/net/README.md).
//
// It answers only when it is sure: a message of one of those types, every field one it knows,
// with a valid value, in plain JSON (no escapes, no non-ASCII bytes, no control bytes, no
// whitespace but spaces, no nulls, no duplicate keys, nothing after the object, integers
// without fraction or exponent). Anything else, every error included, gets
// nullopt and is left to the tree parser, so errors are always worded by one parser.
// tests/net/test_flat_message_parser.cpp holds it to the tree parser on many random lines.
#include "core/net/ClientMessage.h"

#include <optional>
#include <string_view>

namespace tessera::net {

std::optional<ClientMessage> parseFlatMessage(std::string_view line);

}  // namespace tessera::net
