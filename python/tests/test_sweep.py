"""Sweeps of Python strategies: one run per grid point, in parallel threads, each equal to the
same point run alone; invalid parameters are marked on their point."""
import tessera
from market_maker import MarketMaker

GRID = {"base": {"cluster": "harbor-us-west-h100-b", "hours_ahead": 6},
        "grid": {"spread": [0.02, 0.06], "gpus": [4, 8]}}


def test_a_python_sweep_equals_its_points_run_alone_and_the_cpp_sweep(history):
    # Fails if the sweep hands a point the wrong parameters or shares a strategy between points.
    sw = tessera.sweep(history, MarketMaker, GRID, jobs=2)
    assert sw.total_points == 4 and len(sw.points) == 4
    cpp = tessera.sweep(history, "market-maker", GRID, jobs=2)
    for p, c in zip(sw.points, cpp.points):
        assert p["error"] == "" and p["params"] == c["params"]
        alone = tessera.run(history, MarketMaker(p["params"]))
        assert p["output_hash"] == alone.output_hash == c["output_hash"]
        assert p["summary"] == c["summary"]
    assert len({p["output_hash"] for p in sw.points}) == 4
    table = sw.table()
    # Axes in key order (gpus, spread), the last varying fastest, as tessera-backtest sweep.
    assert list(table["param.gpus"]) == [4, 4, 8, 8]
    assert list(table["param.spread"]) == [0.02, 0.06, 0.02, 0.06]
    assert len(table["fills"]) == 4


def test_a_shard_and_invalid_points(history):
    grid = {"base": {"hours_ahead": 6}, "grid": {"cluster": ["harbor-us-west-h100-b", "nowhere"]}}
    sw = tessera.sweep(history, MarketMaker, grid, jobs=1)
    assert sw.points[0]["error"] == ""
    assert "unknown cluster 'nowhere'" in sw.points[1]["error"]
    one = tessera.sweep(history, MarketMaker, GRID, shard="1/2")
    assert [p["index"] for p in one.points] == [1, 3]
