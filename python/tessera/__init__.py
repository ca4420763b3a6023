"""Tessera's backtester for Python (docs/python.md).

The engine is C++ (the extension ``tessera._tessera``); this package adds the strategy base
class and the results as numpy arrays (and pandas DataFrames when pandas is installed).
Prices and money are integers in micro-dollars, as in the engine: ``dollars()`` converts.
"""
from . import _tessera
from ._tessera import (Accelerator, BookChange, BookLevel, CancelReason, Cluster, ClusterConstraints, Context,
                       Contract, DeliveryPeriod, FabricClass, Fill, FillStyle, History, OptionKind, OptionOrder,
                       OptionQuote, OptionSeries, OptionUpdate, OptionUpdateKind, Order, OrderAccepted,
                       OrderAmended, OrderCancelled, OrderRejected, PeriodKind, RejectReason, Side, TimeInForce,
                       listed_periods, period_starting, require_cluster)

__all__ = [
    "Accelerator", "BookChange", "BookLevel", "CancelReason", "Cluster", "ClusterConstraints", "Context", "Contract",
    "DeliveryPeriod", "FabricClass", "Fill", "FillStyle", "History", "OptionKind", "OptionOrder", "OptionQuote",
    "OptionSeries", "OptionUpdate", "OptionUpdateKind", "Order", "OrderAccepted", "OrderAmended", "OrderCancelled",
    "OrderRejected", "PeriodKind", "RejectReason", "Side", "TimeInForce", "Result", "SweepResult", "LiveResult",
    "Strategy", "dollars", "listed_periods", "open_history", "period_starting", "require_cluster", "run",
    "run_live", "strategies", "sweep",
]

MICROS_PER_DOLLAR = 1_000_000


def dollars(micros):
    """Micro-dollars (an int or a numpy array) as dollars."""
    return micros / MICROS_PER_DOLLAR


class Strategy:
    """The callbacks of backtest/Strategy.h, in Python.

    Define the ones you need; each receives the ``Context`` first (valid only during the
    call). Callbacks left undefined are never called, so they cost nothing.

    ========================  ==========================================
    C++ (Strategy.h)          Python
    ========================  ==========================================
    onStart(ctx)              on_start(ctx)
    onClock(ctx, now)         on_clock(ctx, now)
    onBookUpdate(ctx, c)      on_book_update(ctx, change)   (BookChange)
    onTrade(ctx, contract)    on_trade(ctx, contract)       (every trade)
    onOwnFill(ctx, fill)      on_own_fill(ctx, fill)
    onOrderEvent(ctx, e)      on_order_event(ctx, event)    (OrderAccepted, OrderRejected,
                                                             OrderCancelled, OrderAmended)
    onTimer(ctx, id)          on_timer(ctx, timer_id)
    onOptionEvent(ctx, u)     on_option_event(ctx, update)  (OptionUpdate: its kind, order,
                                                             position, series, amount...)
    onFinish(ctx)             on_finish(ctx)
    name()                    name()               (default: the class name)
    demandGpuHours()          demand_gpu_hours()   (default 0)
    failSetup(why)            fail_setup(why)      (in on_start: the run stops with ValueError(why))
    ========================  ==========================================
    """

    _setup_error = None

    def name(self):
        return type(self).__name__

    def demand_gpu_hours(self):
        return 0

    def fail_setup(self, why):
        self._setup_error = str(why)

    def on_start(self, ctx):
        pass

    def on_clock(self, ctx, now):
        pass

    def on_book_update(self, ctx, change):
        pass

    def on_trade(self, ctx, contract):
        pass

    def on_own_fill(self, ctx, fill):
        pass

    def on_order_event(self, ctx, event):
        pass

    def on_timer(self, ctx, timer_id):
        pass

    def on_option_event(self, ctx, update):
        pass

    def on_finish(self, ctx):
        pass


def _frame(columns):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("DataFrames need pandas (Debian: python3-pandas); the numpy arrays need nothing") from e
    return pandas.DataFrame(columns)


class Result:
    """One backtest: ``fills``, ``contracts`` and ``series`` are dicts of equal-length numpy
    arrays (column name -> array); ``summary`` is the dict of summary.json; ``output_hash`` is
    the FNV-1a digest of every engine event (equal digests: the same run, event for event)."""

    def __init__(self, d):
        self.strategy = d["strategy"]
        self.account = d["account"]
        self.summary = d["summary"]
        self.fills = d["fills"]
        self.contracts = d["contracts"]
        self.series = d["series"]
        self.inputs = d["inputs"]
        self.strategy_actions = d["strategy_actions"]
        self.engine_events = d["engine_events"]
        self.output_hash = d["output_hash"]

    def frame(self, table):
        """``table`` ("fills", "contracts" or "series") as a pandas DataFrame."""
        return _frame(getattr(self, table))

    def __repr__(self):
        return (f"<Result {self.strategy}: {self.inputs:,} inputs, {len(self.fills['trade']):,} fills, "
                f"output hash {self.output_hash}>")


class SweepResult:
    """A sweep: ``points`` (one dict per grid point: index, params, summary, output_hash,
    error), ``table()`` the points as numpy columns (each parameter and summary figure)."""

    def __init__(self, d):
        self.strategy = d["strategy"]
        self.total_points = d["total_points"]
        self.shard = d["shard"]
        self.points = d["points"]
        self.json = d["json"]

    def table(self):
        import numpy
        rows = [{"index": p["index"], **{f"param.{k}": v for k, v in p["params"].items()}, **(p["summary"] or {}),
                 "output_hash": p["output_hash"], "error": p["error"]} for p in self.points]
        keys = list(dict.fromkeys(k for row in rows for k in row))
        return {k: numpy.array([row.get(k) for row in rows]) for k in keys}

    def frame(self):
        return _frame(self.table())


class LiveResult(dict):
    """What the strategy did in a live session: started, orders_placed, orders_rejected, fills,
    bought_gpu_hours, sold_gpu_hours, spent, received (micro-dollars)."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None


def open_history(path, *, chunk_inputs=65536):
    """Opens a history file (tessera-backtest generate / a recording) for replays. Each run or
    sweep streams it from the file ``chunk_inputs`` inputs at a time, so a history larger than
    memory replays; the results are those of the whole history in memory. ValueError says why a
    file cannot be used."""
    return _tessera.open_history(str(path), chunk_inputs)


def run(history, strategy, params=None, *, latency_us=None, order_latency=None, ack_latency=None, md_latency=None,
        latency_seed=1, fee_ppm=0, cash=None, account=None):
    """Replays ``history`` with ``strategy``: a Strategy object, or the name of a registered C++
    strategy (``strategies()``) with its ``params`` dict. The strategy trades as ``account``
    (default "strategy:" + its name). Latencies are those of ``tessera-backtest run``: each of
    ``order_latency`` (order entry; ``latency_us`` is its fixed form), ``ack_latency`` and
    ``md_latency`` (market data) is microseconds (an int) or a spec ("200", "exp:MEAN",
    "lognormal:MEDIAN,SIGMA", "file:PATH"), drawn with ``latency_seed``; ValueError for a bad
    one. ``fee_ppm`` is the exchange's fee on sales and ``cash`` the strategy's starting cash in
    dollars (bids beyond it are refused; None: no limit), as ``--fee-ppm`` and ``--cash``.
    Returns a Result."""
    return Result(_tessera.run(history, strategy, params, latency_us=latency_us, order_latency=order_latency,
                               ack_latency=ack_latency, md_latency=md_latency, latency_seed=latency_seed,
                               fee_ppm=fee_ppm, cash=cash, account=account or "", hash_events=True))


def sweep(history, strategy, grid, *, jobs=0, latency_us=None, order_latency=None, ack_latency=None, md_latency=None,
          latency_seed=1, fee_ppm=0, cash=None, shard=None):
    """One backtest per point of ``grid`` ({"base": {...}, "grid": {"param": [v1, v2]}}, as
    ``tessera-backtest sweep --grid``), ``jobs`` at a time (0: all cores), as the history streams
    past them. ``strategy`` is a registered strategy's name, or a callable (a class) making a
    Strategy from one point's parameter dict; a ValueError it raises marks that point's
    parameters as invalid. Latencies, ``fee_ppm`` and ``cash`` as for ``run``."""
    return SweepResult(_tessera.sweep(history, strategy, grid, jobs=jobs, latency_us=latency_us,
                                      order_latency=order_latency, ack_latency=ack_latency, md_latency=md_latency,
                                      latency_seed=latency_seed, fee_ppm=fee_ppm, cash=cash, shard=shard or ""))


def run_live(strategy, *, account, key=None, host="127.0.0.1", port=7400, seconds=60.0, until=None, params=None):
    """Runs ``strategy`` (a Strategy object, or a registered strategy's name with ``params``)
    against a running tessera-exchange as ``account`` until ``seconds`` pass or ``until()``
    returns True (checked about every 20 ms). ValueError: refused credentials or a setup
    error. Returns a LiveResult."""
    return LiveResult(_tessera.run_live(strategy, params, host=host, port=port, account=account, key=key or "",
                                        seconds=float(seconds), until=until))


def strategies():
    """The registered C++ strategies: name, summary, example_params."""
    return _tessera.strategies()
