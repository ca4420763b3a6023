#pragma once
// Rebuilding the exchange from its journal, and the checks that tie a snapshot to the journal it
// was taken from.
//
// A journal entry is either an engine input (core/engine/EventJson.h form) or an entry of the
// exchange's own (delivery reports, outages, forward orders) with a "type" the engine does not
// know. Each such type has exactly one replay handler, registered by the part that writes it;
// run() dispatches by "type" and hands everything else, parsed, to the input handler. While it
// runs, replaying() is true, and append() writes nothing: what is replayed is already there.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"
#include "core/net/Journal.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class JournalReplay {
 public:
  using EntryHandler = std::function<void(const nlohmann::json& entry)>;
  // An engine input and the entry it was read from (for its seq and client order id).
  using InputHandler = std::function<void(const JournalEntry& entry, InputEvent&& input)>;

  JournalReplay(Journal& journal, AccountDirectory& directory);

  // The one handler of entries of `type` (a later registration replaces it).
  void registerEntry(std::string type, EntryHandler replay);
  // Replays the entries after `afterSeq` and returns how many there were. Throws
  // std::runtime_error naming the entry that is not JSON, has no handler's form, or whose
  // handler threw.
  std::uint64_t run(std::uint64_t afterSeq, const InputHandler& onInput);
  bool replaying() const { return replaying_; }
  // Writes an entry of the exchange's own (live only).
  void append(std::string_view line);

  // A snapshot's first fields: its format, the journal entry it was taken after with that
  // entry's digest, the journal's id and the configuration's fingerprint.
  void writeHeader(SnapshotWriter& w, std::uint64_t fingerprint) const;
  // Reads them back; throws SnapshotCorrupt unless they name entry `journalSeq` of this journal
  // as it is, and `fingerprint`.
  void checkHeader(SnapshotReader& r, std::uint64_t journalSeq, std::uint64_t fingerprint) const;

 private:
  Journal& journal_;
  AccountDirectory& directory_;
  std::map<std::string, EntryHandler, std::less<>> handlers_;
  bool replaying_ = false;
};

}  // namespace tessera::net
