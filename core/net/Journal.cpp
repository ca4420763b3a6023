#include "core/net/Journal.h"

#include <sqlite3.h>

#include <chrono>
#include <optional>
#include <stdexcept>

namespace tessera::net {

std::variant<std::unique_ptr<Journal>, std::string> Journal::open(const std::string& path,
                                                                  bool syncFull) {
  std::unique_ptr<Journal> j(new Journal());
  if (sqlite3_open_v2(path.c_str(), &j->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    std::string msg = "cannot open journal '" + path + "': " +
                      (j->db_ ? sqlite3_errmsg(j->db_) : "out of memory");
    return msg;
  }
  // A second process on the same journal waits a little for the lock, then fails clearly.
  sqlite3_busy_timeout(j->db_, 2000);
  auto formatOf = [&]() -> std::optional<std::string> {
    sqlite3_stmt* check = nullptr;
    std::optional<std::string> format;
    if (sqlite3_prepare_v2(j->db_, "SELECT value FROM meta WHERE key='format'", -1, &check,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(check) == SQLITE_ROW) {
      format = reinterpret_cast<const char*>(sqlite3_column_text(check, 0));
    }
    sqlite3_finalize(check);
    return format;
  };
  try {
    j->exec("PRAGMA journal_mode=WAL");
    j->exec(syncFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    if (!formatOf()) {
      j->exec("BEGIN IMMEDIATE");
      j->exec(
          "CREATE TABLE IF NOT EXISTS journal ("
          " seq INTEGER PRIMARY KEY,"
          " cl_ord_id TEXT NOT NULL,"
          " input TEXT NOT NULL)");
      j->exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      j->exec("INSERT OR IGNORE INTO meta(key, value) VALUES ('format', 'tessera-journal-1')");
      j->exec("COMMIT");
    }
  } catch (const std::exception& e) {
    return std::string("cannot use journal '") + path + "': " + e.what();
  }
  const auto format = formatOf();
  if (!format) return "journal '" + path + "' is not readable: " + sqlite3_errmsg(j->db_);
  if (*format != "tessera-journal-1") {
    return "journal '" + path + "' has unknown format '" + *format + "'";
  }
  if (path != ":memory:" && !path.empty()) {
    // The background thread copies the WAL into the database as it grows; under sustained
    // writes it can never finish (new frames keep coming), so the writer itself completes a
    // checkpoint once the WAL passes 16384 pages (64 MiB). By then little is left to copy, and
    // the next batch starts the WAL over from the beginning.
    j->exec("PRAGMA wal_autocheckpoint=16384");
    j->exec("PRAGMA journal_size_limit=67108864");  // a reset WAL is truncated to 64 MiB
    j->checkpointer_ = std::thread([jp = j.get(), path] { jp->checkpointLoop(path); });
  }
  if (sqlite3_prepare_v2(j->db_, "INSERT INTO journal(seq, cl_ord_id, input) VALUES (?, ?, ?)",
                         -1, &j->insert_, nullptr) != SQLITE_OK) {
    return std::string("cannot prepare journal insert: ") + sqlite3_errmsg(j->db_);
  }
  return j;
}

void Journal::checkpointLoop(std::string path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return;  // without checkpoints the WAL only grows; the journal itself stays correct
  }
  sqlite3_busy_timeout(db, 100);
  std::unique_lock lock(checkpointMutex_);
  while (!closing_) {
    checkpointWake_.wait_for(lock, std::chrono::milliseconds(500));
    if (closing_) break;
    lock.unlock();
    // A connection learns that the database is in WAL mode on its first read; before that a
    // checkpoint is a silent no-op.
    sqlite3_exec(db, "SELECT count(*) FROM meta", nullptr, nullptr, nullptr);
    // PASSIVE never blocks the writer; the writer restarts the WAL once it is all copied.
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    lock.lock();
  }
  sqlite3_close(db);
}

Journal::~Journal() {
  if (checkpointer_.joinable()) {
    {
      std::lock_guard lock(checkpointMutex_);
      closing_ = true;
    }
    checkpointWake_.notify_one();
    checkpointer_.join();
  }
  if (inTransaction_) {
    try {
      commit();
    } catch (...) {
      // The process is going away; the uncommitted batch was never acknowledged.
    }
  }
  sqlite3_finalize(insert_);
  sqlite3_close(db_);
}

void Journal::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("journal: " + msg + " (" + sql + ")");
  }
}

std::uint64_t Journal::replay(const std::function<void(const JournalEntry&)>& f) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT seq, cl_ord_id, input FROM journal ORDER BY seq", -1, &s,
                         nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("journal: cannot read: ") + sqlite3_errmsg(db_));
  }
  std::uint64_t n = 0;
  JournalEntry e;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    e.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
    e.clOrdId.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)),
                     static_cast<std::size_t>(sqlite3_column_bytes(s, 1)));
    e.input.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 2)),
                   static_cast<std::size_t>(sqlite3_column_bytes(s, 2)));
    f(e);
    lastSeq_ = e.seq;
    ++n;
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    throw std::runtime_error(std::string("journal: read failed: ") + sqlite3_errmsg(db_));
  }
  return n;
}

void Journal::append(std::string_view clOrdId, std::string_view input) {
  if (!inTransaction_) {
    exec("BEGIN");
    inTransaction_ = true;
  }
  sqlite3_bind_int64(insert_, 1, static_cast<sqlite3_int64>(lastSeq_ + 1));
  sqlite3_bind_text(insert_, 2, clOrdId.data(), static_cast<int>(clOrdId.size()), SQLITE_STATIC);
  sqlite3_bind_text(insert_, 3, input.data(), static_cast<int>(input.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(insert_);
  sqlite3_reset(insert_);
  if (rc != SQLITE_DONE) {
    throw std::runtime_error(std::string("journal: append failed: ") + sqlite3_errmsg(db_));
  }
  ++lastSeq_;
}

void Journal::commit() {
  if (!inTransaction_) return;
  exec("COMMIT");
  inTransaction_ = false;
}

}  // namespace tessera::net
