#pragma once
// Reads typed fields out of a JSON object and remembers the first problem, so a loader can
// read every field in sequence and report one clear message ("topology.fabric.rails_per_node:
// must be a positive integer") instead of throwing on the first bad value.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cost {

class JsonFieldReader {
 public:
  JsonFieldReader(const nlohmann::json& object, std::string path);

  bool ok() const { return !error_; }
  const std::string& error() const { return *error_; }
  const std::string& path() const { return path_; }
  bool has(std::string_view key) const;

  // Each reader returns `fallback` when the key is absent and optional, and records an error
  // when the key is required and absent, or present with the wrong type or out of range.
  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt);
  double number(std::string_view key, double min, double max, std::optional<double> fallback = std::nullopt);
  int integer(std::string_view key, int min, int max, std::optional<int> fallback = std::nullopt);
  bool boolean(std::string_view key, std::optional<bool> fallback = std::nullopt);
  // A nested object; a reader over an empty object (and an error) when it is missing or not one.
  JsonFieldReader object(std::string_view key, bool required);
  // The elements of an array of objects.
  std::vector<JsonFieldReader> objects(std::string_view key, bool required);

  void fail(std::string_view key, std::string_view message);
  // Takes over the first error of a nested reader.
  void absorb(const JsonFieldReader& nested);

 private:
  const nlohmann::json* find(std::string_view key, bool required);

  const nlohmann::json& object_;
  std::string path_;
  std::optional<std::string> error_;
};

}  // namespace tessera::cost
