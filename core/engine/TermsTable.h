#pragma once
// Offer terms kept once each: few sellers vary them, and millions of contracts and orders would
// otherwise each carry a copy. Anything that stores many records names terms by their index.
#include "core/domain/OfferTerms.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tessera {

class TermsTable {
 public:
  // The index of `t`, added if new. Indices are dense from 0 and never change.
  std::uint32_t intern(const OfferTerms& t);
  const OfferTerms& at(std::uint32_t index) const { return terms_[index]; }
  std::size_t size() const { return terms_.size(); }

 private:
  struct Hash {
    std::size_t operator()(const OfferTerms& t) const;
  };
  std::vector<OfferTerms> terms_;
  std::unordered_map<OfferTerms, std::uint32_t, Hash> index_;
  std::uint32_t last_ = 0;  // most records in a row come from sellers with the same terms
};

}  // namespace tessera
