#pragma once
// The exchange's write-ahead record: every input the matching engine accepted, in order, in a
// SQLite database in WAL mode. Inputs are appended inside a transaction that the matching
// thread commits once per batch (group commit); acknowledgements leave only after the commit.
// Replaying the rows through a fresh engine rebuilds the exact state (the engine is
// deterministic).
#include "core/store/Sqlite.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <memory>
#include <string>
#include <stdexcept>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::net {

// A journal that exists but cannot be opened or replayed (not a journal, damaged, or written by
// an incompatible version). Its owner may keep the file aside and start afresh.
class JournalUnreadable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A finished order as the journal's archive keeps it (table finished_orders): written in the
// same transaction as the entry that finished it, so a commit holds both or neither.
struct ArchivedOrder {
  std::uint64_t orderId = 0;
  std::uint64_t account = 0;
  std::string clOrdId;
  int status = 0;  // OrderStatus (core/engine/Matcher.h)
  std::int64_t filledGpuHours = 0;
  std::int64_t leavesGpuHours = 0;
  std::string order;  // the order as accepted, after amends (EventJson form)
};

// A settled contract as the journal's archive keeps it (table settled_contracts), written in the
// same transaction as the entry that settled it (SettledContractArchive reads and writes it).
struct ArchivedContractRow {
  std::uint64_t contractId = 0;
  std::uint64_t buyer = 0;
  std::uint64_t seller = 0;
  std::int64_t deliveredGpuHours = 0;
  std::string contract;  // the contract in the snapshot form (SnapshotWriter::contract)
};

struct JournalEntry {
  std::uint64_t seq = 0;
  std::string clOrdId;  // for orders: the client's id of the order
  std::string input;    // the input event, JSON (core/engine/EventJson.h form)
};

class Journal {
 public:
  // ":memory:" keeps the journal in memory (embedded exchange, tests). `syncFull` fsyncs each
  // commit; without it a commit survives the process being killed but not a power cut.
  static std::variant<std::unique_ptr<Journal>, std::string> open(const std::string& path, bool syncFull);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Calls `f` for every entry after `afterSeq`, in order (a snapshot holds those up to it).
  // Returns the number of entries it called `f` for. Afterwards lastSeq() is the last entry's.
  std::uint64_t replay(const std::function<void(const JournalEntry&)>& f, std::uint64_t afterSeq = 0);

  // append() opens a transaction if none is open; commit() makes everything appended durable.
  // A failing write is not a user error: the exchange cannot acknowledge anything any more,
  // so these throw std::runtime_error.
  void append(std::string_view clOrdId, std::string_view input);
  void commit();
  bool inTransaction() const { return inTransaction_; }
  // The stored entry `seq` (committed or in this connection's open transaction), if any: a
  // snapshot names the entry it was taken after, so that it is never applied to another journal.
  std::optional<JournalEntry> entry(std::uint64_t seq);
  std::uint64_t lastSeq() const { return lastSeq_; }

  // The archive of finished orders (docs/protocol.md "Finished orders"). archive() writes in the
  // open transaction (opening one if none is), like append(); an order already archived keeps
  // its row. While replay() hands out an entry committed with its rows,
  // replayingEntryWithArchivedOrders() is true and the caller need not archive again.
  void archive(const ArchivedOrder& o);
  std::optional<ArchivedOrder> archived(std::uint64_t orderId);
  // The newest archived order of `account` that `clOrdId` names.
  std::optional<ArchivedOrder> archived(std::uint64_t account, std::string_view clOrdId);
  // Up to `limit` archived orders of `account` with ids above `afterOrderId`, ascending.
  std::vector<ArchivedOrder> archivedPage(std::uint64_t account, std::uint64_t afterOrderId, std::size_t limit);
  std::uint64_t archivedCount();
  // The archive of settled contracts (docs/protocol.md "Settled contracts"), written like
  // archive(); a contract already archived keeps its row.
  void archiveContract(const ArchivedContractRow& k);
  std::optional<ArchivedContractRow> archivedContract(std::uint64_t contractId);
  // Up to `limit` archived contracts where `account` is buyer or seller, ids above
  // `afterContractId`, ascending.
  std::vector<ArchivedContractRow> archivedContracts(std::uint64_t account, std::uint64_t afterContractId,
                                                     std::size_t limit);
  // A random number given to the journal when it is created: snapshots name the journal they
  // were taken from, so that one left beside a new journal is never applied to it.
  std::uint64_t id() const { return id_; }
  // The last entry written before finished orders' rows were committed with their entries (0
  // for a journal that always had them).
  std::uint64_t finishedOrdersCompleteAfter() const { return finishedOrdersCompleteAfter_; }
  bool replayingEntryWithArchivedOrders() const { return replayingSeq_ > finishedOrdersCompleteAfter_; }

 private:
  Journal() = default;
  void exec(const char* sql);
  void begin();  // opens the batch's transaction if none is open
  sqlite3_stmt* prepared(sqlite3_stmt*& s, const char* sql);
  sqlite3_stmt* archiveInsert_ = nullptr;
  sqlite3_stmt* archivedById_ = nullptr;
  sqlite3_stmt* archivedByClOrdId_ = nullptr;
  sqlite3_stmt* archivedPage_ = nullptr;
  sqlite3_stmt* contractInsert_ = nullptr;
  sqlite3_stmt* contractById_ = nullptr;
  sqlite3_stmt* contractPage_ = nullptr;
  void step(sqlite3_stmt* statement, const char* what);
  void checkpointLoop(std::string path);
  static int onWalCommit(void* journal, sqlite3*, const char*, int frames);
  store::SqliteDb db_;  // closed after the destructor finalizes the prepared statements
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  bool inTransaction_ = false;
  std::uint64_t lastSeq_ = 0;
  std::uint64_t id_ = 0;
  std::uint64_t finishedOrdersCompleteAfter_ = 0;
  std::uint64_t replayingSeq_ = 0;  // the entry replay() is handing out, else 0

  // Checkpoints (copying the WAL back into the database, with an fsync) run on their own
  // thread and connection, so a commit never copies the WAL itself. PASSIVE checkpoints never
  // block the writer, but under sustained writes they never catch up with it either, and only
  // a WAL that is entirely copied can be started over from its beginning. So each round ends
  // with one last PASSIVE checkpoint between two transactions (holding `between_`, which the
  // writer holds from the first append of a batch to its commit): it copies only the few
  // frames the unlocked rounds left, and the writer's next transaction starts the WAL over.
  std::thread checkpointer_;
  std::mutex between_;
  std::unique_lock<std::mutex> writing_{between_, std::defer_lock};
  std::mutex checkpointMutex_;
  std::condition_variable checkpointWake_;
  bool checkpointWanted_ = false;
  bool closing_ = false;
};

}  // namespace tessera::net
