"""A Python strategy through the C++ replay: the same strategy written in Python and in C++
gives the same run, event for event; results arrive as numpy arrays; errors in a strategy or its
parameters reach the caller."""
import json
import subprocess

import numpy
import pytest

import tessera
from conftest import program
from market_maker import MarketMaker

MM_PARAMS = {"cluster": "harbor-us-west-h100-b", "gpus": 8, "hours_ahead": 6, "window_hours": 4, "spread": 0.04,
             "max_inventory_gpus": 64}


def test_python_market_maker_equals_the_cpp_one_event_for_event(history, history_path, tmp_path):
    # Fails if the binding changes what a callback sees or sends (e.g. place() dropping the
    # window's end, or on_book_update not delivered): the orders differ, and so does the digest.
    py = tessera.run(history, MarketMaker(MM_PARAMS))
    cpp = tessera.run(history, "market-maker", MM_PARAMS)
    assert py.summary["fills"] > 5, "the market maker must trade for the comparison to mean anything"
    assert py.output_hash == cpp.output_hash
    for k in cpp.fills:
        assert numpy.array_equal(py.fills[k], cpp.fills[k]), k
    assert py.summary == cpp.summary
    # The command line's own run of the C++ strategy (its report) has the same digest.
    params = tmp_path / "params.json"
    params.write_text(json.dumps(MM_PARAMS))
    subprocess.run([program("TESSERA_BACKTEST_BIN"), "run", "--history", str(history_path), "--strategy",
                    "market-maker", "--params", str(params), "--report", str(tmp_path / "report"), "--quiet"],
                   check=True, capture_output=True)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["output_hash"] == py.output_hash


def test_results_are_numpy_columns(history):
    r = tessera.run(history, MarketMaker(MM_PARAMS))
    n = len(r.fills["trade"])
    assert n == r.summary["fills"]
    assert all(len(col) == n for col in r.fills.values())
    assert r.fills["price"].dtype == numpy.int64
    assert set(numpy.unique(r.fills["side"])) <= {1, -1}
    assert len(r.series["hour"]) > 24 and numpy.all(numpy.diff(r.series["hour"]) >= 0)
    # Bought minus sold GPU-hours, from the arrays, is the summary's figure.
    gh = r.fills["gpus"].astype(numpy.int64) * (r.fills["end"] - r.fills["start"])
    assert gh[r.fills["side"] == 1].sum() == r.summary["bought_gpu_hours"]


class Recorder(tessera.Strategy):
    """Sees every callback and places one order that cannot trade, then cancels it by timer."""

    def __init__(self):
        self.seen = {}
        self.order = None

    def count(self, what):
        self.seen[what] = self.seen.get(what, 0) + 1

    def on_start(self, ctx):
        self.count("start")
        c = ctx.clusters()[0]
        self.order = ctx.place(tessera.Order(side=tessera.Side.Buy, cluster=c.id, gpus=1, start=ctx.now() + 2,
                                             end=ctx.now() + 3, limit=1000))
        ctx.set_timer(ctx.time_micros() + 3_600_000_000, 7)

    def on_clock(self, ctx, now):
        self.count("clock")

    def on_trade(self, ctx, contract):
        self.count("trade")

    def on_order_event(self, ctx, event):
        self.count(type(event).__name__)

    def on_timer(self, ctx, timer_id):
        self.count(f"timer {timer_id}")
        ctx.cancel(self.order)

    def on_finish(self, ctx):
        self.count("finish")


def test_every_callback_reaches_python(history):
    s = Recorder()
    r = tessera.run(history, s)
    assert s.seen["start"] == 1 and s.seen["finish"] == 1
    assert s.seen["clock"] >= 47
    assert s.seen["trade"] > 100
    assert s.seen["OrderAccepted"] == 1 and s.seen["OrderCancelled"] == 1
    assert s.seen["timer 7"] == 1
    assert r.summary["orders_placed"] == 1


class Raises(tessera.Strategy):
    def on_clock(self, ctx, now):
        raise RuntimeError(f"boom at {now}")


def test_an_exception_in_a_callback_stops_the_run_and_reaches_the_caller(history):
    with pytest.raises(RuntimeError, match="boom at"):
        tessera.run(history, Raises())


def test_a_setup_error_and_bad_parameters_are_value_errors(history, tmp_path):
    with pytest.raises(ValueError, match="unknown cluster 'nowhere'"):
        tessera.run(history, MarketMaker({"cluster": "nowhere"}))
    with pytest.raises(ValueError, match="unknown strategy"):
        tessera.run(history, "no-such-strategy")
    with pytest.raises(ValueError):
        tessera.open_history(tmp_path / "missing.db")


def test_the_context_is_refused_outside_a_callback(history):
    class Keeps(tessera.Strategy):
        def on_start(self, ctx):
            self.ctx = ctx

    s = Keeps()
    tessera.run(history, s)
    with pytest.raises(RuntimeError, match="only valid inside a callback"):
        s.ctx.now()


def test_the_example_notebook_runs(tmp_path):
    # resources/examples/backtest_notebook.py as a user runs it; its own history in tmp_path.
    import os
    import subprocess
    import sys
    from conftest import SOURCE_DIR
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("TESSERA_LIVE_PORT", None)
    out = subprocess.run([sys.executable, str(SOURCE_DIR / "resources" / "examples" / "backtest_notebook.py")],
                         env=env, check=True, capture_output=True, text=True).stdout
    assert "same events as the C++ strategy: True" in out
    assert out.count("spread") == 6
