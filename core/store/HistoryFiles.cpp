#include "core/store/HistoryFiles.h"

#include "core/store/Csv.h"

#include "core/engine/EventJson.h"
#include "core/store/InputRow.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <istream>
#include <ostream>

namespace tessera::store {
namespace {

constexpr const char* kInputCsvHeader =
    "seq,time_us,kind,cluster,account,order_id,side,gpus,start_hour,end_hour,duration,price,fill,tif,"
    "expire_at,flags,sell_back,extra";
constexpr std::size_t kInputCsvColumns = 18;
constexpr std::size_t kImportBatch = 4096;

std::string opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

bool parseOpt(const std::string& s, std::optional<std::int64_t>& v) {
  if (s.empty()) {
    v.reset();
    return true;
  }
  std::int64_t x = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  v = x;
  return true;
}

std::int64_t clockOf(const InputEvent& e, std::int64_t fallback) {
  if (const auto* c = std::get_if<ClockAdvance>(&e)) return c->now * kMicrosPerHour;
  return fallback;
}

class Importer {
 public:
  Importer(MarketHistoryStore& store, AccountDirectory& accounts) : store_(store), accounts_(accounts) {}

  void add(std::optional<std::int64_t> seq, std::optional<std::int64_t> time, InputEvent e) {
    // Untimed lines keep their order, one microsecond apart after the last clock tick.
    const std::int64_t t = time ? *time : clockOf(e, lastTime_ + 1);
    lastTime_ = std::max(lastTime_, t);
    (void)seq;  // renumbered: imports append after what the store holds
    batch_.push_back({0, t, std::move(e)});
    if (batch_.size() >= kImportBatch) flushBatch();
  }
  std::optional<StoreError> finish() {
    flushBatch();
    if (error_) return error_;
    return store_.saveAccounts(accounts_);
  }
  std::int64_t imported() const { return imported_; }
  const std::optional<StoreError>& error() const { return error_; }

 private:
  void flushBatch() {
    if (batch_.empty() || error_) return;
    if (auto e = store_.appendInputs(batch_))
      error_ = e;
    else
      imported_ += static_cast<std::int64_t>(batch_.size());
    batch_.clear();
  }
  MarketHistoryStore& store_;
  AccountDirectory& accounts_;
  std::vector<RecordedInput> batch_;
  std::int64_t lastTime_ = 0;
  std::int64_t imported_ = 0;
  std::optional<StoreError> error_;
};

}  // namespace

FileFormat formatOf(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0 ? FileFormat::Csv : FileFormat::Jsonl;
}

std::variant<ImportReport, StoreError> importInputs(std::istream& in, FileFormat format, MarketHistoryStore& store,
                                                    AccountDirectory& accounts) {
  ImportReport report;
  Importer importer(store, accounts);
  std::string line;
  auto bad = [&](const std::string& why) {
    report.errors.push_back("line " + std::to_string(report.lines) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++report.lines;
    if (line.empty() || line == "\r") continue;
    if (format == FileFormat::Jsonl) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        bad("not a JSON object");
        continue;
      }
      std::optional<std::int64_t> seq, time;
      if (auto it = j.find("seq"); it != j.end()) {
        if (!it->is_number_integer()) {
          bad("'seq' must be an integer");
          continue;
        }
        seq = it->get<std::int64_t>();
        j.erase(it);
      }
      if (auto it = j.find("time_us"); it != j.end()) {
        if (!it->is_number_integer()) {
          bad("'time_us' must be an integer");
          continue;
        }
        time = it->get<std::int64_t>();
        j.erase(it);
      }
      auto parsed = inputEventFromJson(j, accounts);
      if (auto* e = std::get_if<JsonError>(&parsed)) {
        bad(e->message);
        continue;
      }
      importer.add(seq, time, std::get<InputEvent>(std::move(parsed)));
    } else {
      bool ok = true;
      auto f = csvSplit(line, ok);
      if (report.lines == 1 && !f.empty() && f[0] == "seq") continue;  // the header
      if (!ok) {
        bad("unterminated quote");
        continue;
      }
      if (f.size() != kInputCsvColumns) {
        bad("expected " + std::to_string(kInputCsvColumns) + " columns, found " + std::to_string(f.size()));
        continue;
      }
      InputRow r;
      std::optional<std::int64_t> seq, time, account;
      const auto kind = parseInputKind(f[2]);
      if (!kind) {
        bad("unknown kind '" + f[2] + "'");
        continue;
      }
      r.kind = *kind;
      bool numbersOk = parseOpt(f[0], seq) && parseOpt(f[1], time) && parseOpt(f[3], r.cluster) &&
                       parseOpt(f[5], r.order) && parseOpt(f[6], r.side) && parseOpt(f[7], r.gpus) &&
                       parseOpt(f[8], r.start) && parseOpt(f[9], r.end) && parseOpt(f[10], r.duration) &&
                       parseOpt(f[11], r.price) && parseOpt(f[12], r.fill) && parseOpt(f[13], r.tif) &&
                       parseOpt(f[14], r.expireAt) && parseOpt(f[15], r.flags) && parseOpt(f[16], r.sellBack);
      if (!numbersOk) {
        bad("a numeric column holds something else");
        continue;
      }
      if (!f[4].empty()) r.account = accounts.intern(f[4]);
      r.extra = f[17];
      r.seq = seq.value_or(0);
      r.timeMicros = time.value_or(0);
      auto decoded = fromRow(r);
      if (auto* e = std::get_if<StoreError>(&decoded)) {
        bad(e->message);
        continue;
      }
      importer.add(seq, time, std::get<RecordedInput>(std::move(decoded)).event);
    }
    if (importer.error()) break;
  }
  if (auto e = importer.finish()) return *e;
  report.imported = importer.imported();
  return report;
}

std::variant<std::int64_t, StoreError> exportInputs(const MarketHistoryStore& store, const AccountDirectory& accounts,
                                                    const HistoryQuery& q, FileFormat format, std::ostream& out,
                                                    bool withTimes) {
  std::int64_t n = 0;
  if (format == FileFormat::Csv) out << kInputCsvHeader << '\n';
  auto e = store.forEachInput(q, [&](const RecordedInput& in) {
    if (format == FileFormat::Jsonl) {
      nlohmann::json j = toJson(in.event, accounts);
      if (withTimes) {
        j["seq"] = in.seq;
        j["time_us"] = in.timeMicros;
      }
      out << j.dump() << '\n';
    } else {
      const InputRow r = toRow(in);
      out << r.seq << ',' << r.timeMicros << ',' << toString(r.kind) << ',' << opt(r.cluster) << ','
          << (r.account ? csvQuote(accounts.name(static_cast<AccountId>(*r.account))) : std::string()) << ','
          << opt(r.order) << ',' << opt(r.side) << ',' << opt(r.gpus) << ',' << opt(r.start) << ',' << opt(r.end) << ','
          << opt(r.duration) << ',' << opt(r.price) << ',' << opt(r.fill) << ',' << opt(r.tif) << ',' << opt(r.expireAt)
          << ',' << opt(r.flags) << ',' << opt(r.sellBack) << ',' << csvQuote(r.extra) << '\n';
    }
    ++n;
    return static_cast<bool>(out);
  });
  if (e) return *e;
  if (!out) return StoreError{"write error while exporting inputs"};
  return n;
}

std::variant<std::int64_t, StoreError> exportEvents(const MarketHistoryStore& store, const HistoryQuery& q,
                                                    FileFormat format, std::ostream& out) {
  std::int64_t n = 0;
  if (format == FileFormat::Csv)
    out << "seq,input_seq,time_us,type,cluster,account,order_id,price,gpus,start_hour,end_hour\n";
  auto e = store.forEachEvent(q, [&](const RecordedEvent& ev) {
    if (format == FileFormat::Jsonl) {
      nlohmann::json j = nlohmann::json::parse(ev.json, nullptr, false);
      if (j.is_discarded() || !j.is_object()) j = nlohmann::json{{"type", ev.type}, {"corrupt_json", ev.json}};
      j["seq"] = ev.seq;
      j["input_seq"] = ev.inputSeq;
      j["time_us"] = ev.timeMicros;
      out << j.dump() << '\n';
    } else {
      out << ev.seq << ',' << ev.inputSeq << ',' << ev.timeMicros << ',' << csvQuote(ev.type) << ',' << ev.cluster
          << ',' << ev.account << ',' << ev.order << ',' << ev.price << ',' << ev.gpus << ',' << ev.start << ','
          << ev.end << '\n';
    }
    ++n;
    return static_cast<bool>(out);
  });
  if (e) return *e;
  if (!out) return StoreError{"write error while exporting market events"};
  return n;
}

}  // namespace tessera::store
