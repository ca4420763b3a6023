#include "core/net/JournalReplay.h"

#include "core/domain/Fnv1a.h"
#include "core/engine/EventJson.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/SnapshotStore.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tessera::net {
namespace {

std::uint64_t entryDigest(const JournalEntry& e) {
  Fnv1a h;
  h.add(e.clOrdId);
  h.add("\n");
  h.add(e.input);
  return h.value();
}

}  // namespace

JournalReplay::JournalReplay(Journal& journal, AccountDirectory& directory)
    : journal_(journal), directory_(directory) {}

void JournalReplay::registerEntry(std::string type, EntryHandler replay) {
  handlers_[std::move(type)] = std::move(replay);
}

std::uint64_t JournalReplay::run(std::uint64_t afterSeq, const InputHandler& onInput) {
  replaying_ = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{replaying_};
  return journal_.replay(
      [&](const JournalEntry& e) {
        const nlohmann::json j = nlohmann::json::parse(e.input, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
          throw std::runtime_error("journal entry " + std::to_string(e.seq) + " is not JSON");
        }
        // The one place non-engine entries are dispatched: by their "type".
        if (auto type = j.find("type"); type != j.end() && type->is_string()) {
          if (auto h = handlers_.find(type->get_ref<const std::string&>()); h != handlers_.end()) {
            try {
              h->second(j);
            } catch (const std::exception& x) {
              throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": " + x.what());
            }
            return;
          }
        }
        auto parsed = inputEventFromJson(j, directory_);
        if (auto* err = std::get_if<JsonError>(&parsed)) {
          throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": " + err->message);
        }
        onInput(e, std::get<InputEvent>(std::move(parsed)));
      },
      afterSeq);
}

void JournalReplay::append(std::string_view line) {
  if (replaying_) return;
  journal_.append("", line);
}

void JournalReplay::writeHeader(SnapshotWriter& w, std::uint64_t fingerprint) const {
  w.str(kSnapshotFormat);
  const std::uint64_t seq = journal_.lastSeq();
  w.pod(seq);
  const auto last = seq ? journal_.entry(seq) : std::nullopt;
  w.pod<std::uint64_t>(last ? entryDigest(*last) : 0);
  w.pod(journal_.id());
  w.pod(fingerprint);
}

void JournalReplay::checkHeader(SnapshotReader& r, std::uint64_t journalSeq, std::uint64_t fingerprint) const {
  if (r.str() != kSnapshotFormat) throw SnapshotCorrupt("not a snapshot of this version");
  const auto seq = r.pod<std::uint64_t>();
  const auto digest = r.pod<std::uint64_t>();
  if (seq != journalSeq) throw SnapshotCorrupt("its bytes name another journal entry than its record");
  const auto last = seq ? journal_.entry(seq) : std::nullopt;
  if (seq && !last)
    throw SnapshotCorrupt("taken after journal entry " + std::to_string(seq) + ", which this journal does not have");
  if ((last ? entryDigest(*last) : 0) != digest || r.pod<std::uint64_t>() != journal_.id())
    throw SnapshotCorrupt("taken from another journal");
  if (r.pod<std::uint64_t>() != fingerprint)
    throw SnapshotCorrupt("the configured accounts or fee changed since it was taken");
}

}  // namespace tessera::net
