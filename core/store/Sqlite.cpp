#include "core/store/Sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace tessera::store {

std::variant<SqliteDb, std::string> SqliteDb::open(const std::string& path, int flags, int busyTimeoutMs) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    // sqlite3_open_v2 hands back a connection (to be closed) even when it fails, except when
    // it could not allocate one.
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return why;
  }
  sqlite3_busy_timeout(db, busyTimeoutMs);
  return SqliteDb(db);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

std::optional<std::string> SqliteDb::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) == SQLITE_OK) return std::nullopt;
  std::string msg = err ? err : sqlite3_errmsg(db_);
  sqlite3_free(err);
  return msg;
}

std::string SqliteDb::lastError() const { return db_ ? sqlite3_errmsg(db_) : "no connection"; }

SqliteStatement::SqliteStatement(const SqliteDb& db, const char* sql) {
  if (sqlite3_prepare_v2(db.get(), sql, -1, &s_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s_);
    s_ = nullptr;
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(s_); }

}  // namespace tessera::store
