#pragma once
// The one SQLite wrapper: every connection the project opens (the market history, the
// exchange's journal and its checkpointer, the snapshot file, and the tests that edit those
// files) is a SqliteDb. It owns the connection (closed when it goes), opens it with a busy
// timeout, runs statements that return no rows, and finalizes prepared statements through
// SqliteStatement. The stores keep their own schemas and their own error wording: each one
// prefixes the text these functions return.
#include <optional>
#include <string>
#include <variant>

struct sqlite3;
struct sqlite3_stmt;

namespace tessera::store {

class SqliteDb {
 public:
  // Opens `path` (a file name, or a file: URI with SQLITE_OPEN_URI in `flags`) with the
  // SQLITE_OPEN_* `flags` and waits up to `busyTimeoutMs` for another connection's lock.
  // The error is SQLite's reason ("unable to open database file").
  [[nodiscard]] static std::variant<SqliteDb, std::string> open(const std::string& path, int flags, int busyTimeoutMs);
  SqliteDb() = default;
  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  // Closes the connection; every statement prepared on it must be finalized first.
  ~SqliteDb();

  // The raw handle, for the sqlite3_* calls of the stores' statements.
  sqlite3* get() const { return db_; }
  operator sqlite3*() const { return db_; }  // NOLINT: the stores pass it to sqlite3_* as is

  // Runs `sql` (one or more statements, no rows wanted); SQLite's message on failure.
  [[nodiscard]] std::optional<std::string> exec(const char* sql) const;
  [[nodiscard]] std::optional<std::string> exec(const std::string& sql) const { return exec(sql.c_str()); }
  // SQLite's message for the last failed call on this connection.
  std::string lastError() const;

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

// A prepared statement, finalized when it goes (however the code using it ends: a statement
// left open makes closing the connection fail and leaks it).
class SqliteStatement {
 public:
  // Prepares `sql` on `db`; ok() says whether it compiled (db.lastError() says why not).
  SqliteStatement(const SqliteDb& db, const char* sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  bool ok() const { return s_ != nullptr; }
  sqlite3_stmt* get() const { return s_; }
  operator sqlite3_stmt*() const { return s_; }  // NOLINT: passed to sqlite3_bind_*/column_* as is

 private:
  sqlite3_stmt* s_ = nullptr;
};

}  // namespace tessera::store
