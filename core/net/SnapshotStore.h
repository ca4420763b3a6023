#pragma once
// Snapshots of the exchange's whole state (ExchangeCore::snapshot), kept in their own SQLite
// file next to the journal ("<journal>.snapshots"), so that writing one never holds the
// journal's write lock. Format: docs/protocol.md, "Snapshots". Each snapshot is written in one
// transaction (chunks of at most 64 MiB, SQLite's blob limit being 1 GB) with the journal
// sequence it was taken at, a fingerprint of the configuration it depends on, and an FNV-1a
// checksum of its bytes; the newest two are kept. A snapshot whose transaction did not commit
// (the process was killed while writing it) is not there; one whose bytes do not match their
// checksum is reported as damaged, and its reader falls back to an older one or a full replay.
#include "core/store/Sqlite.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tessera::net {

inline constexpr const char* kSnapshotFormat = "tessera-exchange-snapshot-6";

struct SnapshotInfo {
  std::int64_t id = 0;
  std::uint64_t journalSeq = 0;  // the state after journal entries 1..journalSeq
  std::uint64_t configFingerprint = 0;
  std::string format;
  std::string writtenAt;  // UTC, for people
};

class SnapshotStore {
 public:
  // Creates the file if missing. An error says why it cannot be used.
  static std::variant<std::unique_ptr<SnapshotStore>, std::string> open(const std::string& path);
  ~SnapshotStore();
  SnapshotStore(const SnapshotStore&) = delete;
  SnapshotStore& operator=(const SnapshotStore&) = delete;

  // Writes a snapshot and drops all but the newest `keep`. Throws std::runtime_error when the
  // file cannot be written (the journal still holds everything: the caller logs it and goes on).
  void write(std::uint64_t journalSeq, std::uint64_t configFingerprint, const std::string& bytes, int keep = 2);
  // Newest first.
  std::vector<SnapshotInfo> list();
  // The bytes of snapshot `id`, or why they cannot be used (missing chunks, checksum mismatch).
  std::variant<std::string, std::string> read(std::int64_t id);

 private:
  SnapshotStore() = default;
  void exec(const char* sql);
  store::SqliteDb db_;
};

}  // namespace tessera::net
