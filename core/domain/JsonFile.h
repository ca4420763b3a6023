#pragma once
// The one loader of the project's JSON files (topologies, workloads, the exchange's
// configuration and accounts): reads the whole file and parses it, or says which file and why
// not. What the document must contain is each reader's business (TopologyJson, WorkloadJson,
// ExchangeConfig, AccountsFile).
#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string>
#include <variant>

namespace tessera {

// "<path>: cannot open file" or "<path>: not valid JSON (<parser's reason>)".
struct JsonFileError {
  std::string message;
};

// Json is nlohmann::json, or nlohmann::ordered_json for a file written back in its own order.
template <class Json = nlohmann::json>
[[nodiscard]] std::variant<Json, JsonFileError> readJsonFile(const std::filesystem::path& file);

extern template std::variant<nlohmann::json, JsonFileError> readJsonFile(const std::filesystem::path&);
extern template std::variant<nlohmann::ordered_json, JsonFileError> readJsonFile(const std::filesystem::path&);

}  // namespace tessera
