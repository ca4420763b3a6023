#include "core/net/JournalForm.h"

#include "core/engine/EventJson.h"
#include "core/net/ServerMessage.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace tessera::net {
namespace {

template <typename Integer>
void num(std::string& out, const char* key, Integer v) {
  out += ",\"";
  out += key;
  out += "\":";
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, p);
}
void text(std::string& out, const char* key, std::string_view v) {
  out += ",\"";
  out += key;
  out += "\":\"";
  out += v;  // a fixed vocabulary word: nothing to escape
  out += '"';
}

// True if `o` holds nothing but the fields written by hand below. Rebuilding it from those
// fields and comparing (OrderRequest's == covers every member) means an order field added to
// the engine later falls back to EventJson instead of silently missing from the journal.
bool onlyPlainFields(const OrderRequest& o) {
  OrderRequest plain;
  plain.id = o.id;
  plain.account = o.account;
  plain.side = o.side;
  plain.cluster = o.cluster;
  plain.gpus = o.gpus;
  plain.start = o.start;
  plain.end = o.end;
  plain.duration = o.duration;
  plain.limit = o.limit;
  plain.fill = o.fill;
  plain.tif = o.tif;
  plain.expireAt = o.expireAt;
  plain.postOnly = o.postOnly;
  plain.stp = o.stp;
  plain.sellBack = o.sellBack;
  return plain == o;
}

}  // namespace

void writeJournalForm(std::string& out, const InputEvent& in, const AccountDirectory& accounts) {
  out.clear();
  if (const auto* o = std::get_if<OrderRequest>(&in); o && onlyPlainFields(*o)) {
    out += "{\"type\":\"order\",\"account\":";
    out += jsonString(accounts.name(o->account));
    num(out, "id", o->id);
    text(out, "side", toString(o->side));
    if (o->cluster) num(out, "cluster", *o->cluster);
    num(out, "gpus", o->gpus);
    num(out, "start", o->start);
    num(out, "end", o->end);
    if (o->duration) num(out, "duration", *o->duration);
    num(out, "limit", o->limit);
    text(out, "fill", toString(o->fill));
    text(out, "tif", toString(o->tif));
    if (o->expireAt) num(out, "expire_at", *o->expireAt);
    if (o->postOnly) out += ",\"post_only\":true";
    if (o->stp != SelfTradePrevention::CancelIncoming) text(out, "stp", toString(o->stp));
    if (o->sellBack) num(out, "sell_back", *o->sellBack);
    out += '}';
    return;
  }
  if (const auto* c = std::get_if<CancelRequest>(&in)) {
    out += "{\"type\":\"cancel\"";
    num(out, "id", c->id);
    out += ",\"account\":";
    out += jsonString(accounts.name(c->account));
    out += '}';
    return;
  }
  out = toJson(in, accounts).dump();
}

}  // namespace tessera::net
