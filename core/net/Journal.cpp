#include "core/net/Journal.h"

#include "core/net/ExchangeLog.h"
#include "core/store/Sqlite.h"

#include <spdlog/spdlog.h>

#include <pthread.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

namespace tessera::net {

std::variant<std::unique_ptr<Journal>, std::string> Journal::open(const std::string& path, bool syncFull) {
  std::unique_ptr<Journal> j(new Journal());
  // A second process on the same journal waits a little for the lock, then fails clearly.
  auto db = store::SqliteDb::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 2000);
  if (auto* why = std::get_if<std::string>(&db)) return "cannot open journal '" + path + "': " + *why;
  j->db_ = std::move(std::get<store::SqliteDb>(db));
  auto formatOf = [&]() -> std::optional<std::string> {
    store::SqliteStatement check(j->db_, "SELECT value FROM meta WHERE key='format'");
    if (check.ok() && sqlite3_step(check) == SQLITE_ROW)
      return reinterpret_cast<const char*>(sqlite3_column_text(check, 0));
    return std::nullopt;
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
  try {
    // Added beside the journal table of any tessera-journal-1 file: a journal written before it
    // existed fills it on its next full replay.
    j->exec(
        "CREATE TABLE IF NOT EXISTS finished_orders ("
        " order_id INTEGER PRIMARY KEY,"
        " account INTEGER NOT NULL,"
        " cl_ord_id TEXT NOT NULL,"
        " status INTEGER NOT NULL,"
        " filled INTEGER NOT NULL,"
        " leaves INTEGER NOT NULL,"
        " request TEXT NOT NULL)");
    j->exec("CREATE INDEX IF NOT EXISTS finished_orders_by_account ON finished_orders(account)");
    j->exec("CREATE INDEX IF NOT EXISTS finished_orders_by_cl_ord_id ON finished_orders(account, cl_ord_id)");
    j->exec(
        "CREATE TABLE IF NOT EXISTS settled_contracts ("
        " contract_id INTEGER PRIMARY KEY,"
        " buyer INTEGER NOT NULL,"
        " seller INTEGER NOT NULL,"
        " delivered INTEGER NOT NULL,"
        " contract BLOB NOT NULL)");
    j->exec("CREATE INDEX IF NOT EXISTS settled_contracts_by_buyer ON settled_contracts(buyer, contract_id)");
    j->exec("CREATE INDEX IF NOT EXISTS settled_contracts_by_seller ON settled_contracts(seller, contract_id)");
  } catch (const std::exception& e) {
    return std::string("cannot use journal '") + path + "': " + e.what();
  }
  const auto format = formatOf();
  if (!format) return "journal '" + path + "' is not readable: " + sqlite3_errmsg(j->db_);
  if (*format != "tessera-journal-1") {
    return "journal '" + path + "' has unknown format '" + *format + "'";
  }
  {
    // The journal's id: made once, by the first open of a journal that has none.
    if (store::SqliteStatement q(j->db_, "SELECT value FROM meta WHERE key='id'");
        q.ok() && sqlite3_step(q) == SQLITE_ROW)
      j->id_ = std::stoull(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
    if (j->id_ == 0) {
      std::random_device random;
      j->id_ = (std::uint64_t{random()} << 32 | random()) | 1;
      const std::string insert =
          "INSERT OR IGNORE INTO meta(key, value) VALUES ('id', '" + std::to_string(j->id_) + "')";
      try {
        j->exec(insert.c_str());
      } catch (const std::exception& e) {
        return std::string("cannot use journal '") + path + "': " + e.what();
      }
    }
  }
  {
    // Since this key was set, every finished order's archive row is committed with the journal
    // entry that finished it (whatever the configuration): replaying a later entry finds the
    // row there. Entries before it (a journal from before the archive) fill theirs as they are
    // replayed.
    const auto valueOf = [&j](const char* sql) -> std::optional<std::uint64_t> {
      store::SqliteStatement q(j->db_, sql);
      if (q.ok() && sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
        return static_cast<std::uint64_t>(sqlite3_column_int64(q, 0));
      return std::nullopt;
    };
    if (auto after = valueOf("SELECT CAST(value AS INTEGER) FROM meta WHERE key='finished_orders_complete_after'")) {
      j->finishedOrdersCompleteAfter_ = *after;
    } else {
      j->finishedOrdersCompleteAfter_ = valueOf("SELECT max(seq) FROM journal").value_or(0);
      const std::string insert = "INSERT OR IGNORE INTO meta(key, value) VALUES ('finished_orders_complete_after', '" +
                                 std::to_string(j->finishedOrdersCompleteAfter_) + "')";
      try {
        j->exec(insert.c_str());
      } catch (const std::exception& e) {
        return std::string("cannot use journal '") + path + "': " + e.what();
      }
    }
  }
  if (sqlite3_prepare_v2(j->db_, "INSERT INTO journal(seq, cl_ord_id, input) VALUES (?, ?, ?)", -1, &j->insert_,
                         nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(j->db_, "BEGIN", -1, &j->begin_, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(j->db_, "COMMIT", -1, &j->commit_, nullptr) != SQLITE_OK) {
    return std::string("cannot prepare journal statements: ") + sqlite3_errmsg(j->db_);
  }
  if (path != ":memory:" && !path.empty()) {
    // Replaces SQLite's automatic checkpoint on commit (which would copy the WAL on the
    // matching thread, stalling acknowledgements for tens of milliseconds).
    sqlite3_wal_hook(j->db_, &Journal::onWalCommit, j.get());
    // A WAL that ever grew past 64 MiB (a writer outrunning the copier) is cut back when reset.
    j->exec("PRAGMA journal_size_limit=67108864");
    j->checkpointer_ = std::thread([jp = j.get(), path] { jp->checkpointLoop(path); });
  }
  return j;
}

namespace {
// A round of checkpoints starts once the WAL holds this many frames (pages), or half a second
// after the last round if anything is left to copy; a round ends, between two transactions,
// once the unlocked passes have left at most kFinishBacklog frames to copy.
constexpr int kRoundFrames = 4096;   // 16 MiB of WAL
constexpr int kFinishBacklog = 512;  // a couple of milliseconds of copying at most
constexpr int kUnlockedPasses = 8;
// A round whose unlocked passes left more than kFinishBacklog frames ends anyway once the WAL
// is this long (the copier is losing to the writer: better one longer pause than a WAL that
// grows without bound); below it the next round follows at once.
constexpr int kForceFinishFrames = 4 * kRoundFrames;
}  // namespace

int Journal::onWalCommit(void* journal, sqlite3*, const char*, int frames) {
  auto* j = static_cast<Journal*>(journal);
  if (frames >= kRoundFrames) {
    std::lock_guard lock(j->checkpointMutex_);
    if (!j->checkpointWanted_) {
      j->checkpointWanted_ = true;
      j->checkpointWake_.notify_one();
    }
  }
  return SQLITE_OK;
}

void Journal::checkpointLoop(std::string path) {
  pthread_setname_np(pthread_self(), "tx-checkpoint");
  auto opened = store::SqliteDb::open(path, SQLITE_OPEN_READWRITE, 100);
  if (auto* why = std::get_if<std::string>(&opened)) {
    exchangeLog()->error("journal {}: cannot open a connection for checkpoints ({}); the WAL will only grow", path,
                         *why);
    return;  // without checkpoints the WAL only grows; the journal itself stays correct
  }
  const store::SqliteDb& db = std::get<store::SqliteDb>(opened);
  std::unique_lock lock(checkpointMutex_);
  while (!closing_) {
    checkpointWake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return checkpointWanted_ || closing_; });
    if (closing_) break;
    checkpointWanted_ = false;
    lock.unlock();
    // A connection learns that the database is in WAL mode on its first read; before that a
    // checkpoint is a silent no-op.
    (void)db.exec("SELECT count(*) FROM meta");  // a failure shows in the checkpoint below
    int frames = 0, copied = 0;
    const auto roundStart = std::chrono::steady_clock::now();
    for (int pass = 0; pass < kUnlockedPasses; ++pass) {
      if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) != SQLITE_OK ||
          frames - copied <= kFinishBacklog) {
        break;
      }
    }
    const bool finish = frames - copied <= kFinishBacklog || frames >= kForceFinishFrames;
    // The last pass runs even when the unlocked ones copied everything: under a steady stream
    // of commits the WAL starts over only if it is wholly copied when the writer begins its next
    // transaction, which holding `between_` guarantees. Skipping it when there was nothing
    // left let the WAL grow round after round to 64 MiB and beyond.
    if (frames > 0 && finish) {
      std::lock_guard between(between_);
      sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    }
    if (frames > 0) {
      // Routine (twice a second under load) at debug; a slow one, which shows a slow disk, at info.
      const auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - roundStart).count();
      exchangeLog()->log(ms >= 100 ? spdlog::level::info : spdlog::level::debug,
                         "journal checkpoint: {} of {} WAL frames copied in {} ms{}", copied, frames, ms,
                         finish ? "" : " (more to copy)");
    }
    lock.lock();
    if (!finish) checkpointWanted_ = true;
  }
}

Journal::~Journal() {
  // The open batch first: its transaction holds `between_`, which the checkpointer may be
  // waiting for, so joining it before the commit could wait for ever.
  if (inTransaction_) {
    try {
      commit();
    } catch (...) {
      // The process is going away; the uncommitted batch was never acknowledged.
    }
  }
  if (checkpointer_.joinable()) {
    {
      std::lock_guard lock(checkpointMutex_);
      closing_ = true;
    }
    checkpointWake_.notify_one();
    checkpointer_.join();
  }
  sqlite3_finalize(insert_);
  sqlite3_finalize(archiveInsert_);
  sqlite3_finalize(archivedById_);
  sqlite3_finalize(archivedByClOrdId_);
  sqlite3_finalize(archivedPage_);
  sqlite3_finalize(contractInsert_);
  sqlite3_finalize(contractById_);
  sqlite3_finalize(contractPage_);
  sqlite3_finalize(begin_);
  sqlite3_finalize(commit_);
}

void Journal::exec(const char* sql) {
  if (auto err = db_.exec(sql)) throw std::runtime_error("journal: " + *err + " (" + sql + ")");
}

std::uint64_t Journal::replay(const std::function<void(const JournalEntry&)>& f, std::uint64_t afterSeq) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT seq, cl_ord_id, input FROM journal WHERE seq > ? ORDER BY seq", -1, &s,
                         nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("journal: cannot read: ") + sqlite3_errmsg(db_));
  }
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(afterSeq));
  if (afterSeq > lastSeq_) lastSeq_ = afterSeq;
  // Finalized however the loop ends: `f` may throw (a damaged entry), and a statement left open
  // makes the destructor's sqlite3_close fail, leaking the connection (found by LeakSanitizer).
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(s, sqlite3_finalize);
  struct ReplayEnds {
    std::uint64_t& seq;
    ~ReplayEnds() { seq = 0; }
  } ends{replayingSeq_};
  std::uint64_t n = 0;
  JournalEntry e;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    e.seq = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
    e.clOrdId.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)),
                     static_cast<std::size_t>(sqlite3_column_bytes(s, 1)));
    e.input.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 2)),
                   static_cast<std::size_t>(sqlite3_column_bytes(s, 2)));
    replayingSeq_ = e.seq;
    f(e);
    lastSeq_ = e.seq;
    ++n;
  }
  if (rc != SQLITE_DONE) {
    throw std::runtime_error(std::string("journal: read failed: ") + sqlite3_errmsg(db_));
  }
  return n;
}

std::optional<JournalEntry> Journal::entry(std::uint64_t seq) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT cl_ord_id, input FROM journal WHERE seq = ?", -1, &s, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("journal: cannot read: ") + sqlite3_errmsg(db_));
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(s, sqlite3_finalize);
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(seq));
  if (sqlite3_step(s) != SQLITE_ROW) return std::nullopt;
  JournalEntry e;
  e.seq = seq;
  e.clOrdId.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                   static_cast<std::size_t>(sqlite3_column_bytes(s, 0)));
  e.input.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)),
                 static_cast<std::size_t>(sqlite3_column_bytes(s, 1)));
  return e;
}

void Journal::step(sqlite3_stmt* statement, const char* what) {
  const int rc = sqlite3_step(statement);
  sqlite3_reset(statement);
  if (rc != SQLITE_DONE) {
    throw std::runtime_error(std::string("journal: ") + what + " failed: " + sqlite3_errmsg(db_));
  }
}

void Journal::begin() {
  if (inTransaction_) return;
  writing_.lock();
  try {
    step(begin_, "begin");
  } catch (...) {
    writing_.unlock();
    throw;
  }
  inTransaction_ = true;
}

void Journal::append(std::string_view clOrdId, std::string_view input) {
  begin();
  sqlite3_bind_int64(insert_, 1, static_cast<sqlite3_int64>(lastSeq_ + 1));
  sqlite3_bind_text(insert_, 2, clOrdId.data(), static_cast<int>(clOrdId.size()), SQLITE_STATIC);
  sqlite3_bind_text(insert_, 3, input.data(), static_cast<int>(input.size()), SQLITE_STATIC);
  step(insert_, "append");
  ++lastSeq_;
}

void Journal::commit() {
  if (!inTransaction_) return;
  // The checkpointer may run again once the transaction is over, whether or not it committed.
  struct Unlock {
    std::unique_lock<std::mutex>& l;
    ~Unlock() {
      if (l.owns_lock()) l.unlock();
    }
  } unlock{writing_};
  step(commit_, "commit");
  inTransaction_ = false;
}

sqlite3_stmt* Journal::prepared(sqlite3_stmt*& s, const char* sql) {
  if (!s && sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("journal: cannot prepare the archive: ") + sqlite3_errmsg(db_));
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return s;
}

void Journal::archive(const ArchivedOrder& o) {
  begin();
  sqlite3_stmt* s = prepared(archiveInsert_,
                             "INSERT OR IGNORE INTO finished_orders(order_id, account, cl_ord_id, status, filled, "
                             "leaves, request) VALUES (?, ?, ?, ?, ?, ?, ?)");
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(o.orderId));
  sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(o.account));
  sqlite3_bind_text(s, 3, o.clOrdId.data(), static_cast<int>(o.clOrdId.size()), SQLITE_STATIC);
  sqlite3_bind_int(s, 4, o.status);
  sqlite3_bind_int64(s, 5, o.filledGpuHours);
  sqlite3_bind_int64(s, 6, o.leavesGpuHours);
  sqlite3_bind_text(s, 7, o.order.data(), static_cast<int>(o.order.size()), SQLITE_STATIC);
  step(s, "archive");
}

namespace {
ArchivedOrder archivedRow(sqlite3_stmt* s) {
  auto text = [s](int c) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, c)),
                       static_cast<std::size_t>(sqlite3_column_bytes(s, c)));
  };
  ArchivedOrder o;
  o.orderId = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
  o.account = static_cast<std::uint64_t>(sqlite3_column_int64(s, 1));
  o.clOrdId = text(2);
  o.status = sqlite3_column_int(s, 3);
  o.filledGpuHours = sqlite3_column_int64(s, 4);
  o.leavesGpuHours = sqlite3_column_int64(s, 5);
  o.order = text(6);
  return o;
}
constexpr const char* kArchivedColumns =
    "SELECT order_id, account, cl_ord_id, status, filled, leaves, request FROM finished_orders ";
}  // namespace

std::optional<ArchivedOrder> Journal::archived(std::uint64_t orderId) {
  static const std::string sql = std::string(kArchivedColumns) + "WHERE order_id = ?";
  sqlite3_stmt* s = prepared(archivedById_, sql.c_str());
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(orderId));
  std::optional<ArchivedOrder> o;
  if (sqlite3_step(s) == SQLITE_ROW) o = archivedRow(s);
  sqlite3_reset(s);
  return o;
}

std::optional<ArchivedOrder> Journal::archived(std::uint64_t account, std::string_view clOrdId) {
  static const std::string sql =
      std::string(kArchivedColumns) + "WHERE account = ? AND cl_ord_id = ? ORDER BY order_id DESC LIMIT 1";
  sqlite3_stmt* s = prepared(archivedByClOrdId_, sql.c_str());
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(account));
  sqlite3_bind_text(s, 2, clOrdId.data(), static_cast<int>(clOrdId.size()), SQLITE_STATIC);
  std::optional<ArchivedOrder> o;
  if (sqlite3_step(s) == SQLITE_ROW) o = archivedRow(s);
  sqlite3_reset(s);
  return o;
}

std::vector<ArchivedOrder> Journal::archivedPage(std::uint64_t account, std::uint64_t afterOrderId, std::size_t limit) {
  static const std::string sql =
      std::string(kArchivedColumns) + "WHERE account = ? AND order_id > ? ORDER BY order_id LIMIT ?";
  sqlite3_stmt* s = prepared(archivedPage_, sql.c_str());
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(account));
  sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(afterOrderId));
  sqlite3_bind_int64(s, 3, static_cast<sqlite3_int64>(limit));
  std::vector<ArchivedOrder> page;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) page.push_back(archivedRow(s));
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) throw std::runtime_error(std::string("journal: archive read failed: ") + sqlite3_errmsg(db_));
  return page;
}

void Journal::archiveContract(const ArchivedContractRow& k) {
  begin();
  sqlite3_stmt* s = prepared(contractInsert_,
                             "INSERT OR IGNORE INTO settled_contracts(contract_id, buyer, seller, delivered, contract) "
                             "VALUES (?, ?, ?, ?, ?)");
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(k.contractId));
  sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(k.buyer));
  sqlite3_bind_int64(s, 3, static_cast<sqlite3_int64>(k.seller));
  sqlite3_bind_int64(s, 4, k.deliveredGpuHours);
  sqlite3_bind_blob(s, 5, k.contract.data(), static_cast<int>(k.contract.size()), SQLITE_STATIC);
  step(s, "archive a contract");
}

namespace {
ArchivedContractRow contractRow(sqlite3_stmt* s) {
  ArchivedContractRow k;
  k.contractId = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
  k.buyer = static_cast<std::uint64_t>(sqlite3_column_int64(s, 1));
  k.seller = static_cast<std::uint64_t>(sqlite3_column_int64(s, 2));
  k.deliveredGpuHours = sqlite3_column_int64(s, 3);
  k.contract.assign(static_cast<const char*>(sqlite3_column_blob(s, 4)),
                    static_cast<std::size_t>(sqlite3_column_bytes(s, 4)));
  return k;
}
constexpr const char* kContractColumns =
    "SELECT contract_id, buyer, seller, delivered, contract FROM settled_contracts ";
}  // namespace

std::optional<ArchivedContractRow> Journal::archivedContract(std::uint64_t contractId) {
  static const std::string sql = std::string(kContractColumns) + "WHERE contract_id = ?";
  sqlite3_stmt* s = prepared(contractById_, sql.c_str());
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(contractId));
  std::optional<ArchivedContractRow> k;
  if (sqlite3_step(s) == SQLITE_ROW) k = contractRow(s);
  sqlite3_reset(s);
  return k;
}

std::vector<ArchivedContractRow> Journal::archivedContracts(std::uint64_t account, std::uint64_t afterContractId,
                                                            std::size_t limit) {
  // Two index ranges merged, rather than one OR that SQLite would sort.
  static const std::string sql = "SELECT * FROM (" + std::string(kContractColumns) +
                                 "WHERE buyer = ?1 AND contract_id > ?2 UNION " + kContractColumns +
                                 "WHERE seller = ?1 AND contract_id > ?2) ORDER BY contract_id LIMIT ?3";
  sqlite3_stmt* s = prepared(contractPage_, sql.c_str());
  sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(account));
  sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(afterContractId));
  sqlite3_bind_int64(
      s, 3, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, std::numeric_limits<sqlite3_int64>::max())));
  std::vector<ArchivedContractRow> page;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) page.push_back(contractRow(s));
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) throw std::runtime_error(std::string("journal: archive read failed: ") + sqlite3_errmsg(db_));
  return page;
}

std::uint64_t Journal::archivedCount() {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM finished_orders", -1, &s, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("journal: cannot read: ") + sqlite3_errmsg(db_));
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(s, sqlite3_finalize);
  return sqlite3_step(s) == SQLITE_ROW ? static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)) : 0;
}

}  // namespace tessera::net
