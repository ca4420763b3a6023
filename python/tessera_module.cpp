// The `tessera._tessera` extension: the backtester's C++ engine for Python (python/README.md,
// docs/python.md). A Python strategy is wrapped in PyStrategy, a backtest::Strategy: the replay,
// the sweep and the live runner run it exactly as they run a C++ strategy. The GIL is released
// while the engine runs and taken back only for the callbacks the Python class defines.
#include "backtest/History.h"
#include "backtest/ReportWriter.h"
#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/Sweep.h"
#include "backtest/live/LiveStrategyRunner.h"

#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace py = pybind11;
using namespace tessera;
using namespace tessera::backtest;

namespace {

// nlohmann::json <-> Python through the json module: parameters and summaries are small.
nlohmann::json toJson(const py::handle& o) {
  const std::string text = py::module_::import("json").attr("dumps")(o).cast<std::string>();
  return nlohmann::json::parse(text);
}
py::object fromJson(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

std::string hex(std::uint64_t h) {
  char s[24];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}

// The StrategyContext of the callback running now; Python holds one per strategy.
struct StrategyContextRef {
  StrategyContext* ctx = nullptr;
  StrategyContext& get() const {
    if (!ctx) throw std::runtime_error("the strategy context is only valid inside a callback");
    return *ctx;
  }
};

// The first exception a Python callback raised in a run or a sweep: the run stops (`cancel`) and
// the exception is raised again in the caller's thread once the engine has stopped.
struct ErrorSink {
  std::mutex mutex;
  std::optional<py::error_already_set> error;
  std::atomic<bool> cancel{false};
  void keep(py::error_already_set&& e) {
    std::lock_guard lock(mutex);
    if (!error) error.emplace(std::move(e));
    cancel = true;
  }
  void rethrow() {
    if (!error) return;
    py::error_already_set e = std::move(*error);
    error.reset();
    throw e;
  }
};

// A Python object with the callbacks of tessera.Strategy (on_start, on_clock, ...) as a
// backtest::Strategy. Only the callbacks its class defines are called; one it inherits from
// tessera.Strategy unchanged costs nothing. An exception in a callback goes to `errors`; no
// callback runs after it.
class PyStrategy final : public Strategy {
 public:
  PyStrategy(py::object obj, ErrorSink& errors) : obj_(std::move(obj)), errors_(errors) {
    py::object base = py::module_::import("tessera").attr("Strategy");
    py::object type = py::type::of(obj_);
    auto bound = [&](const char* n) -> py::object {
      if (!py::hasattr(obj_, n)) return py::object();
      if (py::hasattr(base, n) && type.attr(n).is(base.attr(n))) return py::object();
      return obj_.attr(n);
    };
    onStart_ = bound("on_start");
    onClock_ = bound("on_clock");
    onBook_ = bound("on_book_update");
    onTrade_ = bound("on_trade");
    onFill_ = bound("on_own_fill");
    onOrder_ = bound("on_order_event");
    onTimer_ = bound("on_timer");
    onFinish_ = bound("on_finish");
    onOption_ = bound("on_option_event");
    name_ =
        py::hasattr(obj_, "name") ? obj_.attr("name")().cast<std::string>() : type.attr("__name__").cast<std::string>();
    if (py::hasattr(obj_, "demand_gpu_hours")) demand_ = obj_.attr("demand_gpu_hours")().cast<std::int64_t>();
    ctxObj_ = py::cast(StrategyContextRef{});
    ctx_ = ctxObj_.cast<StrategyContextRef*>();
  }
  ~PyStrategy() override {
    py::gil_scoped_acquire gil;
    ctx_ = nullptr;
    for (py::object* o : {&obj_, &onStart_, &onClock_, &onBook_, &onTrade_, &onFill_, &onOrder_, &onTimer_, &onFinish_,
                          &onOption_, &ctxObj_})
      *o = py::object();
  }

  std::string name() const override { return name_; }
  bool wantsBookUpdates() const override { return static_cast<bool>(onBook_); }
  std::int64_t demandGpuHours() const override { return demand_; }

  void onStart(StrategyContext& c) override {
    py::gil_scoped_acquire gil;
    call(onStart_, c);
    // tessera.Strategy.fail_setup(why) leaves the reason here.
    if (!failed_ && py::hasattr(obj_, "_setup_error")) {
      py::object why = obj_.attr("_setup_error");
      if (!why.is_none()) failSetup(py::str(why).cast<std::string>());
    }
  }
  void onClock(StrategyContext& c, Hour now) override { callWith(onClock_, c, now); }
  void onBookUpdate(StrategyContext& c, const BookChange& b) override { callWith(onBook_, c, b); }
  void onTrade(StrategyContext& c, const Contract& k) override { callWith(onTrade_, c, k); }
  void onOwnFill(StrategyContext& c, const Fill& f) override { callWith(onFill_, c, f); }
  void onOrderEvent(StrategyContext& c, const Event& e) override { callWith(onOrder_, c, e); }
  void onTimer(StrategyContext& c, int id) override { callWith(onTimer_, c, id); }
  void onOptionEvent(StrategyContext& c, const OptionUpdate& u) override { callWith(onOption_, c, u); }
  void onFinish(StrategyContext& c) override {
    if (!onFinish_) return;
    py::gil_scoped_acquire gil;
    call(onFinish_, c);
  }

 private:
  template <class... A>
  void callWith(const py::object& fn, StrategyContext& c, const A&... args) {
    if (!fn) return;
    py::gil_scoped_acquire gil;
    call(fn, c, args...);
  }
  template <class... A>
  void call(const py::object& fn, StrategyContext& c, const A&... args) {
    if (!fn || failed_) return;
    ctx_->ctx = &c;
    try {
      fn(ctxObj_, args...);
    } catch (py::error_already_set& e) {
      failed_ = true;
      errors_.keep(std::move(e));
    }
    ctx_->ctx = nullptr;
  }

  py::object obj_;
  py::object onStart_, onClock_, onBook_, onTrade_, onFill_, onOrder_, onTimer_, onFinish_, onOption_;
  py::object ctxObj_;
  StrategyContextRef* ctx_ = nullptr;
  std::string name_;
  std::int64_t demand_ = 0;
  ErrorSink& errors_;
  bool failed_ = false;
};

template <class T, class Row, class F>
py::array_t<T> column(const std::vector<Row>& rows, F get) {
  py::array_t<T> a(static_cast<py::ssize_t>(rows.size()));
  auto m = a.template mutable_unchecked<1>();
  for (std::size_t i = 0; i < rows.size(); ++i) m(static_cast<py::ssize_t>(i)) = static_cast<T>(get(rows[i]));
  return a;
}

py::dict resultDict(const BacktestResult& r) {
  py::dict fills, contracts, series, d;
  const auto& f = r.fills;
  fills["trade"] = column<std::uint64_t>(f, [](const Fill& x) { return x.trade; });
  fills["contract"] = column<std::uint64_t>(f, [](const Fill& x) { return x.contract; });
  fills["order"] = column<std::uint64_t>(f, [](const Fill& x) { return x.order; });
  fills["side"] = column<std::int8_t>(f, [](const Fill& x) { return x.side == Side::Buy ? 1 : -1; });
  fills["aggressor"] = column<bool>(f, [](const Fill& x) { return x.aggressor; });
  fills["cluster"] = column<std::uint32_t>(f, [](const Fill& x) { return x.cluster; });
  fills["gpus"] = column<std::int32_t>(f, [](const Fill& x) { return x.gpus; });
  fills["start"] = column<std::int64_t>(f, [](const Fill& x) { return x.start; });
  fills["end"] = column<std::int64_t>(f, [](const Fill& x) { return x.end; });
  fills["price"] = column<std::int64_t>(f, [](const Fill& x) { return x.price; });
  fills["leaves_gpu_hours"] = column<std::int64_t>(f, [](const Fill& x) { return x.leavesGpuHours; });
  const auto& k = r.contracts;
  contracts["id"] = column<std::uint64_t>(k, [](const Contract& x) { return x.id; });
  contracts["trade"] = column<std::uint64_t>(k, [](const Contract& x) { return x.trade; });
  contracts["buyer"] = column<std::uint32_t>(k, [](const Contract& x) { return x.buyer; });
  contracts["seller"] = column<std::uint32_t>(k, [](const Contract& x) { return x.seller; });
  contracts["cluster"] = column<std::uint32_t>(k, [](const Contract& x) { return x.cluster; });
  contracts["gpus"] = column<std::int32_t>(k, [](const Contract& x) { return x.gpus; });
  contracts["start"] = column<std::int64_t>(k, [](const Contract& x) { return x.start; });
  contracts["end"] = column<std::int64_t>(k, [](const Contract& x) { return x.end; });
  contracts["price"] = column<std::int64_t>(k, [](const Contract& x) { return x.price; });
  const auto& s = r.series;
  series["hour"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.hour; });
  series["cash"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.cash; });
  series["equity"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.equity; });
  series["drawdown"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.drawdown; });
  series["market_vwap"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.marketVwap; });
  series["average_paid"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.averagePaid; });
  series["market_vwap_to_date"] = column<std::int64_t>(s, [](const SeriesPoint& x) { return x.marketVwapToDate; });
  d["strategy"] = r.strategy;
  d["account"] = r.accountName;
  d["summary"] = fromJson(summaryJson(r.summary));
  d["fills"] = fills;
  d["contracts"] = contracts;
  d["series"] = series;
  d["inputs"] = r.inputs;
  d["strategy_actions"] = r.strategyActions;
  d["engine_events"] = r.engineEvents;
  d["output_hash"] = hex(r.outputHash);
  d["cancelled"] = r.cancelled;
  return d;
}

// `strategy`: a registered strategy's name (with `params`), or a Python strategy object.
std::unique_ptr<Strategy> makeAny(const py::object& strategy, const py::object& params, ErrorSink& errors) {
  if (py::isinstance<py::str>(strategy)) {
    auto made =
        makeStrategy(strategy.cast<std::string>(), params.is_none() ? nlohmann::json::object() : toJson(params));
    if (auto* e = std::get_if<std::string>(&made)) throw py::value_error(*e);
    return std::move(std::get<std::unique_ptr<Strategy>>(made));
  }
  if (!params.is_none()) throw py::value_error("params are for a strategy given by name; pass them to your class");
  return std::make_unique<PyStrategy>(strategy, errors);
}

// One channel of a latency model: microseconds (an int), or a spec string as the command line's
// --order-latency takes ("200", "exp:300", "lognormal:200,0.5", "file:PATH"); None is 0.
LatencyDistribution latencyChannel(const char* name, const py::object& given) {
  if (given.is_none()) return {};
  if (py::isinstance<py::bool_>(given) || !(py::isinstance<py::int_>(given) || py::isinstance<py::str>(given)))
    throw py::type_error(std::string(name) + " is microseconds (an int) or a spec such as \"exp:300\" (a str), not " +
                         py::str(py::type::of(given).attr("__name__")).cast<std::string>());
  const std::string spec = py::str(given).cast<std::string>();
  auto d = parseLatency(spec);
  if (auto* e = std::get_if<std::string>(&d)) throw py::value_error(std::string(name) + ": " + *e);
  return std::move(std::get<LatencyDistribution>(d));
}

// The latency model of run() and sweep(): the command line's --latency-us, --order-latency,
// --ack-latency, --md-latency and --latency-seed (docs/backtest.md, "Latency").
LatencyModel latencyModel(const py::object& latencyUs, const py::object& order, const py::object& ack,
                          const py::object& marketData, const py::object& seed) {
  if (!latencyUs.is_none() && !order.is_none()) throw py::value_error("give latency_us or order_latency, not both");
  LatencyModel m;
  m.orderEntry =
      latencyChannel(latencyUs.is_none() ? "order_latency" : "latency_us", latencyUs.is_none() ? order : latencyUs);
  m.ack = latencyChannel("ack_latency", ack);
  m.marketData = latencyChannel("md_latency", marketData);
  if (py::isinstance<py::bool_>(seed) || !py::isinstance<py::int_>(seed))
    throw py::type_error("latency_seed is an int, 0 or more");
  std::int64_t s = -1;
  try {
    s = seed.cast<std::int64_t>();
  } catch (const py::cast_error&) {
  }
  if (s < 0)
    throw py::value_error("latency_seed is an int from 0 to 2**63 - 1, not " + py::str(seed).cast<std::string>());
  m.seed = static_cast<std::uint64_t>(s);
  return m;
}

// A history that cannot be read past its opening (a read error mid-way) stops the run.
template <typename T>
T orRaise(std::variant<T, store::StoreError>&& v) {
  if (auto* e = std::get_if<store::StoreError>(&v)) throw py::value_error(e->message);
  return std::move(std::get<T>(v));
}

// The replay settings run() and sweep() share with the command line: the latency model,
// --fee-ppm and --cash (dollars; None: no limit).
ReplayConfig replayConfig(const LatencyModel& latency, int feePpm, const py::object& cash) {
  if (feePpm < 0 || feePpm > 1'000'000)
    throw py::value_error("fee_ppm is 0 to 1000000 (parts per million of each sale)");
  ReplayConfig cfg;
  cfg.latency = latency;
  cfg.feePpm = feePpm;
  if (!cash.is_none()) {
    const double dollars = cash.cast<double>();
    if (!(dollars > 0) || dollars > 1e12) throw py::value_error("cash is the starting cash in dollars, more than 0");
    cfg.startingCash = static_cast<Money>(dollars * kMicrosPerDollar + 0.5);
  }
  return cfg;
}

py::dict run(const HistoryStream& h, const py::object& strategy, const py::object& params, ReplayConfig cfg,
             const std::string& account, bool hashEvents) {
  ErrorSink errors;
  std::unique_ptr<Strategy> cpp = makeAny(strategy, params, errors);
  cfg.accountName = account;
  cfg.hashEvents = hashEvents;
  cfg.cancel = &errors.cancel;
  std::variant<BacktestResult, store::StoreError> streamed;
  {
    py::gil_scoped_release nogil;
    streamed = runBacktest(h, *cpp, cfg);
  }
  errors.rethrow();
  const BacktestResult r = orRaise(std::move(streamed));
  if (!r.setupError.empty()) throw py::value_error(r.setupError);
  return resultDict(r);
}

py::dict sweep(const HistoryStream& h, const py::object& strategy, const py::object& grid, int jobs,
               const ReplayConfig& cfg, const std::string& shardText) {
  auto g = parseSweepGrid(toJson(grid));
  if (auto* e = std::get_if<std::string>(&g)) throw py::value_error(*e);
  Shard shard;
  if (!shardText.empty()) {
    auto s = parseShard(shardText);
    if (auto* e = std::get_if<std::string>(&s)) throw py::value_error(*e);
    shard = std::get<Shard>(s);
  }
  if (jobs < 0) throw py::value_error("jobs is 0 (all cores) or more");
  std::variant<SweepRun, store::StoreError> swept;
  if (py::isinstance<py::str>(strategy)) {
    const std::string name = strategy.cast<std::string>();
    py::gil_scoped_release nogil;
    swept = runSweep(h, name, std::get<SweepGrid>(g), shard, jobs, cfg);
  } else {
    // `strategy` makes a strategy object from one point's parameters (a class, a function);
    // a ValueError it raises rejects the point's parameters, as a C++ strategy's maker does.
    ErrorSink errors;
    std::string name;
    if (py::hasattr(strategy, "__name__")) name = strategy.attr("__name__").cast<std::string>();
    StrategyFactory make = [&](const nlohmann::json& params) -> MadeStrategy {
      py::gil_scoped_acquire gil;
      try {
        py::object obj = strategy(fromJson(params));
        return std::make_unique<PyStrategy>(obj, errors);
      } catch (py::error_already_set& e) {
        if (e.matches(PyExc_ValueError)) return py::str(e.value()).cast<std::string>();
        errors.keep(std::move(e));
        return std::string("stopped");
      }
    };
    {
      py::gil_scoped_release nogil;
      swept = runSweep(h, name, make, std::get<SweepGrid>(g), shard, jobs, cfg, {}, &errors.cancel);
    }
    errors.rethrow();
  }
  const SweepRun run = orRaise(std::move(swept));
  py::list points;
  for (const SweepPoint& p : run.points) {
    py::dict d;
    d["index"] = p.index;
    d["params"] = fromJson(p.params);
    d["summary"] = p.error.empty() ? fromJson(p.summary) : py::object(py::none());
    d["output_hash"] = p.outputHash;
    d["error"] = p.error;
    points.append(d);
  }
  py::dict out;
  out["strategy"] = run.strategy;
  out["total_points"] = run.totalPoints;
  out["shard"] = std::to_string(run.shard.index) + "/" + std::to_string(run.shard.count);
  out["points"] = points;
  out["json"] = fromJson(sweepJson(run));
  return out;
}

// The strategy against a running tessera-exchange until `seconds` pass or `until()` is true.
py::dict runLive(const py::object& strategy, const py::object& params, const std::string& host, int port,
                 const std::string& account, const std::string& key, double seconds, const py::object& until) {
  ErrorSink errors;
  std::unique_ptr<Strategy> s = makeAny(strategy, params, errors);
  net::ClientOptions opts;
  opts.host = host;
  opts.port = static_cast<std::uint16_t>(port);
  opts.account = account;
  opts.key = key.empty() ? account : key;
  std::string failure;
  bool started = false;
  LiveSummary sum;
  {
    // The runner's threads take the GIL inside callbacks while holding the runner's lock, so
    // every call into the runner from here is made without the GIL.
    py::gil_scoped_release nogil;
    LiveStrategyRunner runner(*s, opts);
    runner.start();
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      if (errors.cancel) break;
      if (runner.connection() == net::ConnectionState::AuthFailed) {
        failure = "the exchange refused the credentials of '" + account + "'";
        break;
      }
      if (auto why = runner.setupError()) {
        failure = *why;
        break;
      }
      if (std::chrono::steady_clock::now() >= end) break;
      if (!until.is_none()) {
        py::gil_scoped_acquire gil;
        bool done = false;
        try {
          done = until().cast<bool>();
        } catch (py::error_already_set& e) {
          errors.keep(std::move(e));
        }
        if (done) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    started = runner.strategyStarted();
    runner.stop();
    sum = runner.summary();
  }
  errors.rethrow();
  if (!failure.empty()) throw py::value_error(failure);
  py::dict d;
  d["started"] = started;
  d["orders_placed"] = sum.ordersPlaced;
  d["orders_rejected"] = sum.ordersRejected;
  d["fills"] = sum.fills;
  d["bought_gpu_hours"] = sum.boughtGpuHours;
  d["sold_gpu_hours"] = sum.soldGpuHours;
  d["spent"] = sum.spent;
  d["received"] = sum.received;
  return d;
}

OrderRequest makeOrder(Side side, std::optional<ClusterId> cluster, GpuCount gpus, Hour start, Hour end, Price limit,
                       FillStyle fill, TimeInForce tif, bool postOnly, std::optional<Hour> duration,
                       std::optional<Hour> expireAt, std::optional<ClusterConstraints> constraints,
                       std::optional<ContractId> sellBack, OrderId id) {
  OrderRequest o;
  o.id = id;
  o.side = side;
  o.cluster = cluster;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  o.limit = limit;
  o.fill = fill;
  o.tif = tif;
  o.postOnly = postOnly;
  o.duration = duration;
  o.expireAt = expireAt;
  o.constraints = std::move(constraints);
  o.sellBack = sellBack;
  return o;
}

}  // namespace

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera's backtester engine (C++); use the `tessera` package, not this module";

  py::enum_<Side>(m, "Side").value("Buy", Side::Buy).value("Sell", Side::Sell);
  py::enum_<FillStyle>(m, "FillStyle")
      .value("AllOrNone", FillStyle::AllOrNone)
      .value("Divisible", FillStyle::Divisible);
  py::enum_<TimeInForce>(m, "TimeInForce")
      .value("GTC", TimeInForce::GTC)
      .value("GTD", TimeInForce::GTD)
      .value("IOC", TimeInForce::IOC)
      .value("FOK", TimeInForce::FOK);
  py::enum_<Accelerator>(m, "Accelerator")
      .value("A100", Accelerator::A100)
      .value("H100", Accelerator::H100)
      .value("H200", Accelerator::H200)
      .value("B200", Accelerator::B200)
      .value("GB200", Accelerator::GB200)
      .value("MI300X", Accelerator::MI300X)
      .value("L40S", Accelerator::L40S)
      .value("RTX4090", Accelerator::RTX4090);
  py::enum_<FabricClass>(m, "FabricClass")
      .value("Ethernet", FabricClass::Ethernet)
      .value("RoCE", FabricClass::RoCE)
      .value("InfiniBand", FabricClass::InfiniBand);
  auto reject = py::enum_<RejectReason>(m, "RejectReason");
  for (int r = 0; r <= static_cast<int>(RejectReason::InvalidTerms); ++r)
    reject.value(std::string(toString(static_cast<RejectReason>(r))).c_str(), static_cast<RejectReason>(r));
  auto cancelReason = py::enum_<CancelReason>(m, "CancelReason");
  for (int r = 0; r <= static_cast<int>(CancelReason::Expired); ++r)
    cancelReason.value(std::string(toString(static_cast<CancelReason>(r))).c_str(), static_cast<CancelReason>(r));

  py::class_<Cluster>(m, "Cluster")
      .def_readonly("id", &Cluster::id)
      .def_readonly("name", &Cluster::name)
      .def_readonly("provider", &Cluster::provider)
      .def_readonly("region", &Cluster::region)
      .def_readonly("accelerator", &Cluster::accelerator)
      .def_readonly("gpu_memory_gb", &Cluster::gpuMemoryGb)
      .def_readonly("gpus_per_node", &Cluster::gpusPerNode)
      .def_readonly("node_count", &Cluster::nodeCount)
      .def_readonly("fabric", &Cluster::fabric)
      .def_readonly("carbon_g_per_kwh", &Cluster::carbonGramsPerKwh)
      .def_property_readonly("total_gpus", &Cluster::totalGpus)
      .def("__repr__", [](const Cluster& c) { return "<Cluster " + std::to_string(c.id) + " " + c.name + ">"; });

  py::class_<ClusterConstraints>(m, "ClusterConstraints")
      .def(py::init<>())
      .def_readwrite("accelerators", &ClusterConstraints::accelerators)
      .def_readwrite("min_gpu_memory_gb", &ClusterConstraints::minGpuMemoryGb)
      .def_readwrite("regions", &ClusterConstraints::regions)
      .def_readwrite("min_fabric", &ClusterConstraints::minFabric)
      .def_readwrite("max_carbon_g_per_kwh", &ClusterConstraints::maxCarbonGramsPerKwh);

  py::class_<OrderRequest>(m, "Order")
      .def(py::init(&makeOrder), py::kw_only(), py::arg("side"), py::arg("cluster") = py::none(), py::arg("gpus"),
           py::arg("start"), py::arg("end"), py::arg("limit"), py::arg("fill") = FillStyle::Divisible,
           py::arg("tif") = TimeInForce::GTC, py::arg("post_only") = false, py::arg("duration") = py::none(),
           py::arg("expire_at") = py::none(), py::arg("constraints") = py::none(), py::arg("sell_back") = py::none(),
           py::arg("id") = 0)
      .def_readwrite("id", &OrderRequest::id)
      .def_readwrite("side", &OrderRequest::side)
      .def_readwrite("cluster", &OrderRequest::cluster)
      .def_readwrite("gpus", &OrderRequest::gpus)
      .def_readwrite("start", &OrderRequest::start)
      .def_readwrite("end", &OrderRequest::end)
      .def_readwrite("limit", &OrderRequest::limit)
      .def_readwrite("fill", &OrderRequest::fill)
      .def_readwrite("tif", &OrderRequest::tif)
      .def_readwrite("post_only", &OrderRequest::postOnly)
      .def_readwrite("duration", &OrderRequest::duration)
      .def_readwrite("expire_at", &OrderRequest::expireAt);

  py::class_<BookLevel>(m, "BookLevel")
      .def_readonly("price", &BookLevel::price)
      .def_readonly("gpus", &BookLevel::gpus)
      .def_readonly("orders", &BookLevel::orders);
  py::class_<BookChange>(m, "BookChange")
      .def_readonly("cluster", &BookChange::cluster)
      .def_readonly("side", &BookChange::side)
      .def_readonly("start", &BookChange::start)
      .def_readonly("end", &BookChange::end);
  py::class_<Contract>(m, "Contract")
      .def_readonly("id", &Contract::id)
      .def_readonly("trade", &Contract::trade)
      .def_readonly("buyer", &Contract::buyer)
      .def_readonly("seller", &Contract::seller)
      .def_readonly("buy_order", &Contract::buyOrder)
      .def_readonly("sell_order", &Contract::sellOrder)
      .def_readonly("cluster", &Contract::cluster)
      .def_readonly("gpus", &Contract::gpus)
      .def_readonly("start", &Contract::start)
      .def_readonly("end", &Contract::end)
      .def_readonly("price", &Contract::price);
  py::class_<Fill>(m, "Fill")
      .def_readonly("trade", &Fill::trade)
      .def_readonly("contract", &Fill::contract)
      .def_readonly("order", &Fill::order)
      .def_readonly("account", &Fill::account)
      .def_readonly("side", &Fill::side)
      .def_readonly("aggressor", &Fill::aggressor)
      .def_readonly("cluster", &Fill::cluster)
      .def_readonly("gpus", &Fill::gpus)
      .def_readonly("start", &Fill::start)
      .def_readonly("end", &Fill::end)
      .def_readonly("price", &Fill::price)
      .def_readonly("leaves_gpu_hours", &Fill::leavesGpuHours);
  // The events on_order_event receives (and the other Event alternatives, for completeness).
  py::class_<OrderAccepted>(m, "OrderAccepted").def_readonly("order", &OrderAccepted::order);
  py::class_<OrderRejected>(m, "OrderRejected")
      .def_readonly("order", &OrderRejected::order)
      .def_readonly("reason", &OrderRejected::reason)
      .def_readonly("detail", &OrderRejected::detail);
  py::class_<OrderCancelled>(m, "OrderCancelled")
      .def_readonly("order", &OrderCancelled::order)
      .def_readonly("reason", &OrderCancelled::reason)
      .def_readonly("cancelled_gpu_hours", &OrderCancelled::cancelledGpuHours)
      .def_readonly("leaves_gpu_hours", &OrderCancelled::leavesGpuHours);
  py::class_<OrderAmended>(m, "OrderAmended")
      .def_readonly("order", &OrderAmended::order)
      .def_readonly("limit", &OrderAmended::limit)
      .def_readonly("gpus", &OrderAmended::gpus)
      .def_readonly("priority_kept", &OrderAmended::priorityKept);
  py::class_<ClusterAdded>(m, "ClusterAdded").def_readonly("cluster", &ClusterAdded::cluster);
  py::class_<CapacityAdded>(m, "CapacityAdded");
  py::class_<ContractCreated>(m, "ContractCreated").def_readonly("contract", &ContractCreated::contract);
  py::class_<ClockAdvanced>(m, "ClockAdvanced").def_readonly("now", &ClockAdvanced::now);

  // Options on the price index (core/options, docs/settlement.md "Options").
  py::enum_<indexoptions::OptionKind>(m, "OptionKind")
      .value("Call", indexoptions::OptionKind::Call)
      .value("Put", indexoptions::OptionKind::Put);
  py::enum_<indexoptions::PeriodKind>(m, "PeriodKind")
      .value("Month", indexoptions::PeriodKind::Month)
      .value("Quarter", indexoptions::PeriodKind::Quarter)
      .value("Year", indexoptions::PeriodKind::Year);
  py::class_<indexoptions::DeliveryPeriod>(m, "DeliveryPeriod")
      .def_readonly("kind", &indexoptions::DeliveryPeriod::kind)
      .def_readonly("start", &indexoptions::DeliveryPeriod::start)
      .def_readonly("end", &indexoptions::DeliveryPeriod::end)
      .def_property_readonly("name", [](const indexoptions::DeliveryPeriod& p) { return indexoptions::periodName(p); })
      .def("__repr__", [](const indexoptions::DeliveryPeriod& p) {
        return "<DeliveryPeriod " + indexoptions::periodName(p) + ">";
      });
  m.def("listed_periods", &indexoptions::listedPeriods, py::arg("now"),
        "The delivery periods open for option trading at hour `now`, by start then kind.");
  m.def(
      "period_starting",
      [](indexoptions::PeriodKind kind, Hour start) {
        auto p = indexoptions::periodStarting(kind, start);
        if (!p) throw py::value_error("hour " + std::to_string(start) + " begins no " + std::string(toString(kind)));
        return *p;
      },
      py::arg("kind"), py::arg("start"));
  py::class_<indexoptions::OptionSeries>(m, "OptionSeries")
      .def(py::init([](Accelerator a, indexoptions::OptionKind kind, indexoptions::PeriodKind period, Hour start,
                       Price strike) {
             if (!indexoptions::periodStarting(period, start))
               throw py::value_error("start " + std::to_string(start) + " begins no " + std::string(toString(period)));
             if (strike <= 0 || strike % indexoptions::kStrikeTick != 0)
               throw py::value_error("strike is micro-dollars per GPU-hour in whole cents, above 0");
             return indexoptions::OptionSeries{a, kind, period, start, strike};
           }),
           py::kw_only(), py::arg("accelerator"), py::arg("kind"), py::arg("period"), py::arg("start"),
           py::arg("strike"))
      .def_readonly("accelerator", &indexoptions::OptionSeries::accelerator)
      .def_readonly("kind", &indexoptions::OptionSeries::kind)
      .def_readonly("period", &indexoptions::OptionSeries::periodKind)
      .def_readonly("start", &indexoptions::OptionSeries::start)
      .def_readonly("strike", &indexoptions::OptionSeries::strike)
      .def_property_readonly("name", [](const indexoptions::OptionSeries& s) { return indexoptions::seriesName(s); })
      .def(py::self == py::self)
      .def("__hash__",
           [](const indexoptions::OptionSeries& s) {
             return py::hash(py::make_tuple(static_cast<int>(s.accelerator), static_cast<int>(s.kind),
                                            static_cast<int>(s.periodKind), s.start, s.strike));
           })
      .def("__repr__",
           [](const indexoptions::OptionSeries& s) { return "<OptionSeries " + indexoptions::seriesName(s) + ">"; });
  py::class_<OptionOrderRequest>(m, "OptionOrder")
      .def(py::init([](Side side, const indexoptions::OptionSeries& series, std::int64_t gpuHours, Price premium) {
             if (gpuHours <= 0) throw py::value_error("gpu_hours must be positive");
             if (premium <= 0) throw py::value_error("premium must be positive (micro-dollars per GPU-hour)");
             return OptionOrderRequest{side, series, gpuHours, premium};
           }),
           py::kw_only(), py::arg("side"), py::arg("series"), py::arg("gpu_hours"), py::arg("premium"))
      .def_readonly("side", &OptionOrderRequest::side)
      .def_readonly("series", &OptionOrderRequest::series)
      .def_readonly("gpu_hours", &OptionOrderRequest::gpuHours)
      .def_readonly("premium", &OptionOrderRequest::premium);
  py::class_<OptionQuote>(m, "OptionQuote")
      .def_readonly("bid", &OptionQuote::bid)
      .def_readonly("ask", &OptionQuote::ask)
      .def_readonly("value", &OptionQuote::value);
  py::enum_<OptionUpdate::Kind>(m, "OptionUpdateKind")
      .value("Accepted", OptionUpdate::Kind::Accepted)
      .value("Rejected", OptionUpdate::Kind::Rejected)
      .value("Filled", OptionUpdate::Kind::Filled)
      .value("Cancelled", OptionUpdate::Kind::Cancelled)
      .value("Notice", OptionUpdate::Kind::Notice);
  py::class_<OptionUpdate>(m, "OptionUpdate")
      .def_readonly("kind", &OptionUpdate::kind)
      .def_readonly("order", &OptionUpdate::order)
      .def_readonly("position", &OptionUpdate::position)
      .def_readonly("is_long", &OptionUpdate::isLong)
      .def_readonly("series", &OptionUpdate::series)
      .def_readonly("gpu_hours", &OptionUpdate::gpuHours)
      .def_readonly("premium", &OptionUpdate::premium)
      .def_readonly("amount", &OptionUpdate::amount)
      .def_readonly("text", &OptionUpdate::text);

  py::class_<StrategyContextRef>(m, "Context")
      .def("now", [](const StrategyContextRef& c) { return c.get().now(); })
      .def("time_micros", [](const StrategyContextRef& c) { return c.get().timeMicros(); })
      .def("account", [](const StrategyContextRef& c) { return c.get().account(); })
      .def("clusters", [](const StrategyContextRef& c) { return c.get().clusters(); })
      .def(
          "depth",
          [](const StrategyContextRef& c, ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) {
            return c.get().depth(cluster, hour, side, maxLevels);
          },
          py::arg("cluster"), py::arg("hour"), py::arg("side"), py::arg("max_levels") = 1)
      .def("last_trade_price",
           [](const StrategyContextRef& c, ClusterId cluster) { return c.get().lastTradePrice(cluster); })
      .def("place", [](const StrategyContextRef& c, const OrderRequest& o) { return c.get().place(o); })
      .def("cancel", [](const StrategyContextRef& c, OrderId id) { c.get().cancel(id); })
      .def(
          "amend",
          [](const StrategyContextRef& c, OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) {
            c.get().amend(id, limit, gpus);
          },
          py::arg("order"), py::arg("limit") = py::none(), py::arg("gpus") = py::none())
      .def(
          "set_timer",
          [](const StrategyContextRef& c, std::int64_t atMicros, int id) { c.get().setTimer(atMicros, id); },
          py::arg("at_micros"), py::arg("timer_id"))
      .def("place_option",
           [](const StrategyContextRef& c, const OptionOrderRequest& o) { return c.get().placeOption(o); })
      .def("cancel_option", [](const StrategyContextRef& c, std::uint64_t id) { c.get().cancelOption(id); })
      .def("option_quote",
           [](const StrategyContextRef& c, const indexoptions::OptionSeries& s) { return c.get().optionQuote(s); });

  m.def("require_cluster", [](const std::vector<Cluster>& clusters, const std::string& name) {
    auto c = requireCluster(clusters, name);
    if (auto* why = std::get_if<std::string>(&c)) throw py::value_error(*why);
    return std::get<Cluster>(c);
  });

  // A history opened for streaming (HistoryStream): each run or sweep reads it from the file a
  // chunk at a time, so its size does not bound memory.
  py::class_<HistoryStream>(m, "History")
      .def_property_readonly("inputs", &HistoryStream::inputs)
      .def_property_readonly("first_time_micros", [](const HistoryStream& h) { return h.summary().firstMicros; })
      .def_property_readonly("last_time_micros", [](const HistoryStream& h) { return h.summary().lastMicros; })
      .def_property_readonly("chunk_inputs", &HistoryStream::chunkInputs);
  m.def(
      "open_history",
      [](const std::string& path, std::int64_t chunkInputs) {
        if (chunkInputs < 1) throw py::value_error("chunk_inputs is 1 or more");
        auto opened = [&] {
          py::gil_scoped_release nogil;
          return HistoryStream::open(path, chunkInputs);
        }();
        return orRaise(std::move(opened));
      },
      py::arg("path"), py::arg("chunk_inputs") = kDefaultChunkInputs);
  m.def(
      "run",
      [](const HistoryStream& h, const py::object& strategy, const py::object& params, const py::object& latencyUs,
         const py::object& order, const py::object& ack, const py::object& md, const py::object& seed, int feePpm,
         const py::object& cash, const std::string& account, bool hashEvents) {
        return run(h, strategy, params, replayConfig(latencyModel(latencyUs, order, ack, md, seed), feePpm, cash),
                   account, hashEvents);
      },
      py::arg("history"), py::arg("strategy"), py::arg("params") = py::none(), py::arg("latency_us") = py::none(),
      py::arg("order_latency") = py::none(), py::arg("ack_latency") = py::none(), py::arg("md_latency") = py::none(),
      py::arg("latency_seed") = 1, py::arg("fee_ppm") = 0, py::arg("cash") = py::none(), py::arg("account") = "",
      py::arg("hash_events") = true);
  m.def(
      "sweep",
      [](const HistoryStream& h, const py::object& strategy, const py::object& grid, int jobs,
         const py::object& latencyUs, const py::object& order, const py::object& ack, const py::object& md,
         const py::object& seed, int feePpm, const py::object& cash, const std::string& shard) {
        return sweep(h, strategy, grid, jobs, replayConfig(latencyModel(latencyUs, order, ack, md, seed), feePpm, cash),
                     shard);
      },
      py::arg("history"), py::arg("strategy"), py::arg("grid"), py::arg("jobs") = 0, py::arg("latency_us") = py::none(),
      py::arg("order_latency") = py::none(), py::arg("ack_latency") = py::none(), py::arg("md_latency") = py::none(),
      py::arg("latency_seed") = 1, py::arg("fee_ppm") = 0, py::arg("cash") = py::none(), py::arg("shard") = "");
  m.def("run_live", &runLive, py::arg("strategy"), py::arg("params"), py::arg("host"), py::arg("port"),
        py::arg("account"), py::arg("key"), py::arg("seconds"), py::arg("until"));
  m.def("strategies", [] {
    py::list l;
    for (const auto& s : builtInStrategies()) {
      py::dict d;
      d["name"] = s.name;
      d["summary"] = s.summary;
      d["example_params"] = fromJson(s.exampleParams);
      l.append(d);
    }
    return l;
  });
}
