#include "core/engine/RestingLadder.h"

#include <algorithm>
#include <stdexcept>

namespace tessera {
namespace {
struct WorseFirst {
  bool operator()(const RestingLadder::Entry& a, const RestingLadder::Entry& b) const {
    return RestingLadder::better(b, a);
  }
};
}  // namespace

namespace {
// Merges the sorted run src[0, n) into the sorted vector `dst`, from the back of both: the
// entries of `src` not merged yet are exactly the free slots in front of the write position, so
// nothing unread is overwritten.
void mergeInto(std::vector<RestingLadder::Entry>& dst, const RestingLadder::Entry* src, std::size_t n) {
  std::size_t i = dst.size(), j = n;
  dst.resize(i + j);
  while (j > 0) {
    if (i > 0 && RestingLadder::better(dst[i - 1], src[j - 1])) {
      dst[i + j - 1] = dst[i - 1];
      --i;
    } else {
      dst[i + j - 1] = src[j - 1];
      --j;
    }
  }
}
}  // namespace

void RestingLadder::insert(const Entry& e) {
  std::size_t k = newestCount_;
  while (k > 0 && better(newest_[k - 1], e)) {
    newest_[k] = newest_[k - 1];
    --k;
  }
  newest_[k] = e;
  ++live_;
  keyBound_ = std::min(keyBound_, e.key);
  if (++newestCount_ == kNewest) mergeNewest();
}

RestingLadder::Run RestingLadder::bestRun() const {
  Run run = Run::None;
  const Entry* e = nullptr;
  if (!main_.empty()) {
    e = &main_.back();
    run = Run::Main;
  }
  if (!fresh_.empty() && (!e || better(fresh_.back(), *e))) {
    e = &fresh_.back();
    run = Run::Fresh;
  }
  if (newestCount_ > 0 && (!e || better(newest_[newestCount_ - 1], *e))) run = Run::Newest;
  return run;
}

const RestingLadder::Entry* RestingLadder::best() const {
  switch (bestRun()) {
    case Run::Main: return &main_.back();
    case Run::Fresh: return &fresh_.back();
    case Run::Newest: return &newest_[newestCount_ - 1];
    case Run::None: break;
  }
  return nullptr;
}

void RestingLadder::popBest() {
  switch (bestRun()) {
    case Run::Main: main_.pop_back(); break;
    case Run::Fresh: fresh_.pop_back(); break;
    case Run::Newest: --newestCount_; break;
    case Run::None: break;
  }
}

void RestingLadder::mergeNewest() {
  mergeInto(fresh_, newest_, newestCount_);
  newestCount_ = 0;
  if (fresh_.size() >= freshCapacity()) mergeFresh();
}

void RestingLadder::mergeFresh() {
  if (fresh_.empty()) return;
  mergeInto(main_, fresh_.data(), fresh_.size());
  fresh_.clear();
}

void RestingLadder::erase(std::int32_t key, std::uint64_t seq) {
  for (std::size_t k = 0; k < newestCount_; ++k) {
    if (newest_[k].key != key || newest_[k].seq != seq) continue;
    for (; k + 1 < newestCount_; ++k) newest_[k] = newest_[k + 1];
    --newestCount_;
    --live_;
    return;
  }
  const Entry probe{seq, key, 0};
  for (auto* run : {&fresh_, &main_}) {
    auto it = std::lower_bound(run->begin(), run->end(), probe, WorseFirst{});
    if (it != run->end() && it->key == key && it->seq == seq) {
      run->erase(it);
      --live_;
      return;
    }
  }
  throw std::logic_error("erasing an entry that is not in the ladder");
}

void RestingLadder::clear() {
  std::vector<Entry>().swap(main_);
  std::vector<Entry>().swap(fresh_);
  newestCount_ = 0;
  live_ = 0;
  keyBound_ = kNoKey;
  gpus = 0;
}

}  // namespace tessera
