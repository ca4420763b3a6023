#pragma once
// Checks of command-line values that the programs share (tessera-cli, tessera-backtest,
// tessera-exchange), as CLI11 validators whose refusals read plainly: "--latency-us must be 0 or
// more, got -500" rather than a range up to the largest double.
#include "core/domain/Cluster.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdlib>
#include <string>

namespace tessera::cli {

namespace detail {
inline bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}
}  // namespace detail

// A whole number, all of it (CLI11's numeric checks accept 1.5 and 1e3).
inline const CLI::Validator WholeNumber(
    [](std::string& s) {
      long long v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      return ec == std::errc() && end == s.data() + s.size() ? std::string() : "'" + s + "' is not a whole number";
    },
    "INT");

// 0 or more.
inline const CLI::Validator NonNegative(
    [](std::string& s) {
      double v = 0;
      if (!detail::number(s, v)) return "'" + s + "' is not a number";
      return v >= 0 ? std::string() : "must be 0 or more, got " + s;
    },
    ">=0");

// More than 0.
inline const CLI::Validator Positive(
    [](std::string& s) {
      double v = 0;
      if (!detail::number(s, v)) return "'" + s + "' is not a number";
      return v > 0 ? std::string() : "must be more than 0, got " + s;
    },
    ">0");

// An accelerator class by its name (H100, MI300X, ...), as Cluster.h spells them.
inline const CLI::Validator AcceleratorName(
    [](std::string& s) {
      if (parseAccelerator(s)) return std::string();
      std::string known;
      for (int a = 0; a <= static_cast<int>(Accelerator::RTX4090); ++a)
        known += (a ? ", " : "") + std::string(toString(static_cast<Accelerator>(a)));
      return "unknown GPU kind '" + s + "' (one of " + known + ")";
    },
    "KIND");

}  // namespace tessera::cli
