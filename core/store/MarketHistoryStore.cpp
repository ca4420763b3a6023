#include "core/store/MarketHistoryStore.h"

#include "core/store/InputRow.h"

#include <sqlite3.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tessera::store {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts(
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS input_events(
  seq        INTEGER PRIMARY KEY,
  time_us    INTEGER NOT NULL,
  kind       INTEGER NOT NULL,
  cluster    INTEGER,
  account    INTEGER,
  order_id   INTEGER,
  side       INTEGER,
  gpus       INTEGER,
  start_hour INTEGER,
  end_hour   INTEGER,
  duration   INTEGER,
  price      INTEGER,
  fill       INTEGER,
  tif        INTEGER,
  expire_at  INTEGER,
  flags      INTEGER,
  sell_back  INTEGER,
  extra      TEXT);
CREATE INDEX IF NOT EXISTS input_events_time ON input_events(time_us);
CREATE INDEX IF NOT EXISTS input_events_cluster_time ON input_events(cluster, time_us);
CREATE TABLE IF NOT EXISTS market_events(
  seq        INTEGER PRIMARY KEY,
  input_seq  INTEGER NOT NULL,
  time_us    INTEGER NOT NULL,
  type       TEXT NOT NULL,
  cluster    INTEGER,
  account    INTEGER,
  order_id   INTEGER,
  price      INTEGER,
  gpus       INTEGER,
  start_hour INTEGER,
  end_hour   INTEGER,
  json       TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS market_events_time ON market_events(time_us);
CREATE INDEX IF NOT EXISTS market_events_cluster_time ON market_events(cluster, time_us);
CREATE TABLE IF NOT EXISTS outages(
  after_input INTEGER NOT NULL,
  time_us     INTEGER NOT NULL,
  account     INTEGER NOT NULL,
  cluster     INTEGER NOT NULL,
  start_hour  INTEGER NOT NULL,
  end_hour    INTEGER NOT NULL,
  lost_gpus   INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reclaims(
  after_input INTEGER NOT NULL,
  time_us     INTEGER NOT NULL,
  account     INTEGER NOT NULL,
  cluster     INTEGER NOT NULL,
  start_hour  INTEGER NOT NULL,
  end_hour    INTEGER NOT NULL,
  gpus        INTEGER NOT NULL,
  contract    INTEGER NOT NULL);
)sql";

// Finalizes on scope exit, so every early return releases the statement.
struct Statement {
  sqlite3_stmt* s = nullptr;
  ~Statement() { sqlite3_finalize(s); }
};

void bindOpt(sqlite3_stmt* s, int i, const std::optional<std::int64_t>& v) {
  if (v)
    sqlite3_bind_int64(s, i, *v);
  else
    sqlite3_bind_null(s, i);
}
void bindNonZero(sqlite3_stmt* s, int i, std::int64_t v) {
  if (v != 0)
    sqlite3_bind_int64(s, i, v);
  else
    sqlite3_bind_null(s, i);
}
std::optional<std::int64_t> colOpt(sqlite3_stmt* s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(s, i);
}
std::string colText(sqlite3_stmt* s, int i) {
  const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  return t ? std::string(t, static_cast<std::size_t>(sqlite3_column_bytes(s, i))) : std::string();
}

std::string whereClause(const HistoryQuery& q) {
  std::string w = " WHERE 1";
  if (q.fromMicros) w += " AND time_us >= ?1";
  if (q.toMicros) w += " AND time_us < ?2";
  if (q.cluster) w += " AND cluster = ?3";
  if (q.fromSeq) w += " AND seq >= ?4";
  return w + " ORDER BY seq";
}
void bindQuery(sqlite3_stmt* s, const HistoryQuery& q) {
  if (q.fromMicros) sqlite3_bind_int64(s, 1, *q.fromMicros);
  if (q.toMicros) sqlite3_bind_int64(s, 2, *q.toMicros);
  if (q.cluster) sqlite3_bind_int64(s, 3, *q.cluster);
  if (q.fromSeq) sqlite3_bind_int64(s, 4, *q.fromSeq);
}

// A read-only "file:" URI for the path (percent-encoded where a URI needs it).
std::string readOnlyUri(const std::string& path, bool immutable) {
  std::string u = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      u += hex;
    } else {
      u += static_cast<char>(c);
    }
  }
  return u + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

// Reading a WAL history normally needs its -shm file beside it. Where neither the file nor its
// folder can be written (a shared data folder, a read-only mount), nobody can be writing it
// either, and SQLite reads it as immutable instead.
bool writable(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string folder = p.has_parent_path() ? p.parent_path().string() : ".";
  return ::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
}

// An SQLite file whose header promises more pages than the file holds was cut short (a copy
// that stopped, a full disk). Nothing when the header is not SQLite's or does not say.
std::optional<StoreError> cutShort(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 100> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  static constexpr char kMagic[] = "SQLite format 3";
  if (!std::equal(kMagic, kMagic + sizeof kMagic, h.begin())) return std::nullopt;
  const auto size = std::filesystem::file_size(path);
  if (in.gcount() < static_cast<std::streamsize>(h.size()))
    return StoreError{"'" + path + "' is corrupt: cut short inside its header (" + std::to_string(size) + " bytes)",
                      StoreErrorKind::Corrupt};
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t{h[at]} << 24) | (std::uint32_t{h[at + 1]} << 16) | (std::uint32_t{h[at + 2]} << 8) |
           h[at + 3];
  };
  const std::uint32_t pageSize = h[16] == 0 && h[17] == 1 ? 65536u : (std::uint32_t{h[16]} << 8) | h[17];
  const std::uint32_t pages = be32(28);
  // The page count is valid only while the "valid-for" number equals the change counter.
  if (pages == 0 || be32(92) != be32(24)) return std::nullopt;
  const std::uintmax_t expected = std::uintmax_t{pageSize} * pages;
  if (size >= expected) return std::nullopt;
  return StoreError{
      "'" + path + "' is corrupt: cut short (" + std::to_string(size) + " of " + std::to_string(expected) + " bytes)",
      StoreErrorKind::Corrupt};
}

// What a failed first read of a file says about it.
StoreError unreadable(sqlite3* db, const std::string& path) {
  switch (sqlite3_errcode(db)) {
    case SQLITE_NOTADB:
      return {"'" + path + "' is not a Tessera market history (not an SQLite database)", StoreErrorKind::NotHistory};
    case SQLITE_CORRUPT: return {"'" + path + "' is corrupt (" + sqlite3_errmsg(db) + ")", StoreErrorKind::Corrupt};
    default: return {"cannot read history '" + path + "': " + sqlite3_errmsg(db), StoreErrorKind::Io};
  }
}

}  // namespace

std::variant<std::unique_ptr<MarketHistoryStore>, StoreError> MarketHistoryStore::open(const std::string& path,
                                                                                       OpenMode mode) {
  const bool readOnly = mode == OpenMode::ReadOnly;
  if (readOnly && !std::filesystem::exists(path))
    return StoreError{"history file '" + path + "' does not exist", StoreErrorKind::NotFound};
  if (readOnly) {
    if (auto e = cutShort(path)) return *e;
  }
  // Immutable only where nobody can be writing: not writable here and no write-ahead log
  // beside it (a recorder running as another user keeps one while it writes).
  const bool immutable = !writable(path) && !std::filesystem::exists(path + "-wal");
  const std::string name = readOnly ? readOnlyUri(path, immutable) : path;
  const int flags = readOnly ? (SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto opened = SqliteDb::open(name, flags | SQLITE_OPEN_NOMUTEX, 5000);
  if (auto* why = std::get_if<std::string>(&opened)) return StoreError{"cannot open history '" + path + "': " + *why};
  std::unique_ptr<MarketHistoryStore> store(
      new MarketHistoryStore(std::move(std::get<SqliteDb>(opened)), path, !readOnly));
  if (readOnly && store->db_.exec("SELECT count(*) FROM sqlite_master")) return unreadable(store->db_, path);
  if (mode == OpenMode::ReadWrite) {
    if (auto e = store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")) return *e;
    if (auto e = store->exec(kSchema)) return *e;
    if (!store->meta("schema_version")) {
      if (auto e = store->setMeta("schema_version", std::to_string(kHistorySchemaVersion))) return *e;
    }
  }
  // A file that is not SQLite, or SQLite without our tables, fails here with a clear message.
  const auto version = store->meta("schema_version");
  if (!version)
    return StoreError{"'" + path + "' is not a Tessera market history (an SQLite database without its tables)",
                      StoreErrorKind::NotHistory};
  if (*version != std::to_string(kHistorySchemaVersion))
    return StoreError{"'" + path + "' has history schema version " + *version + ", this build reads " +
                          std::to_string(kHistorySchemaVersion),
                      StoreErrorKind::Version};
  auto s = store->summary();
  if (auto* e = std::get_if<StoreError>(&s)) return *e;
  store->nextInputSeq_ = std::get<HistorySummary>(s).lastInputSeq + 1;
  store->nextEventSeq_ = std::get<HistorySummary>(s).lastEventSeq + 1;
  if (store->writable_) {
    if (auto e = store->prepareWriters()) return *e;
  }
  return store;
}

MarketHistoryStore::MarketHistoryStore(SqliteDb db, std::string path, bool writable)
    : db_(std::move(db)), path_(std::move(path)), writable_(writable) {}

MarketHistoryStore::~MarketHistoryStore() {
  sqlite3_finalize(insertInput_);
  sqlite3_finalize(insertEvent_);
}

StoreError MarketHistoryStore::error(const std::string& what) const {
  const int code = sqlite3_errcode(db_);
  const bool damaged = code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
  return {what + " in '" + path_ + "': " + sqlite3_errmsg(db_) + (damaged ? " (the file is corrupt)" : ""),
          damaged ? StoreErrorKind::Corrupt : StoreErrorKind::Io};
}

std::optional<StoreError> MarketHistoryStore::exec(const char* sql) const {
  if (auto msg = db_.exec(sql)) return StoreError{"history '" + path_ + "': " + *msg};
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::prepareWriters() {
  if (sqlite3_prepare_v3(db_,
                         "INSERT INTO input_events(seq,time_us,kind,cluster,account,order_id,side,gpus,"
                         "start_hour,end_hour,duration,price,fill,tif,expire_at,flags,sell_back,extra) "
                         "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         -1, SQLITE_PREPARE_PERSISTENT, &insertInput_, nullptr) != SQLITE_OK)
    return error("cannot prepare the input insert");
  if (sqlite3_prepare_v3(db_,
                         "INSERT INTO market_events(seq,input_seq,time_us,type,cluster,account,order_id,"
                         "price,gpus,start_hour,end_hour,json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                         -1, SQLITE_PREPARE_PERSISTENT, &insertEvent_, nullptr) != SQLITE_OK)
    return error("cannot prepare the event insert");
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::appendInputs(std::span<RecordedInput> rows) {
  if (!writable_) return StoreError{"history '" + path_ + "' is open read-only"};
  if (auto e = exec("BEGIN IMMEDIATE")) return e;
  std::int64_t next = nextInputSeq_;
  for (RecordedInput& in : rows) {
    if (in.seq == 0) in.seq = next;
    next = in.seq + 1;
    const InputRow r = toRow(in);
    sqlite3_stmt* s = insertInput_;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, r.seq);
    sqlite3_bind_int64(s, 2, r.timeMicros);
    sqlite3_bind_int64(s, 3, static_cast<std::int64_t>(r.kind));
    bindOpt(s, 4, r.cluster);
    bindOpt(s, 5, r.account);
    bindOpt(s, 6, r.order);
    bindOpt(s, 7, r.side);
    bindOpt(s, 8, r.gpus);
    bindOpt(s, 9, r.start);
    bindOpt(s, 10, r.end);
    bindOpt(s, 11, r.duration);
    bindOpt(s, 12, r.price);
    bindOpt(s, 13, r.fill);
    bindOpt(s, 14, r.tif);
    bindOpt(s, 15, r.expireAt);
    bindOpt(s, 16, r.flags);
    bindOpt(s, 17, r.sellBack);
    if (r.extra.empty())
      sqlite3_bind_null(s, 18);
    else
      sqlite3_bind_text(s, 18, r.extra.data(), static_cast<int>(r.extra.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_DONE) {
      StoreError e = error("cannot append input " + std::to_string(in.seq));
      exec("ROLLBACK");
      return e;
    }
  }
  if (auto e = exec("COMMIT")) {
    exec("ROLLBACK");
    return e;
  }
  nextInputSeq_ = next;
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::appendEvents(std::span<RecordedEvent> rows) {
  if (!writable_) return StoreError{"history '" + path_ + "' is open read-only"};
  if (auto e = exec("BEGIN IMMEDIATE")) return e;
  std::int64_t next = nextEventSeq_;
  for (RecordedEvent& ev : rows) {
    if (ev.seq == 0) ev.seq = next;
    next = ev.seq + 1;
    sqlite3_stmt* s = insertEvent_;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, ev.seq);
    sqlite3_bind_int64(s, 2, ev.inputSeq);
    sqlite3_bind_int64(s, 3, ev.timeMicros);
    sqlite3_bind_text(s, 4, ev.type.data(), static_cast<int>(ev.type.size()), SQLITE_STATIC);
    bindNonZero(s, 5, ev.cluster);
    bindNonZero(s, 6, ev.account);
    bindNonZero(s, 7, ev.order);
    bindNonZero(s, 8, ev.price);
    bindNonZero(s, 9, ev.gpus);
    bindNonZero(s, 10, ev.start);
    bindNonZero(s, 11, ev.end);
    sqlite3_bind_text(s, 12, ev.json.data(), static_cast<int>(ev.json.size()), SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE) {
      StoreError e = error("cannot append market event " + std::to_string(ev.seq));
      exec("ROLLBACK");
      return e;
    }
  }
  if (auto e = exec("COMMIT")) {
    exec("ROLLBACK");
    return e;
  }
  nextEventSeq_ = next;
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::saveAccounts(const AccountDirectory& accounts) {
  if (!writable_) return StoreError{"history '" + path_ + "' is open read-only"};
  Statement st;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO accounts(id,name) VALUES(?,?)", -1, &st.s, nullptr) != SQLITE_OK)
    return error("cannot prepare the account insert");
  if (auto e = exec("BEGIN IMMEDIATE")) return e;
  for (AccountId id = 1; id <= accounts.size(); ++id) {
    const std::string name = accounts.name(id);
    sqlite3_reset(st.s);
    sqlite3_bind_int64(st.s, 1, id);
    sqlite3_bind_text(st.s, 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    if (sqlite3_step(st.s) != SQLITE_DONE) {
      StoreError e = error("cannot save account '" + name + "'");
      exec("ROLLBACK");
      return e;
    }
  }
  return exec("COMMIT");
}

std::optional<StoreError> MarketHistoryStore::appendIntegerRows(const char* insert, const char* what,
                                                                const std::vector<std::vector<std::int64_t>>& rows) {
  if (!writable_) return StoreError{"history '" + path_ + "' is open read-only"};
  Statement st;
  if (sqlite3_prepare_v2(db_, insert, -1, &st.s, nullptr) != SQLITE_OK)
    return error(std::string("cannot prepare to write ") + what);
  if (auto e = exec("BEGIN IMMEDIATE")) return e;
  for (const std::vector<std::int64_t>& row : rows) {
    sqlite3_reset(st.s);
    for (std::size_t i = 0; i < row.size(); ++i) sqlite3_bind_int64(st.s, static_cast<int>(i) + 1, row[i]);
    if (sqlite3_step(st.s) != SQLITE_DONE) {
      StoreError e = error(std::string("cannot write ") + what);
      exec("ROLLBACK");
      return e;
    }
  }
  return exec("COMMIT");
}

std::variant<std::vector<std::vector<std::int64_t>>, StoreError> MarketHistoryStore::integerRows(
    const char* table, const char* select, int columns, const char* what) const {
  std::vector<std::vector<std::int64_t>> all;
  Statement st;
  // A history written before the table existed has none: it holds no such rows.
  if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st.s, nullptr) !=
      SQLITE_OK)
    return error(std::string("cannot read ") + what);
  sqlite3_bind_text(st.s, 1, table, -1, SQLITE_STATIC);
  if (sqlite3_step(st.s) != SQLITE_ROW) return all;
  Statement rows;
  if (sqlite3_prepare_v2(db_, select, -1, &rows.s, nullptr) != SQLITE_OK)
    return error(std::string("cannot read ") + what);
  int rc;
  while ((rc = sqlite3_step(rows.s)) == SQLITE_ROW) {
    std::vector<std::int64_t>& row = all.emplace_back(static_cast<std::size_t>(columns));
    for (int i = 0; i < columns; ++i) row[static_cast<std::size_t>(i)] = sqlite3_column_int64(rows.s, i);
  }
  if (rc != SQLITE_DONE) return error(std::string("cannot read ") + what);
  return all;
}

std::optional<StoreError> MarketHistoryStore::appendOutages(std::span<const RecordedOutage> rows) {
  std::vector<std::vector<std::int64_t>> values;
  for (const RecordedOutage& o : rows)
    values.push_back({o.afterInput, o.timeMicros, o.provider, o.cluster, o.start, o.end, o.lostGpus});
  return appendIntegerRows(
      "INSERT INTO outages(after_input,time_us,account,cluster,start_hour,end_hour,lost_gpus) VALUES(?,?,?,?,?,?,?)",
      "an outage", values);
}

std::variant<std::vector<RecordedOutage>, StoreError> MarketHistoryStore::outages() const {
  auto rows = integerRows("outages",
                          "SELECT after_input,time_us,account,cluster,start_hour,end_hour,lost_gpus FROM outages "
                          "ORDER BY after_input,rowid",
                          7, "outages");
  if (auto* e = std::get_if<StoreError>(&rows)) return *e;
  std::vector<RecordedOutage> all;
  for (const auto& v : std::get<std::vector<std::vector<std::int64_t>>>(rows))
    all.push_back({v[0], v[1], static_cast<AccountId>(v[2]), static_cast<ClusterId>(v[3]), v[4], v[5],
                   static_cast<GpuCount>(v[6])});
  return all;
}

std::optional<StoreError> MarketHistoryStore::appendReclaims(std::span<const RecordedReclaim> rows) {
  std::vector<std::vector<std::int64_t>> values;
  for (const RecordedReclaim& r : rows)
    values.push_back({r.afterInput, r.timeMicros, r.provider, r.cluster, r.start, r.end, r.gpus,
                      static_cast<std::int64_t>(r.contract)});
  return appendIntegerRows(
      "INSERT INTO reclaims(after_input,time_us,account,cluster,start_hour,end_hour,gpus,contract) "
      "VALUES(?,?,?,?,?,?,?,?)",
      "a reclaim", values);
}

std::variant<std::vector<RecordedReclaim>, StoreError> MarketHistoryStore::reclaims() const {
  auto rows = integerRows("reclaims",
                          "SELECT after_input,time_us,account,cluster,start_hour,end_hour,gpus,contract FROM reclaims "
                          "ORDER BY after_input,rowid",
                          8, "reclaims");
  if (auto* e = std::get_if<StoreError>(&rows)) return *e;
  std::vector<RecordedReclaim> all;
  for (const auto& v : std::get<std::vector<std::vector<std::int64_t>>>(rows))
    all.push_back({v[0], v[1], static_cast<AccountId>(v[2]), static_cast<ClusterId>(v[3]), v[4], v[5],
                   static_cast<GpuCount>(v[6]), static_cast<ContractId>(v[7])});
  return all;
}

std::optional<StoreError> MarketHistoryStore::loadAccounts(AccountDirectory& accounts) const {
  Statement st;
  if (sqlite3_prepare_v2(db_, "SELECT id,name FROM accounts ORDER BY id", -1, &st.s, nullptr) != SQLITE_OK)
    return error("cannot read accounts");
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    const auto id = sqlite3_column_int64(st.s, 0);
    const AccountId got = accounts.intern(colText(st.s, 1));
    if (got != id)
      return StoreError{"account ids in '" + path_ + "' are not dense: '" + colText(st.s, 1) + "' has id " +
                        std::to_string(id) + " but was loaded as " + std::to_string(got)};
  }
  if (rc != SQLITE_DONE) return error("cannot read accounts");
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::setMeta(const std::string& key, const std::string& value) {
  Statement st;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO meta(key,value) VALUES(?,?)", -1, &st.s, nullptr) != SQLITE_OK)
    return error("cannot write meta");
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_text(st.s, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  if (sqlite3_step(st.s) != SQLITE_DONE) return error("cannot write meta '" + key + "'");
  return std::nullopt;
}

std::optional<std::string> MarketHistoryStore::meta(const std::string& key) const {
  Statement st;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key=?", -1, &st.s, nullptr) != SQLITE_OK)
    return std::nullopt;
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  if (sqlite3_step(st.s) != SQLITE_ROW) return std::nullopt;
  return colText(st.s, 0);
}

std::optional<StoreError> MarketHistoryStore::forEachInput(const HistoryQuery& q,
                                                           const std::function<bool(const RecordedInput&)>& row) const {
  const std::string sql =
      "SELECT seq,time_us,kind,cluster,account,order_id,side,gpus,start_hour,end_hour,duration,price,"
      "fill,tif,expire_at,flags,sell_back,extra FROM input_events" +
      whereClause(q);
  Statement st;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) return error("cannot read inputs");
  bindQuery(st.s, q);
  InputRow r;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    r.seq = sqlite3_column_int64(st.s, 0);
    r.timeMicros = sqlite3_column_int64(st.s, 1);
    const auto kind = sqlite3_column_int64(st.s, 2);
    if (kind < 0 || kind > kLastInputKind)
      return StoreError{"input " + std::to_string(r.seq) + " has unknown kind " + std::to_string(kind)};
    r.kind = static_cast<InputKind>(kind);
    r.cluster = colOpt(st.s, 3);
    r.account = colOpt(st.s, 4);
    r.order = colOpt(st.s, 5);
    r.side = colOpt(st.s, 6);
    r.gpus = colOpt(st.s, 7);
    r.start = colOpt(st.s, 8);
    r.end = colOpt(st.s, 9);
    r.duration = colOpt(st.s, 10);
    r.price = colOpt(st.s, 11);
    r.fill = colOpt(st.s, 12);
    r.tif = colOpt(st.s, 13);
    r.expireAt = colOpt(st.s, 14);
    r.flags = colOpt(st.s, 15);
    r.sellBack = colOpt(st.s, 16);
    r.extra = sqlite3_column_type(st.s, 17) == SQLITE_NULL ? std::string() : colText(st.s, 17);
    auto in = fromRow(r);
    if (auto* e = std::get_if<StoreError>(&in)) return StoreError{"'" + path_ + "': " + e->message};
    if (!row(std::get<RecordedInput>(in))) return std::nullopt;
  }
  if (rc != SQLITE_DONE) return error("cannot read inputs");
  return std::nullopt;
}

std::optional<StoreError> MarketHistoryStore::forEachEvent(const HistoryQuery& q,
                                                           const std::function<bool(const RecordedEvent&)>& row) const {
  const std::string sql =
      "SELECT seq,input_seq,time_us,type,cluster,account,order_id,price,gpus,start_hour,end_hour,json "
      "FROM market_events" +
      whereClause(q);
  Statement st;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) return error("cannot read market events");
  bindQuery(st.s, q);
  RecordedEvent ev;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    ev.seq = sqlite3_column_int64(st.s, 0);
    ev.inputSeq = sqlite3_column_int64(st.s, 1);
    ev.timeMicros = sqlite3_column_int64(st.s, 2);
    ev.type = colText(st.s, 3);
    ev.cluster = sqlite3_column_int64(st.s, 4);  // NULL reads as 0
    ev.account = sqlite3_column_int64(st.s, 5);
    ev.order = sqlite3_column_int64(st.s, 6);
    ev.price = sqlite3_column_int64(st.s, 7);
    ev.gpus = sqlite3_column_int64(st.s, 8);
    ev.start = sqlite3_column_int64(st.s, 9);
    ev.end = sqlite3_column_int64(st.s, 10);
    ev.json = colText(st.s, 11);
    if (!row(ev)) return std::nullopt;
  }
  if (rc != SQLITE_DONE) return error("cannot read market events");
  return std::nullopt;
}

std::variant<HistorySummary, StoreError> MarketHistoryStore::summary() const {
  Statement st;
  if (sqlite3_prepare_v2(db_,
                         "SELECT (SELECT count(*) FROM input_events), (SELECT count(*) FROM market_events),"
                         " (SELECT min(time_us) FROM input_events), (SELECT max(time_us) FROM input_events),"
                         " (SELECT max(seq) FROM input_events), (SELECT max(seq) FROM market_events)",
                         -1, &st.s, nullptr) != SQLITE_OK)
    return error("cannot summarise the history");
  if (sqlite3_step(st.s) != SQLITE_ROW) return error("cannot summarise the history");
  HistorySummary s;
  s.inputs = sqlite3_column_int64(st.s, 0);
  s.events = sqlite3_column_int64(st.s, 1);
  s.firstMicros = sqlite3_column_int64(st.s, 2);
  s.lastMicros = sqlite3_column_int64(st.s, 3);
  s.lastInputSeq = sqlite3_column_int64(st.s, 4);
  s.lastEventSeq = sqlite3_column_int64(st.s, 5);
  return s;
}

}  // namespace tessera::store
