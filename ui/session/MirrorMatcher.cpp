#include "ui/session/MirrorMatcher.h"

#include <stdexcept>

namespace tessera::ui {

MirrorMatcher::MirrorMatcher(net::BookMirror book, std::vector<Cluster> clusters, Hour now)
    : book_(std::move(book)), clusters_(std::move(clusters)), now_(now) {}

void MirrorMatcher::apply(const InputEvent&, std::vector<Event>&) {
  throw std::logic_error("MirrorMatcher is a read-only view of a remote book");
}

void MirrorMatcher::forget(OrderId) { throw std::logic_error("MirrorMatcher holds no orders to forget"); }

void MirrorMatcher::forgetContract(ContractId) { throw std::logic_error("MirrorMatcher holds no contracts to forget"); }

const Cluster* MirrorMatcher::cluster(ClusterId id) const {
  for (const Cluster& c : clusters_) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

std::vector<BookLevel> MirrorMatcher::depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const {
  const auto* levels = book_.levels({cluster, hour, side});
  if (!levels) return {};
  std::vector<BookLevel> out(levels->begin(),
                             levels->begin() + static_cast<std::ptrdiff_t>(std::min(maxLevels, levels->size())));
  return out;
}

}  // namespace tessera::ui
