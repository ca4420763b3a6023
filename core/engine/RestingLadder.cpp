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

void RestingLadder::insert(const Entry& e) {
  fresh_.insert(std::upper_bound(fresh_.begin(), fresh_.end(), e, WorseFirst{}), e);
  ++live_;
  keyBound_ = std::min(keyBound_, e.key);
  if (fresh_.size() >= freshCapacity()) mergeFresh();
}

const RestingLadder::Entry* RestingLadder::best() const {
  if (main_.empty()) return fresh_.empty() ? nullptr : &fresh_.back();
  if (fresh_.empty() || better(main_.back(), fresh_.back())) return &main_.back();
  return &fresh_.back();
}

void RestingLadder::popBest() {
  if (main_.empty() || (!fresh_.empty() && better(fresh_.back(), main_.back()))) fresh_.pop_back();
  else main_.pop_back();
}

void RestingLadder::mergeFresh() {
  if (fresh_.empty()) return;
  // Merge from the back of both runs into the back of `main_`: the j entries of `fresh_` not yet
  // merged are exactly the free slots still in front of the write position, so nothing unread is
  // overwritten.
  std::size_t i = main_.size(), j = fresh_.size();
  main_.resize(i + j);
  while (j > 0) {
    if (i > 0 && better(main_[i - 1], fresh_[j - 1])) {
      main_[i + j - 1] = main_[i - 1];
      --i;
    } else {
      main_[i + j - 1] = fresh_[j - 1];
      --j;
    }
  }
  fresh_.clear();
}

void RestingLadder::erase(std::int32_t key, std::uint64_t seq) {
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
  live_ = 0;
  keyBound_ = kNoKey;
  gpus = 0;
}

}  // namespace tessera
