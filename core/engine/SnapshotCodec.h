#pragma once
// The byte form of a state snapshot: values appended in a fixed order, native little-endian
// (x86-64 and AArch64 both are), read back in the same order. Each part writes and reads
// itself; the reader throws SnapshotCorrupt on a snapshot that ends early or holds an
// impossible value, so a damaged snapshot is never half-applied into a live state (the
// container's checksum catches damage first; this is the second line).
#include "core/domain/OfferTerms.h"
#include "core/engine/Events.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tessera {

class SnapshotCorrupt : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SnapshotWriter {
 public:
  explicit SnapshotWriter(std::string& out) : out_(out) {}
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void str(std::string_view s) {
    pod<std::uint64_t>(s.size());
    out_.append(s);
  }
  template <typename T>
  void pods(const T* p, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    pod<std::uint64_t>(n);
    out_.append(reinterpret_cast<const char*>(p), n * sizeof(T));
  }
  template <typename V>
  void podVector(const V& v) {
    pods(v.data(), v.size());
  }
  void terms(const OfferTerms& t);
  void contract(const Contract& k);
  // A length written before what it measures: reserve() leaves room, fill() writes there the
  // bytes appended since.
  std::size_t reserve() {
    pod<std::uint64_t>(0);
    return out_.size();
  }
  void fill(std::size_t at) {
    const std::uint64_t n = out_.size() - at;
    std::memcpy(out_.data() + at - sizeof n, &n, sizeof n);
  }

 private:
  std::string& out_;
};

class SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view in) : in_(in) {}
  template <typename T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  std::string str() {
    const auto n = count(1);
    return std::string(take(n), n);
  }
  // A count of elements of `size` bytes that the rest of the snapshot can hold.
  std::size_t count(std::size_t size) {
    const auto n = pod<std::uint64_t>();
    if (size != 0 && n > (in_.size() - pos_) / size) throw SnapshotCorrupt("snapshot: a count runs past its end");
    return static_cast<std::size_t>(n);
  }
  template <typename V>
  void podVector(V& v) {
    using T = typename V::value_type;
    const auto n = count(sizeof(T));
    v.resize(n);
    if (n) std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
  }
  OfferTerms terms();
  Contract contract();
  // The next `n` bytes as they are (a part that reads itself, such as the engine's).
  std::string_view bytes(std::size_t n) { return std::string_view(take(n), n); }
  bool done() const { return pos_ == in_.size(); }

 private:
  const char* take(std::size_t n) {
    if (n > in_.size() - pos_) throw SnapshotCorrupt("snapshot: ends early");
    const char* p = in_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

inline void SnapshotWriter::terms(const OfferTerms& t) {
  pod(t.guaranteesDeviceCount);
  pod(t.guaranteesLocation);
  pod(t.guaranteesFabric);
  pod(t.estimatedTflopsPerGpu.has_value());
  pod(t.estimatedTflopsPerGpu.value_or(0));
  pod(t.billing);
  pod(t.uptimePromisePpm);
  pod(t.creditPerUndeliveredGpuHour);
  pod(t.remedy);
  pod(t.replacementWithinHours);
}

inline OfferTerms SnapshotReader::terms() {
  OfferTerms t;
  t.guaranteesDeviceCount = pod<bool>();
  t.guaranteesLocation = pod<bool>();
  t.guaranteesFabric = pod<bool>();
  const bool tflops = pod<bool>();
  const int v = pod<int>();
  if (tflops) t.estimatedTflopsPerGpu = v;
  t.billing = pod<BillingBasis>();
  t.uptimePromisePpm = pod<int>();
  t.creditPerUndeliveredGpuHour = pod<Price>();
  t.remedy = pod<Remedy>();
  t.replacementWithinHours = pod<int>();
  return t;
}

inline void SnapshotWriter::contract(const Contract& k) {
  pod(k.id);
  pod(k.trade);
  pod(k.buyer);
  pod(k.seller);
  pod(k.buyOrder);
  pod(k.sellOrder);
  pod(k.cluster);
  pod(k.gpus);
  pod(k.start);
  pod(k.end);
  pod(k.price);
  terms(k.terms);
  pod(k.replaces);
}

inline Contract SnapshotReader::contract() {
  Contract k;
  k.id = pod<ContractId>();
  k.trade = pod<TradeId>();
  k.buyer = pod<AccountId>();
  k.seller = pod<AccountId>();
  k.buyOrder = pod<OrderId>();
  k.sellOrder = pod<OrderId>();
  k.cluster = pod<ClusterId>();
  k.gpus = pod<GpuCount>();
  k.start = pod<Hour>();
  k.end = pod<Hour>();
  k.price = pod<Price>();
  k.terms = terms();
  k.replaces = pod<ContractId>();
  return k;
}

}  // namespace tessera
