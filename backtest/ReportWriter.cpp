#include "backtest/ReportWriter.h"

#include "backtest/SvgChart.h"
#include "core/domain/HourText.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"
#include "core/store/Csv.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tessera::backtest {
namespace {

std::string perHour(Price p) {
  if (p == 0) return "n/a";
  char b[48];
  std::snprintf(b, sizeof b, "$%.4f / GPU-h", static_cast<double>(p) / 1e6);
  return b;
}

}  // namespace

nlohmann::json summaryJson(const BacktestSummary& s) {
  return {{"orders_placed", s.ordersPlaced},
          {"orders_rejected", s.ordersRejected},
          {"fills", s.fills},
          {"contracts", s.contracts},
          {"ordered_gpu_hours", s.orderedGpuHours},
          {"filled_gpu_hours", s.filledGpuHours},
          {"fill_rate", s.fillRate},
          {"bought_gpu_hours", s.boughtGpuHours},
          {"sold_gpu_hours", s.soldGpuHours},
          {"spent", s.spent},
          {"received", s.received},
          {"final_cash", s.finalCash},
          {"pnl", s.finalEquity},
          {"max_drawdown", s.maxDrawdown},
          {"average_paid", s.averagePaid},
          {"market_vwap", s.marketVwap},
          {"cost_vs_limit", s.costVsLimit},
          {"cost_vs_index", s.costVsIndex},
          {"indexed_gpu_hours", s.indexedGpuHours},
          {"slippage_vs_mid", s.slippageVsMid},
          {"mid_gpu_hours", s.midGpuHours},
          {"fees", s.fees},
          {"useful_gpu_hours", s.usefulGpuHours},
          {"effective_cost_per_useful_gpu_hour", s.effectiveCostPerUsefulGpuHour},
          {"demand_gpu_hours", s.demandGpuHours},
          {"unfilled_demand_gpu_hours", s.unfilledDemandGpuHours},
          {"lost_gpu_hours", s.lostGpuHours},
          {"reclaimed_gpu_hours", s.reclaimedGpuHours},
          {"reclaim_refunds", s.reclaimRefunds},
          {"options",
           {{"orders", s.options.orders},
            {"rejected", s.options.rejected},
            {"fills", s.options.fills},
            {"bought_gpu_hours", s.options.boughtGpuHours},
            {"written_gpu_hours", s.options.writtenGpuHours},
            {"premium_paid", s.options.premiumPaid},
            {"premium_received", s.options.premiumReceived},
            {"payoff_received", s.options.payoffReceived},
            {"payoff_paid", s.options.payoffPaid},
            {"open_value", s.options.openValue},
            {"margin_held", s.options.marginHeld},
            {"pnl", s.options.pnl}}}};
}

nlohmann::json latencyJson(const LatencyModel& m) {
  return {{"order_entry", m.orderEntry.describe()},
          {"ack", m.ack.describe()},
          {"market_data", m.marketData.describe()},
          {"seed", m.seed}};
}

nlohmann::json resultJson(const BacktestResult& r, const RunInfo& info) {
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.outputHash));
  return {{"strategy", info.strategy},
          {"params", info.params},
          {"history", info.history},
          {"latency", latencyJson(info.latency)},
          {"fee_ppm", info.feePpm},
          {"account", r.accountName},
          {"inputs", r.inputs},
          {"strategy_actions", r.strategyActions},
          {"engine_events", r.engineEvents},
          {"output_hash", hash},
          {"cancelled", r.cancelled},
          {"money_unit", "micro-dollars (prices: per GPU-hour)"},
          {"summary", summaryJson(r.summary)},
          {"notes", r.notes}};
}

std::optional<std::string> writeReport(const BacktestResult& r, const RunInfo& info, const AccountDirectory& accounts,
                                       const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create report directory '" + dir + "': " + ec.message();
  auto open = [&](const char* name, std::ofstream& f) -> std::optional<std::string> {
    f.open(fs::path(dir) / name);
    if (!f) return "cannot write " + (fs::path(dir) / name).string();
    return std::nullopt;
  };
  {
    std::ofstream f;
    if (auto e = open("summary.json", f)) return e;
    f << resultJson(r, info).dump(2) << '\n';
  }
  {
    std::ofstream f;
    if (auto e = open("fills.csv", f)) return e;
    f << "time_utc,time_us,trade,contract,order,side,aggressor,cluster,cluster_name,counterparty,gpus,start_hour,"
         "end_hour,price,gpu_hours,notional,leaves_gpu_hours,limit,mid_at_order,index_price,fee\n";
    for (std::size_t i = 0; i < r.fills.size(); ++i) {
      const Fill& x = r.fills[i];
      const FillContext c = i < r.fillContext.size() ? r.fillContext[i] : FillContext{};
      const std::int64_t gh = static_cast<std::int64_t>(x.gpus) * (x.end - x.start);
      const auto name = r.clusterNames.find(x.cluster);
      f << isoTimeMicros(c.timeMicros) << ',' << c.timeMicros << ',' << x.trade << ',' << x.contract << ',' << x.order
        << ',' << (x.side == Side::Buy ? "buy" : "sell") << ',' << (x.aggressor ? 1 : 0) << ',' << x.cluster << ','
        << (name == r.clusterNames.end() ? std::string() : store::csvQuote(name->second)) << ',' << c.counterparty
        << ',' << x.gpus << ',' << x.start << ',' << x.end << ',' << x.price << ',' << gh << ',' << x.price * gh << ','
        << x.leavesGpuHours << ',' << c.limit << ',' << c.midAtOrder << ',' << c.index << ',' << c.fee << '\n';
    }
  }
  {
    std::ofstream f;
    if (auto e = open("contracts.csv", f)) return e;
    f << "contract,trade,buyer,seller,buy_order,sell_order,cluster,gpus,start_hour,end_hour,price,notional\n";
    for (const Contract& c : r.contracts)
      f << c.id << ',' << c.trade << ',' << accounts.name(c.buyer) << ',' << accounts.name(c.seller) << ','
        << c.buyOrder << ',' << c.sellOrder << ',' << c.cluster << ',' << c.gpus << ',' << c.start << ',' << c.end
        << ',' << c.price << ',' << c.notional() << '\n';
  }
  {
    std::ofstream f;
    if (auto e = open("series.csv", f)) return e;
    f << "hour,cash,equity,drawdown,market_vwap,average_paid,market_vwap_to_date,held_gpu_hours,"
         "committed_gpu_hours,fill_rate_to_date\n";
    for (const SeriesPoint& p : r.series)
      f << p.hour << ',' << p.cash << ',' << p.equity << ',' << p.drawdown << ',' << p.marketVwap << ','
        << p.averagePaid << ',' << p.marketVwapToDate << ',' << p.heldGpuHours << ',' << p.committedGpuHours << ','
        << p.fillRateToDate << '\n';
  }
  std::ofstream html;
  if (auto e = open("report.html", html)) return e;
  const BacktestSummary& s = r.summary;
  html << "<!doctype html>\n<html><head><meta charset='utf-8'><title>Backtest: " << xmlEscape(info.strategy)
       << "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
          "td,th{padding:3px 12px;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}"
          "h2{margin-top:28px}pre{background:#f6f6f6;padding:8px}</style></head><body>\n"
       << "<h1>Backtest: " << xmlEscape(info.strategy) << "</h1>\n<table>\n"
       << "<tr><th>history</th><td>" << xmlEscape(info.history) << "</td></tr>\n"
       << "<tr><th>account</th><td>" << xmlEscape(r.accountName) << "</td></tr>\n"
       << "<tr><th>latency (&micro;s)</th><td>" << xmlEscape(info.latency.describe()) << "</td></tr>\n"
       << "<tr><th>exchange fee on sales</th><td>" << withThousands(info.feePpm) << " ppm</td></tr>\n"
       << "<tr><th>inputs replayed</th><td>" << withThousands(r.inputs) << (r.cancelled ? " (cancelled)" : "")
       << "</td></tr>\n"
       << "</table>\n<h2>Parameters</h2><pre>" << xmlEscape(info.params.dump(2))
       << "</pre>\n<h2>Results</h2>\n<table>\n";
  auto row = [&](const char* k, const std::string& v) {
    html << "<tr><th>" << k << "</th><td class='n'>" << v << "</td></tr>\n";
  };
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f %%", s.fillRate * 100);
  row("P&amp;L (cash + undelivered GPU-hours at market)", toDollars(s.finalEquity));
  row("cash", toDollars(s.finalCash));
  row("max drawdown", toDollars(s.maxDrawdown));
  row("orders placed / rejected", withThousands(s.ordersPlaced) + " / " + withThousands(s.ordersRejected));
  row("fills / contracts", withThousands(s.fills) + " / " + withThousands(s.contracts));
  row("fill rate (GPU-hours)", rate);
  row("bought / sold GPU-hours", withThousands(s.boughtGpuHours) + " / " + withThousands(s.soldGpuHours));
  row("spent / received", toDollars(s.spent) + " / " + toDollars(s.received));
  row("average price paid", perHour(s.averagePaid));
  row("market VWAP on the same clusters (others' trades)", perHour(s.marketVwap));
  auto perGh = [](Money m, std::int64_t gh) { return gh > 0 ? perHour(m / gh) : std::string("n/a"); };
  auto signedPerGh = [&](Money m, std::int64_t gh) {
    if (gh == 0) return std::string("n/a");
    std::string text(m < 0 ? "-" : "+");
    text += perGh(m < 0 ? -m : m, gh);
    text += " (" + toDollars(m) + " on " + withThousands(gh) + " GPU-h)";
    return text;
  };
  row("paid vs own limits (buys)", signedPerGh(s.costVsLimit, s.boughtGpuHours));
  row("paid vs price index (buys)", signedPerGh(s.costVsIndex, s.indexedGpuHours));
  row("slippage vs mid at order time", signedPerGh(s.slippageVsMid, s.midGpuHours));
  row("exchange fees", toDollars(s.fees));
  row("effective cost per useful GPU-hour", perHour(s.effectiveCostPerUsefulGpuHour));
  row("useful GPU-hours", withThousands(s.usefulGpuHours));
  row("demand / unfilled demand GPU-hours",
      withThousands(s.demandGpuHours) + " / " + withThousands(s.unfilledDemandGpuHours));
  if (s.lostGpuHours > 0) row("GPU-hours lost to providers' outages", withThousands(s.lostGpuHours));
  if (s.reclaimedGpuHours > 0)
    row("interruptible GPU-hours reclaimed / refunded",
        withThousands(s.reclaimedGpuHours) + " / " + toDollars(s.reclaimRefunds));
  if (s.options.fills > 0) {
    const OptionSummary& o = s.options;
    row("options bought / written GPU-hours",
        withThousands(o.boughtGpuHours) + " / " + withThousands(o.writtenGpuHours));
    row("option premium paid / received", toDollars(o.premiumPaid) + " / " + toDollars(o.premiumReceived));
    row("option payoff received / paid", toDollars(o.payoffReceived) + " / " + toDollars(o.payoffPaid));
    row("open options at reference value", toDollars(o.openValue));
    row("option P&L", toDollars(o.pnl));
  }
  html << "</table>\n";
  for (const std::string& note : r.notes) html << "<p>" << xmlEscape(note) << "</p>\n";
  html << "<h2>Charts</h2>\n";
  const auto charts = reportCharts(r);
  static constexpr const char* kChartFiles[] = {"equity.svg", "price.svg", "drawdown.svg"};
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const char* file = kChartFiles[i];
    std::ofstream svg;
    if (auto e = open(file, svg)) return e;
    svg << "<?xml version='1.0' encoding='UTF-8'?>\n" << svgLineChart(charts[i]) << '\n';
    if (!svg) return std::string("cannot write ") + file;
    html << "<p><img src='" << file << "' alt='" << xmlEscape(charts[i].title) << "'></p>\n";
  }
  html
      << "<p>Files: <a href='summary.json'>summary.json</a>, <a href='fills.csv'>fills.csv</a>, "
         "<a href='contracts.csv'>contracts.csv</a>, <a href='series.csv'>series.csv</a>. Money in micro-dollars.</p>\n"
         "</body></html>\n";
  if (!html) return "cannot write report.html";
  return std::nullopt;
}

}  // namespace tessera::backtest
