#!/usr/bin/env python3
"""Wall time of the market maker written in Python (resources/examples/market_maker.py) against
the same strategy in C++ (market-maker), on the same history (opened once, streamed by each run), through the same C++
replay. The history is bench_replay's: the simulated market, seed 1, activity 4, inputs only,
30 days by default. Prints both times and their ratio (the target is within 3x).

    PYTHONPATH=build/python python3 bench/python/bench_python_strategy.py [--days 30]
        [--activity 4] [--seed 1] [--history existing.db] [--backtest build/app/tessera-backtest]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "resources" / "examples"))

import tessera  # noqa: E402
from market_maker import MarketMaker  # noqa: E402

PARAMS = {"cluster": "harbor-us-west-h100-b", "hours_ahead": 6}  # as bench_replay's market maker


def make_history(backtest, days, activity, seed):
    path = pathlib.Path(tempfile.gettempdir()) / f"tessera-bench-python-{seed}-{days}-{activity}.db"
    if not path.exists():
        t = time.perf_counter()
        subprocess.run([backtest, "generate", "--out", str(path), "--days", str(days), "--activity", str(activity),
                        "--seed", str(seed), "--inputs-only", "--quiet"], check=True)
        print(f"generated {path} ({days} days, activity {activity}) in {time.perf_counter() - t:.2f} s")
    return path


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--days", type=int, default=30)
    a.add_argument("--activity", type=float, default=4)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--history")
    a.add_argument("--backtest", default=str(ROOT / "build" / "app" / "tessera-backtest"))
    a.add_argument("--passes", type=int, default=3)
    args = a.parse_args()
    path = args.history or make_history(args.backtest, args.days, args.activity, args.seed)
    t = time.perf_counter()
    history = tessera.open_history(path)
    print(f"history: {history.inputs:,} inputs, loaded in {time.perf_counter() - t:.2f} s\n")
    best_cpp = best_py = float("inf")
    for n in range(args.passes):
        t = time.perf_counter()
        cpp = tessera.run(history, "market-maker", PARAMS)
        cpp_s = time.perf_counter() - t
        t = time.perf_counter()
        py = tessera.run(history, MarketMaker(PARAMS))
        py_s = time.perf_counter() - t
        same = "same events" if py.output_hash == cpp.output_hash else "DIFFERENT EVENTS"
        print(f"pass {n + 1}: C++ market maker {cpp_s:6.2f} s   Python market maker {py_s:6.2f} s   "
              f"ratio {py_s / cpp_s:4.2f}x   ({cpp.summary['fills']:,} fills, {py.strategy_actions:,} actions, {same})")
        best_cpp, best_py = min(best_cpp, cpp_s), min(best_py, py_s)
    print(f"\nbest: C++ {best_cpp:.2f} s, Python {best_py:.2f} s, Python / C++ = {best_py / best_cpp:.2f}x "
          f"({history.inputs / best_py:,.0f} inputs/s with the Python strategy)")


if __name__ == "__main__":
    main()
