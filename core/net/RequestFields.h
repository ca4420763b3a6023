#pragma once
// The one reading path of the desks' JSON requests (core/net/ForwardDesk, core/net/OptionDesk).
#include "core/domain/Cluster.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tessera::net {

// Limits and forms the desks' requests and replies share.
namespace desk {
inline constexpr std::size_t kMaxClOrdId = 64;
inline constexpr std::size_t kBookLevels = 10;                 // depth levels a book reply lists
inline constexpr std::uint64_t kMaxHourField = 1'000'000'000;  // an hour field's upper bound
inline std::string_view sideName(Side s) { return s == Side::Buy ? "buy" : "sell"; }
inline std::string line(const nlohmann::json& j) { return j.dump() + "\n"; }
}  // namespace desk

// Field checks of the desks' requests (forward_*, option_*): every field named, typed and in
// range, nothing extra; the first failure is kept as {code, reason} with the protocol's codes.
struct RequestFields {
  const nlohmann::json& j;
  std::optional<std::pair<std::string, std::string>> failure;

  bool only(std::initializer_list<const char*> allowed) {
    for (const auto& [key, value] : j.items()) {
      if (key == "type" || key == "req") continue;
      bool known = false;
      for (const char* a : allowed) known = known || key == a;
      if (!known) return fail("unknown_field", "unknown field '" + key + "'");
    }
    return true;
  }
  bool fail(std::string code, std::string reason) {
    if (!failure) failure = std::pair{std::move(code), std::move(reason)};
    return false;
  }
  std::uint64_t positive(const char* name, std::uint64_t max) {
    auto it = j.find(name);
    if (it == j.end()) return fail("bad_field", std::string("field '") + name + "' is required"), 0;
    // Parsed text keeps non-negative integers unsigned, built objects keep them signed.
    const bool integer = it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() > 0);
    if (!integer || it->get<std::uint64_t>() == 0 || it->get<std::uint64_t>() > max)
      return fail("bad_field", std::string("field '") + name + "' must be an integer from 1 to " + std::to_string(max)),
             0;
    return it->get<std::uint64_t>();
  }
  std::string text(const char* name, std::size_t maxLen) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string() || it->get_ref<const std::string&>().empty() ||
        it->get_ref<const std::string&>().size() > maxLen)
      return fail("bad_field", std::string("field '") + name + "' must be a string of 1 to " + std::to_string(maxLen) +
                                   " characters"),
             std::string();
    return it->get<std::string>();
  }
  Accelerator accelerator() {
    const std::string s = text("accelerator", 16);
    if (failure) return Accelerator::H100;
    auto a = parseAccelerator(s);
    if (!a) return fail("bad_field", "unknown accelerator '" + s + "'"), Accelerator::H100;
    return *a;
  }
};

}  // namespace tessera::net
