#include "core/net/BookMirror.h"

namespace tessera::net {

void BookMirror::applySnapshot(std::uint64_t seq, const std::vector<BookCell>& cells) {
  cells_.clear();
  for (const BookCell& c : cells) {
    if (!c.levels.empty()) cells_[c.key] = c.levels;
  }
  seq_ = seq;
  hasBase_ = true;
  gap_ = false;
}

BookMirror::Result BookMirror::check(std::uint64_t seq) {
  if (!hasBase_) return Result::NotSynced;
  if (seq <= seq_) return Result::Duplicate;
  if (seq != seq_ + 1) {
    gap_ = true;
    return Result::Gap;
  }
  seq_ = seq;
  gap_ = false;  // the next delta in order heals a gap: the missed ones were resent
  return Result::Applied;
}

BookMirror::Result BookMirror::applyCell(std::uint64_t seq, const BookCell& cell) {
  const Result r = check(seq);
  if (r != Result::Applied) return r;
  if (cell.levels.empty())
    cells_.erase(cell.key);
  else
    cells_[cell.key] = cell.levels;
  return r;
}

BookMirror::Result BookMirror::advance(std::uint64_t seq) { return check(seq); }

void BookMirror::reset() {
  cells_.clear();
  seq_ = 0;
  hasBase_ = false;
  gap_ = false;
}

const std::vector<BookLevel>* BookMirror::levels(const CellKey& key) const {
  auto it = cells_.find(key);
  return it == cells_.end() ? nullptr : &it->second;
}

std::vector<BookCell> BookMirror::cells() const {
  std::vector<BookCell> out;
  out.reserve(cells_.size());
  for (const auto& [key, levels] : cells_) out.push_back(BookCell{key, levels});
  return out;
}

}  // namespace tessera::net
