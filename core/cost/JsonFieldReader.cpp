#include "core/cost/JsonFieldReader.h"

#include <cmath>
#include <sstream>

namespace tessera::cost {

namespace {
const nlohmann::json& emptyObject() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

std::string formatNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

JsonFieldReader::JsonFieldReader(const nlohmann::json& object, std::string path)
    : object_(object.is_object() ? object : emptyObject()), path_(std::move(path)) {
  if (!object.is_object()) error_ = path_ + ": must be a JSON object";
}

bool JsonFieldReader::has(std::string_view key) const {
  return object_.contains(std::string(key)) && !object_.at(std::string(key)).is_null();
}

void JsonFieldReader::fail(std::string_view key, std::string_view message) {
  if (error_) return;
  error_ = path_ + "." + std::string(key) + ": " + std::string(message);
}

void JsonFieldReader::absorb(const JsonFieldReader& nested) {
  if (!error_ && !nested.ok()) error_ = nested.error();
}

const nlohmann::json* JsonFieldReader::find(std::string_view key, bool required) {
  if (has(key)) return &object_.at(std::string(key));
  if (required) fail(key, "missing required field");
  return nullptr;
}

std::string JsonFieldReader::string(std::string_view key, std::optional<std::string> fallback) {
  const nlohmann::json* v = find(key, !fallback);
  if (!v) return fallback.value_or(std::string{});
  if (!v->is_string()) {
    fail(key, "must be a string");
    return fallback.value_or(std::string{});
  }
  return v->get<std::string>();
}

double JsonFieldReader::number(std::string_view key, double min, double max, std::optional<double> fallback) {
  const nlohmann::json* v = find(key, !fallback);
  if (!v) return fallback.value_or(min);
  if (!v->is_number()) {
    fail(key, "must be a number");
    return fallback.value_or(min);
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    fail(key, "must be between " + formatNumber(min) + " and " + formatNumber(max) + ", got " + formatNumber(d));
    return fallback.value_or(min);
  }
  return d;
}

int JsonFieldReader::integer(std::string_view key, int min, int max, std::optional<int> fallback) {
  const nlohmann::json* v = find(key, !fallback);
  if (!v) return fallback.value_or(min);
  if (!v->is_number_integer()) {
    fail(key, "must be an integer");
    return fallback.value_or(min);
  }
  const auto i = v->get<std::int64_t>();
  if (i < min || i > max) {
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + std::to_string(i));
    return fallback.value_or(min);
  }
  return static_cast<int>(i);
}

bool JsonFieldReader::boolean(std::string_view key, std::optional<bool> fallback) {
  const nlohmann::json* v = find(key, !fallback);
  if (!v) return fallback.value_or(false);
  if (!v->is_boolean()) {
    fail(key, "must be true or false");
    return fallback.value_or(false);
  }
  return v->get<bool>();
}

JsonFieldReader JsonFieldReader::object(std::string_view key, bool required) {
  const nlohmann::json* v = find(key, required);
  if (!v) return JsonFieldReader(emptyObject(), path_ + "." + std::string(key));
  JsonFieldReader nested(*v, path_ + "." + std::string(key));
  absorb(nested);
  return nested;
}

std::vector<JsonFieldReader> JsonFieldReader::objects(std::string_view key, bool required) {
  std::vector<JsonFieldReader> out;
  const nlohmann::json* v = find(key, required);
  if (!v) return out;
  if (!v->is_array()) {
    fail(key, "must be an array");
    return out;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    out.emplace_back((*v)[i], path_ + "." + std::string(key) + "[" + std::to_string(i) + "]");
    absorb(out.back());
  }
  return out;
}

}  // namespace tessera::cost
