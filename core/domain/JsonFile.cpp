#include "core/domain/JsonFile.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace tessera {

template <class Json>
std::variant<Json, JsonFileError> readJsonFile(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return JsonFileError{file.string() + ": cannot open file"};
  try {
    return Json::parse(in);
  } catch (const typename Json::parse_error& e) {
    return JsonFileError{file.string() + ": not valid JSON (" + e.what() + ")"};
  }
}

template std::variant<nlohmann::json, JsonFileError> readJsonFile(const std::filesystem::path&);
template std::variant<nlohmann::ordered_json, JsonFileError> readJsonFile(const std::filesystem::path&);

}  // namespace tessera
