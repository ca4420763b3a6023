#include "core/store/InputRow.h"

#include "core/engine/EventJson.h"

#include <nlohmann/json.hpp>

namespace tessera::store {
namespace {

struct RowWriter {
  InputRow& row;
  void operator()(const Cluster& c) {
    row.kind = InputKind::Cluster;
    row.cluster = c.id;
    row.extra = toJson(c).dump();
  }
  void operator()(const CapacityGrant& g) {
    row.kind = InputKind::Grant;
    row.account = g.account;
    row.cluster = g.cluster;
    row.gpus = g.gpus;
    row.start = g.start;
    row.end = g.end;
  }
  void operator()(const OrderRequest& o) {
    row.kind = InputKind::Order;
    row.order = static_cast<std::int64_t>(o.id);
    row.account = o.account;
    row.side = o.side == Side::Buy ? 0 : 1;
    if (o.cluster) row.cluster = *o.cluster;
    row.gpus = o.gpus;
    row.start = o.start;
    row.end = o.end;
    if (o.duration) row.duration = *o.duration;
    row.price = o.limit;
    row.fill = static_cast<std::int64_t>(o.fill);
    row.tif = static_cast<std::int64_t>(o.tif);
    if (o.expireAt) row.expireAt = *o.expireAt;
    row.flags = (o.postOnly ? 1 : 0) | (o.stp == SelfTradePrevention::CancelResting ? 2 : 0);
    if (o.sellBack) row.sellBack = static_cast<std::int64_t>(*o.sellBack);
    // Anything the typed columns cannot hold (constraints, cost factors, listing terms, fields
    // added later) travels as the order's JSON form: check by decoding the columns back.
    if (o.constraints) {
      row.extra = toJson(o).dump();
      return;
    }
    auto back = fromRow(row);
    const auto* in = std::get_if<RecordedInput>(&back);
    const auto* typed = in ? std::get_if<OrderRequest>(&in->event) : nullptr;
    if (!typed || !(*typed == o)) row.extra = toJson(o).dump();
  }
  void operator()(const CancelRequest& c) {
    row.kind = InputKind::Cancel;
    row.order = static_cast<std::int64_t>(c.id);
    row.account = c.account;
  }
  void operator()(const AmendRequest& a) {
    row.kind = InputKind::Amend;
    row.order = static_cast<std::int64_t>(a.id);
    row.account = a.account;
    if (a.limit) row.price = *a.limit;
    if (a.gpus) row.gpus = *a.gpus;
  }
  void operator()(const ClockAdvance& c) {
    row.kind = InputKind::Clock;
    row.start = c.now;
  }
  // The receiving account has no column of its own: it travels in `extra`.
  void operator()(const CapacityTransfer& t) {
    row.kind = InputKind::Transfer;
    row.order = static_cast<std::int64_t>(t.replaces);
    row.account = t.from;
    row.cluster = t.cluster;
    row.gpus = t.gpus;
    row.start = t.start;
    row.end = t.end;
    row.price = t.price;
    row.extra = nlohmann::json{{"to", t.to}}.dump();
  }
  // The holder travels in `extra`, as a transfer's receiving account does.
  void operator()(const CapacityReclaim& r) {
    row.kind = InputKind::Reclaim;
    row.order = static_cast<std::int64_t>(r.contract);
    row.account = r.provider;
    row.gpus = r.gpus;
    row.start = r.start;
    row.end = r.end;
    row.extra = nlohmann::json{{"holder", r.holder}}.dump();
  }
};

StoreError rowError(const InputRow& row, const std::string& what) {
  return {"input " + std::to_string(row.seq) + " (" + std::string(toString(row.kind)) + "): " + what};
}

}  // namespace

InputRow toRow(const RecordedInput& in) {
  InputRow row;
  row.seq = in.seq;
  row.timeMicros = in.timeMicros;
  std::visit(RowWriter{row}, in.event);
  return row;
}

std::variant<RecordedInput, StoreError> fromRow(const InputRow& row) {
  RecordedInput in;
  in.seq = row.seq;
  in.timeMicros = row.timeMicros;
  auto need = [&](const std::optional<std::int64_t>& v, const char* name) -> std::optional<StoreError> {
    if (!v) return rowError(row, std::string("missing ") + name);
    return std::nullopt;
  };
  switch (row.kind) {
    case InputKind::Cluster: {
      nlohmann::json j = nlohmann::json::parse(row.extra, nullptr, false);
      if (j.is_discarded()) return rowError(row, "cluster definition is not valid JSON");
      auto c = clusterFromJson(j);
      if (auto* e = std::get_if<JsonError>(&c)) return rowError(row, e->message);
      in.event = std::get<Cluster>(std::move(c));
      return in;
    }
    case InputKind::Grant: {
      for (auto [v, n] : {std::pair{&row.account, "account"},
                          {&row.cluster, "cluster"},
                          {&row.gpus, "gpus"},
                          {&row.start, "start"},
                          {&row.end, "end"}})
        if (auto e = need(*v, n)) return *e;
      in.event = CapacityGrant{static_cast<AccountId>(*row.account), static_cast<ClusterId>(*row.cluster),
                               static_cast<GpuCount>(*row.gpus), *row.start, *row.end};
      return in;
    }
    case InputKind::Order: {
      for (auto [v, n] : {std::pair{&row.account, "account"},
                          {&row.order, "order"},
                          {&row.side, "side"},
                          {&row.gpus, "gpus"},
                          {&row.start, "start"},
                          {&row.end, "end"},
                          {&row.price, "price"},
                          {&row.fill, "fill"},
                          {&row.tif, "tif"}})
        if (auto e = need(*v, n)) return *e;
      if (!row.extra.empty()) {
        nlohmann::json j = nlohmann::json::parse(row.extra, nullptr, false);
        if (j.is_discarded()) return rowError(row, "order is not valid JSON");
        auto o = orderFromJson(j, static_cast<AccountId>(*row.account));
        if (auto* e = std::get_if<JsonError>(&o)) return rowError(row, e->message);
        in.event = std::get<OrderRequest>(std::move(o));
        return in;
      }
      if (*row.side < 0 || *row.side > 1) return rowError(row, "side must be 0 (buy) or 1 (sell)");
      if (*row.fill < 0 || *row.fill > 1) return rowError(row, "fill must be 0 or 1");
      if (*row.tif < 0 || *row.tif > 3) return rowError(row, "tif must be 0..3");
      OrderRequest o;
      o.id = static_cast<OrderId>(*row.order);
      o.account = static_cast<AccountId>(*row.account);
      o.side = *row.side == 0 ? Side::Buy : Side::Sell;
      if (row.cluster) o.cluster = static_cast<ClusterId>(*row.cluster);
      o.gpus = static_cast<GpuCount>(*row.gpus);
      o.start = *row.start;
      o.end = *row.end;
      o.duration = row.duration;
      o.limit = *row.price;
      o.fill = static_cast<FillStyle>(*row.fill);
      o.tif = static_cast<TimeInForce>(*row.tif);
      o.expireAt = row.expireAt;
      const std::int64_t flags = row.flags.value_or(0);
      o.postOnly = (flags & 1) != 0;
      o.stp = (flags & 2) != 0 ? SelfTradePrevention::CancelResting : SelfTradePrevention::CancelIncoming;
      if (row.sellBack) o.sellBack = static_cast<ContractId>(*row.sellBack);
      in.event = std::move(o);
      return in;
    }
    case InputKind::Cancel:
      if (auto e = need(row.order, "order")) return *e;
      if (auto e = need(row.account, "account")) return *e;
      in.event = CancelRequest{static_cast<OrderId>(*row.order), static_cast<AccountId>(*row.account)};
      return in;
    case InputKind::Amend: {
      if (auto e = need(row.order, "order")) return *e;
      if (auto e = need(row.account, "account")) return *e;
      AmendRequest a{static_cast<OrderId>(*row.order), static_cast<AccountId>(*row.account), row.price, std::nullopt};
      if (row.gpus) a.gpus = static_cast<GpuCount>(*row.gpus);
      in.event = a;
      return in;
    }
    case InputKind::Clock:
      if (auto e = need(row.start, "start (the clock hour)")) return *e;
      in.event = ClockAdvance{*row.start};
      return in;
    case InputKind::Transfer: {
      for (auto [v, n] : {std::pair{&row.account, "account"},
                          {&row.order, "order (the replaced contract)"},
                          {&row.cluster, "cluster"},
                          {&row.gpus, "gpus"},
                          {&row.start, "start"},
                          {&row.end, "end"},
                          {&row.price, "price"}})
        if (auto e = need(*v, n)) return *e;
      const nlohmann::json j = nlohmann::json::parse(row.extra, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("to") || !j["to"].is_number_unsigned())
        return rowError(row, "transfer needs {\"to\": account id} in extra");
      in.event = CapacityTransfer{static_cast<ContractId>(*row.order),
                                  static_cast<AccountId>(*row.account),
                                  j["to"].get<AccountId>(),
                                  static_cast<ClusterId>(*row.cluster),
                                  static_cast<GpuCount>(*row.gpus),
                                  *row.start,
                                  *row.end,
                                  *row.price};
      return in;
    }
    case InputKind::Reclaim: {
      for (auto [v, n] : {std::pair{&row.account, "account"},
                          {&row.order, "order (the contract)"},
                          {&row.gpus, "gpus"},
                          {&row.start, "start"},
                          {&row.end, "end"}})
        if (auto e = need(*v, n)) return *e;
      const nlohmann::json j = nlohmann::json::parse(row.extra, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("holder") || !j["holder"].is_number_unsigned())
        return rowError(row, "reclaim needs {\"holder\": account id} in extra");
      in.event = CapacityReclaim{static_cast<ContractId>(*row.order),
                                 static_cast<AccountId>(*row.account),
                                 j["holder"].get<AccountId>(),
                                 static_cast<GpuCount>(*row.gpus),
                                 *row.start,
                                 *row.end};
      return in;
    }
  }
  return rowError(row, "unknown kind");
}

std::string_view toString(InputKind k) {
  switch (k) {
    case InputKind::Cluster: return "cluster";
    case InputKind::Grant: return "grant";
    case InputKind::Order: return "order";
    case InputKind::Cancel: return "cancel";
    case InputKind::Amend: return "amend";
    case InputKind::Clock: return "clock";
    case InputKind::Transfer: return "transfer";
    case InputKind::Reclaim: return "reclaim";
  }
  return "?";
}

std::optional<InputKind> parseInputKind(std::string_view s) {
  for (int k = 0; k <= kLastInputKind; ++k)
    if (toString(static_cast<InputKind>(k)) == s) return static_cast<InputKind>(k);
  return std::nullopt;
}

}  // namespace tessera::store
