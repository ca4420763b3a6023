#include "core/net/SnapshotStore.h"

#include "core/domain/Fnv1a.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace tessera::net {

namespace {
constexpr std::size_t kChunkBytes = std::size_t{64} << 20;

// A prepared statement of the snapshot file; one that does not compile is a bug of this file.
struct Statement : store::SqliteStatement {
  Statement(const store::SqliteDb& db, const char* sql) : store::SqliteStatement(db, sql) {
    if (!ok()) throw std::runtime_error("snapshots: " + db.lastError() + " (" + sql + ")");
  }
};

// A test hook (TESSERA_SNAPSHOT_WRITE_PAUSE_MS): the writer waits this long inside its
// transaction, after the bytes and before the commit, so that a test can kill the process
// in the middle of writing a snapshot.
int writePauseMs() {
  const char* v = std::getenv("TESSERA_SNAPSHOT_WRITE_PAUSE_MS");
  return v ? std::atoi(v) : 0;
}
}  // namespace

std::variant<std::unique_ptr<SnapshotStore>, std::string> SnapshotStore::open(const std::string& path) {
  std::unique_ptr<SnapshotStore> st(new SnapshotStore());
  auto db = store::SqliteDb::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 5000);
  if (auto* why = std::get_if<std::string>(&db)) return "cannot open snapshots '" + path + "': " + *why;
  st->db_ = std::move(std::get<store::SqliteDb>(db));
  try {
    st->exec("PRAGMA journal_mode=WAL");
    st->exec("PRAGMA synchronous=FULL");
    st->exec(
        "CREATE TABLE IF NOT EXISTS snapshot ("
        " id INTEGER PRIMARY KEY,"
        " journal_seq INTEGER NOT NULL,"
        " config INTEGER NOT NULL,"
        " format TEXT NOT NULL,"
        " bytes INTEGER NOT NULL,"
        " checksum INTEGER NOT NULL,"
        " written_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')))");
    st->exec(
        "CREATE TABLE IF NOT EXISTS snapshot_chunk ("
        " snapshot INTEGER NOT NULL,"
        " n INTEGER NOT NULL,"
        " data BLOB NOT NULL,"
        " PRIMARY KEY (snapshot, n))");
  } catch (const std::exception& e) {
    return "cannot use snapshots '" + path + "': " + e.what();
  }
  return st;
}

SnapshotStore::~SnapshotStore() = default;

void SnapshotStore::exec(const char* sql) {
  if (auto err = db_.exec(sql)) throw std::runtime_error("snapshots: " + *err + " (" + sql + ")");
}

void SnapshotStore::write(std::uint64_t journalSeq, std::uint64_t configFingerprint, const std::string& bytes,
                          int keep) {
  Fnv1a sum;
  sum.add(bytes);
  exec("BEGIN IMMEDIATE");
  try {
    {
      Statement ins(db_, "INSERT INTO snapshot(journal_seq, config, format, bytes, checksum) VALUES (?, ?, ?, ?, ?)");
      sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(journalSeq));
      sqlite3_bind_int64(ins, 2, static_cast<sqlite3_int64>(configFingerprint));
      sqlite3_bind_text(ins, 3, kSnapshotFormat, -1, SQLITE_STATIC);
      sqlite3_bind_int64(ins, 4, static_cast<sqlite3_int64>(bytes.size()));
      sqlite3_bind_int64(ins, 5, static_cast<sqlite3_int64>(sum.value()));
      if (sqlite3_step(ins) != SQLITE_DONE) throw std::runtime_error(std::string("snapshots: ") + sqlite3_errmsg(db_));
    }
    const sqlite3_int64 id = sqlite3_last_insert_rowid(db_);
    Statement chunk(db_, "INSERT INTO snapshot_chunk(snapshot, n, data) VALUES (?, ?, ?)");
    for (std::size_t off = 0, n = 0; off < bytes.size() || n == 0; off += kChunkBytes, ++n) {
      const std::size_t len = std::min(kChunkBytes, bytes.size() - off);
      sqlite3_reset(chunk);
      sqlite3_bind_int64(chunk, 1, id);
      sqlite3_bind_int64(chunk, 2, static_cast<sqlite3_int64>(n));
      sqlite3_bind_blob64(chunk, 3, bytes.data() + off, len, SQLITE_STATIC);
      if (sqlite3_step(chunk) != SQLITE_DONE)
        throw std::runtime_error(std::string("snapshots: ") + sqlite3_errmsg(db_));
      if (off + len >= bytes.size()) break;
    }
    Statement old(db_, "SELECT id FROM snapshot ORDER BY id DESC LIMIT -1 OFFSET ?");
    sqlite3_bind_int(old, 1, keep);
    std::vector<sqlite3_int64> drop;
    while (sqlite3_step(old) == SQLITE_ROW) drop.push_back(sqlite3_column_int64(old, 0));
    for (sqlite3_int64 d : drop) {
      const std::string del = "DELETE FROM snapshot_chunk WHERE snapshot = " + std::to_string(d) +
                              "; DELETE FROM snapshot WHERE id = " + std::to_string(d);
      exec(del.c_str());
    }
    if (const int pause = writePauseMs(); pause > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    exec("COMMIT");
  } catch (...) {
    (void)db_.exec("ROLLBACK");  // the error that brought us here is the one to report
    throw;
  }
  // The WAL holds the whole snapshot until it is copied back; copy it now, off the matching
  // thread (this runs on the snapshot writer's).
  sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
}

std::vector<SnapshotInfo> SnapshotStore::list() {
  std::vector<SnapshotInfo> out;
  Statement q(db_, "SELECT id, journal_seq, config, format, written_at FROM snapshot ORDER BY id DESC");
  while (sqlite3_step(q) == SQLITE_ROW) {
    SnapshotInfo i;
    i.id = sqlite3_column_int64(q, 0);
    i.journalSeq = static_cast<std::uint64_t>(sqlite3_column_int64(q, 1));
    i.configFingerprint = static_cast<std::uint64_t>(sqlite3_column_int64(q, 2));
    i.format = reinterpret_cast<const char*>(sqlite3_column_text(q, 3));
    i.writtenAt = reinterpret_cast<const char*>(sqlite3_column_text(q, 4));
    out.push_back(std::move(i));
  }
  return out;
}

std::variant<std::string, std::string> SnapshotStore::read(std::int64_t id) {
  using Result = std::variant<std::string, std::string>;
  Statement head(db_, "SELECT bytes, checksum FROM snapshot WHERE id = ?");
  sqlite3_bind_int64(head, 1, id);
  if (sqlite3_step(head) != SQLITE_ROW) return Result(std::in_place_index<1>, "no such snapshot");
  const auto size = static_cast<std::uint64_t>(sqlite3_column_int64(head, 0));
  const auto checksum = static_cast<std::uint64_t>(sqlite3_column_int64(head, 1));
  std::string bytes;
  bytes.reserve(size);
  Statement chunks(db_, "SELECT n, data FROM snapshot_chunk WHERE snapshot = ? ORDER BY n");
  sqlite3_bind_int64(chunks, 1, id);
  std::int64_t expect = 0;
  int rc;
  while ((rc = sqlite3_step(chunks)) == SQLITE_ROW) {
    if (sqlite3_column_int64(chunks, 0) != expect++) return Result(std::in_place_index<1>, "a chunk is missing");
    bytes.append(static_cast<const char*>(sqlite3_column_blob(chunks, 1)),
                 static_cast<std::size_t>(sqlite3_column_bytes(chunks, 1)));
  }
  if (rc != SQLITE_DONE) return Result(std::in_place_index<1>, std::string("cannot read: ") + sqlite3_errmsg(db_));
  if (bytes.size() != size)
    return Result(std::in_place_index<1>,
                  "truncated: " + std::to_string(bytes.size()) + " of " + std::to_string(size) + " bytes");
  Fnv1a sum;
  sum.add(bytes);
  if (sum.value() != checksum) return Result(std::in_place_index<1>, "checksum mismatch (the bytes are damaged)");
  return Result(std::in_place_index<0>, std::move(bytes));
}

}  // namespace tessera::net
