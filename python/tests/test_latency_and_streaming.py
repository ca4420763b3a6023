"""The latency models of tessera-backtest (order entry, acknowledgements, market data; fixed,
exponential, lognormal or a measured file; seeded), its fee and cash limit, from Python, with
bad values refused as exceptions; and the history streamed from its file, whatever the chunk
size."""
import json
import subprocess

import pytest

import tessera
from conftest import program
from market_maker import MarketMaker

MM = {"cluster": "harbor-us-west-h100-b", "gpus": 8, "hours_ahead": 6, "window_hours": 4, "spread": 0.04,
      "max_inventory_gpus": 64}
GRID = {"base": {"cluster": "harbor-us-west-h100-b", "hours_ahead": 6}, "grid": {"spread": [0.02, 0.06]}}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    path = tmp_path_factory.mktemp("latency") / "measured.txt"
    path.write_text("# microseconds\n1200\n4500\n900\n20000\n3100\n")
    return path


@pytest.fixture(scope="module")
def bursty_path(tmp_path_factory):
    """A day whose arrivals come in bursts 200 us apart, so orders race and latency matters."""
    path = tmp_path_factory.mktemp("bursty") / "bursty.db"
    cli("generate", "--out", path, "--hours", 24, "--burst", 32, "--seed", 11)
    return path


def cli(*args):
    quiet = ["--quiet"] if args[0] in ("generate", "run", "sweep") else []
    return subprocess.run([program("TESSERA_BACKTEST_BIN"), *map(str, args), *quiet], check=True,
                          capture_output=True, text=True)


class Probe(tessera.Strategy):
    """Places one order that cannot trade; notes when it was sent, when its acceptance arrived
    and when the first clock tick arrived after it."""

    def __init__(self):
        self.sent = self.accepted = self.clock = None

    def on_start(self, ctx):
        self.sent = ctx.time_micros()
        ctx.place(tessera.Order(side=tessera.Side.Buy, cluster=ctx.clusters()[0].id, gpus=1, start=ctx.now() + 2,
                                end=ctx.now() + 3, limit=1000))

    def on_order_event(self, ctx, event):
        if isinstance(event, tessera.OrderAccepted) and self.accepted is None:
            self.accepted = ctx.time_micros()

    def on_clock(self, ctx, now):
        if self.clock is None:
            self.clock = ctx.time_micros()


def probe(history, **latency):
    p = Probe()
    tessera.run(history, p, **latency)
    return p


def test_each_channel_delays_its_own_messages(history):
    # Fails if a channel's option is dropped or reaches another channel (ack_latency applied to
    # market data, say): the acceptance arrives after order entry + acknowledgement latency, the
    # clock after the market-data latency, each exactly.
    none = probe(history)
    assert none.accepted == none.sent
    p = probe(history, order_latency=700, ack_latency="1500", md_latency="fixed:300")
    assert p.sent == none.sent
    assert p.accepted - p.sent == 700 + 1500
    assert p.clock - none.clock == 300
    q = probe(history, latency_us=250, md_latency=40)
    assert (q.accepted - q.sent, q.clock - none.clock) == (250, 40)


def test_every_form_and_the_seed_are_the_command_lines(bursty_path, tmp_path, measured):
    # Fails if a form or the seed is read differently from tessera-backtest's (the digests of
    # the same run differ), or if the seed is ignored.
    bursty = tessera.open_history(bursty_path)
    model = {"order_latency": "lognormal:4000,0.6", "ack_latency": f"file:{measured}", "md_latency": "exp:9000",
             "latency_seed": 5}
    py = tessera.run(bursty, "market-maker", MM, **model)
    params = tmp_path / "p.json"
    params.write_text(json.dumps(MM))
    cli("run", "--history", bursty_path, "--strategy", "market-maker", "--params", params, "--report",
        tmp_path / "r", "--order-latency", "lognormal:4000,0.6", "--ack-latency", f"file:{measured}",
        "--md-latency", "exp:9000", "--latency-seed", 5)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["output_hash"] == py.output_hash
    assert summary["latency"]["market_data"] == "exp:9000"
    assert tessera.run(bursty, "market-maker", MM).output_hash != py.output_hash
    assert tessera.run(bursty, "market-maker", MM, **{**model, "latency_seed": 6}).output_hash != py.output_hash


def test_a_sweep_records_and_uses_the_model_as_the_command_line(history, history_path, tmp_path):
    # Fails if sweep() ignores a channel: the merged result of tessera-backtest sweep differs.
    py = tessera.sweep(history, "market-maker", GRID, jobs=2, order_latency="exp:500", md_latency=250,
                       latency_seed=3, fee_ppm=20000, cash=300)
    grid = tmp_path / "g.json"
    grid.write_text(json.dumps(GRID))
    cli("sweep", "--history", history_path, "--strategy", "market-maker", "--grid", grid, "--out",
        tmp_path / "s.jsonl", "--order-latency", "exp:500", "--md-latency", "250", "--latency-seed", 3,
        "--fee-ppm", 20000, "--cash", 300)
    cli("merge", "--out", tmp_path / "m", tmp_path / "s.jsonl")
    merged = json.loads((tmp_path / "m.json").read_text())
    assert py.json == merged
    assert merged["latency"] == {"order_entry": "exp:500", "ack": "fixed:0", "market_data": "fixed:250", "seed": 3}
    assert (merged["fee_ppm"], merged["cash"]) == (20000, 300_000_000)
    # The fee and the cash limit reach the points: fees paid, bids refused.
    assert sum(p["summary"]["fees"] for p in py.points) > 0
    assert sum(p["summary"]["orders_rejected"] for p in py.points) > 0
    one = tessera.run(history, "market-maker", py.points[0]["params"], order_latency="exp:500", md_latency=250,
                      latency_seed=3, fee_ppm=20000, cash=300)
    assert one.output_hash == py.points[0]["output_hash"] and one.summary == py.points[0]["summary"]


@pytest.mark.parametrize("kwargs, error, says", [
    ({"latency_us": -5}, ValueError, "latency_us"),
    ({"order_latency": "exp:-1"}, ValueError, "order_latency"),
    ({"ack_latency": "gauss:30"}, ValueError, "ack_latency"),
    ({"md_latency": "lognormal:200"}, ValueError, "md_latency"),
    ({"md_latency": "file:/nonexistent/latencies.txt"}, ValueError, "md_latency"),
    ({"latency_us": 10, "order_latency": "20"}, ValueError, "not both"),
    ({"latency_seed": -1}, ValueError, "latency_seed"),
    ({"latency_seed": 2 ** 64}, ValueError, "latency_seed"),
    ({"order_latency": 2.5}, TypeError, "order_latency"),
    ({"ack_latency": True}, TypeError, "ack_latency"),
    ({"latency_seed": "1"}, TypeError, "latency_seed"),
    ({"fee_ppm": -1}, ValueError, "fee_ppm"),
    ({"fee_ppm": 1_000_001}, ValueError, "fee_ppm"),
    ({"cash": 0}, ValueError, "cash"),
])
def test_bad_latencies_are_refused(history, kwargs, error, says):
    # Fails if a bad model is accepted and run (e.g. a negative fixed latency).
    for call in (lambda: tessera.run(history, "market-maker", MM, **kwargs),
                 lambda: tessera.sweep(history, "market-maker", GRID, **kwargs)):
        with pytest.raises(error, match=says):
            call()


def test_streamed_in_any_chunk_size_the_runs_are_the_same(history, history_path):
    # Fails if a chunk boundary loses or repeats an input (the digests differ).
    assert history.chunk_inputs == 65536
    small = tessera.open_history(history_path, chunk_inputs=7)
    assert small.inputs == history.inputs and small.last_time_micros == history.last_time_micros
    a = tessera.run(small, MarketMaker(MM), md_latency="exp:300")
    b = tessera.run(history, MarketMaker(MM), md_latency="exp:300")
    assert a.summary["fills"] > 0 and a.inputs == history.inputs
    assert a.output_hash == b.output_hash and a.summary == b.summary
    assert tessera.sweep(small, MarketMaker, GRID, jobs=2).json == tessera.sweep(history, MarketMaker, GRID).json
    with pytest.raises(ValueError, match="chunk_inputs"):
        tessera.open_history(history_path, chunk_inputs=0)


def test_runs_on_several_threads_share_one_history(history, history_path):
    # Runs on threads sharing one History (one SQLite connection, opened without SQLite's own
    # lock; HistoryStream's lock serialises the chunk reads) give the runs made alone. Removing
    # that lock did not make this fail here (two tries): SQLite's rule is what the lock keeps.
    import concurrent.futures
    params = [{**MM, "spread": s} for s in (0.02, 0.03, 0.04, 0.05)]
    alone = [tessera.run(history, "market-maker", p).output_hash for p in params]
    small = tessera.open_history(history_path, chunk_inputs=5)  # many reads, so they interleave
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda p: tessera.run(small, "market-maker", p).output_hash, params * 2))
    assert together == alone * 2
