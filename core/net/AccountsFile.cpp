#include "core/net/AccountsFile.h"

#include "core/domain/JsonFile.h"

#include "core/net/Utf8.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace tessera::net {
namespace {

// Keeps members in the order the file has them, so an edit changes only what it must.
using ojson = nlohmann::ordered_json;

std::variant<ojson, AccountsFileError> readFile(const std::string& path, bool mayBeMissing) {
  std::error_code ec;
  if (mayBeMissing && !std::filesystem::exists(path, ec)) return ojson{{"accounts", ojson::array()}};
  auto read = readJsonFile<ojson>(path);
  if (auto* err = std::get_if<JsonFileError>(&read)) return AccountsFileError{err->message};
  ojson& j = std::get<ojson>(read);
  if (!j.is_object()) return AccountsFileError{"'" + path + "' must hold a JSON object"};
  if (!j.contains("accounts")) j["accounts"] = ojson::array();
  if (!j["accounts"].is_array()) return AccountsFileError{path + ": 'accounts' must be an array"};
  return std::move(j);
}

bool named(const ojson& account, const std::string& name) {
  if (!account.is_object()) return false;
  auto it = account.find("name");
  return it != account.end() && it->is_string() && it->get_ref<const std::string&>() == name;
}

std::string errnoText() { return std::strerror(errno); }

// Writes `text` to a temporary file next to `path`, flushes it to disk and renames it over
// `path`, then flushes the folder so the rename itself survives a power cut. The new file
// gets the old one's permissions (0600 for a new file: it holds key hashes).
std::optional<AccountsFileError> writeAtomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string hidden = ".";  // appended, not "." + name: GCC 12 warns (-Wrestrict) on that
  hidden += target.filename().string();
  hidden += ".XXXXXX";
  std::string tmpl = (dir / hidden).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return AccountsFileError{"cannot create a temporary file in '" + dir.string() + "': " + errnoText()};
  struct stat st {};
  ::fchmod(fd, ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0600);
  std::size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const std::string writeError = ok ? "" : errnoText();
  ::close(fd);
  if (!ok || ::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = ok ? errnoText() : writeError;
    ::unlink(tmpl.c_str());
    return AccountsFileError{"cannot write '" + path + "': " + why};
  }
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return std::nullopt;
}

std::optional<AccountsFileError> checkName(const std::string& name) {
  if (name.empty() || name.size() > 64) return AccountsFileError{"an account name is 1 to 64 bytes"};
  if (firstInvalidUtf8(name) != std::string_view::npos) return AccountsFileError{"an account name must be UTF-8"};
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return AccountsFileError{"an account name may not hold control characters"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<std::string, AccountsFileError> addAccount(const std::string& path, const std::string& name, Money cash,
                                                        bool house, KeyHashCost cost) {
  if (auto e = checkName(name)) return *e;
  if (cash < 0) return AccountsFileError{"cash may not be negative"};
  auto read = readFile(path, /*mayBeMissing=*/true);
  if (auto* e = std::get_if<AccountsFileError>(&read)) return *e;
  ojson& j = std::get<ojson>(read);
  for (const ojson& a : j["accounts"]) {
    if (named(a, name)) {
      return AccountsFileError{"account '" + name + "' is already in '" + path +
                               "' (to give it a new key: accounts rotate-key " + name + ")"};
    }
  }
  std::string key = generateApiKey();
  j["accounts"].push_back(ojson{{"name", name}, {"key_hash", hashApiKey(key, cost)}, {"cash", cash}, {"house", house}});
  if (auto e = writeAtomically(path, j.dump(2) + "\n")) return *e;
  return key;
}

std::variant<std::string, AccountsFileError> rotateAccountKey(const std::string& path, const std::string& name,
                                                              KeyHashCost cost) {
  auto read = readFile(path, /*mayBeMissing=*/false);
  if (auto* e = std::get_if<AccountsFileError>(&read)) return *e;
  ojson& j = std::get<ojson>(read);
  for (ojson& a : j["accounts"]) {
    if (!named(a, name)) continue;
    std::string key = generateApiKey();
    a["key_hash"] = hashApiKey(key, cost);
    a.erase("salt");  // the old SHA-256 form's; Argon2id's string carries its own
    if (auto e = writeAtomically(path, j.dump(2) + "\n")) return *e;
    return key;
  }
  return AccountsFileError{"no account '" + name + "' in '" + path + "'"};
}

}  // namespace tessera::net
