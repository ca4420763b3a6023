#include "core/net/SettledContractArchive.h"

#include "core/engine/SnapshotCodec.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::net {

namespace {
ListedContract listed(const ArchivedContractRow& row) {
  SnapshotReader r(row.contract);
  return ListedContract{r.contract(), row.deliveredGpuHours};
}
}  // namespace

void SettledContractArchive::attach(ContractSettlement& settlement) {
  if (!retire_) return;
  settlement.retireSettled([this](ContractId id, std::int64_t delivered) { settled_.emplace_back(id, delivered); });
}

void SettledContractArchive::retireSettled(Matcher& engine) {
  for (const auto& [id, delivered] : settled_) {
    const auto k = engine.contract(id);
    if (!k) throw std::logic_error("settled contract " + std::to_string(id) + " is not in the engine");
    ArchivedContractRow row{k->id, k->buyer, k->seller, delivered, {}};
    SnapshotWriter w(row.contract);
    w.contract(*k);
    journal_.archiveContract(row);
    engine.forgetContract(id);
  }
  settled_.clear();
}

std::optional<ListedContract> SettledContractArchive::find(ContractId id) {
  if (auto row = journal_.archivedContract(id)) return listed(*row);
  return std::nullopt;
}

std::vector<ListedContract> SettledContractArchive::page(const Matcher& engine, AccountId account, ContractId after,
                                                         std::size_t limit) {
  const std::size_t wanted = limit == SIZE_MAX ? limit : limit + 1;
  std::vector<ListedContract> out;
  for (Contract& k : engine.contractsOf(account))
    if (k.id > after) out.push_back({std::move(k), std::nullopt});
  // The archive's first `wanted`: any later one comes after all of them.
  for (const ArchivedContractRow& row : journal_.archivedContracts(account, after, wanted)) out.push_back(listed(row));
  // The engine's copy first, when both hold one (a snapshot kept it, the archive has it too).
  std::stable_sort(out.begin(), out.end(),
                   [](const ListedContract& x, const ListedContract& y) { return x.contract.id < y.contract.id; });
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const ListedContract& x, const ListedContract& y) { return x.contract.id == y.contract.id; }),
      out.end());
  if (out.size() > wanted) out.resize(wanted);
  return out;
}

}  // namespace tessera::net
