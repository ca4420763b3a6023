# %% [markdown]
# # Backtesting a Python strategy with Tessera
#
# A notebook-style script (cells marked `# %%`, for Jupyter, VS Code or plain `python3`):
# generate a simulated market, run the market maker of `market_maker.py` (written in Python)
# next to the built-in C++ one, read the results as numpy arrays, sweep its spread, and
# optionally run it live against a tessera-exchange. From the repository root:
#
#     PYTHONPATH=build/python python3 resources/examples/backtest_notebook.py
#
# docs/python.md explains the API.

# %%
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy

import tessera

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from market_maker import MarketMaker  # noqa: E402

BACKTEST = os.environ.get("TESSERA_BACKTEST_BIN", str(HERE.parents[1] / "build" / "app" / "tessera-backtest"))

# %% [markdown]
# ## A week of simulated market
# `tessera-backtest generate` writes the history; `open_history` opens it for runs that stream it.

# %%
path = pathlib.Path(tempfile.gettempdir()) / "tessera-notebook-week.db"
if not path.exists():
    subprocess.run([BACKTEST, "generate", "--out", str(path), "--days", "7", "--seed", "1", "--quiet"], check=True)
history = tessera.open_history(path)
print(f"{history.inputs:,} inputs")

# %% [markdown]
# ## The Python market maker, and the same strategy in C++
# Both go through the same C++ replay; their event digests are equal: the same run, event for event.

# %%
params = {"cluster": "harbor-us-west-h100-b", "hours_ahead": 6, "spread": 0.04}
py = tessera.run(history, MarketMaker(params))
cpp = tessera.run(history, "market-maker", params)
print(py)
print("same events as the C++ strategy:", py.output_hash == cpp.output_hash)

# %% [markdown]
# ## Results as numpy arrays
# `fills`, `contracts` and `series` map column names to arrays. Prices and money are integers in
# micro-dollars, as in the engine; `tessera.dollars` converts.

# %%
f = py.fills
gpu_hours = f["gpus"].astype(numpy.int64) * (f["end"] - f["start"])
bought = f["side"] == 1
if bought.any():
    vwap = (f["price"][bought] * gpu_hours[bought]).sum() / gpu_hours[bought].sum()
    print(f"bought {gpu_hours[bought].sum():,} GPU-hours at ${tessera.dollars(vwap):,.4f} per GPU-hour")
equity = tessera.dollars(py.series["equity"])
print(f"P&L at the end ${equity[-1]:,.2f}; worst drawdown ${tessera.dollars(py.series['drawdown'].min()):,.2f}")
print("summary:", {k: py.summary[k] for k in ("fills", "orders_placed", "fill_rate")})
try:
    print(py.frame("fills").head())  # a pandas DataFrame, when pandas is installed
except ImportError as why:
    print(why)

# %% [markdown]
# ## A sweep of the spread and the size
# One replay per grid point, on all cores; the class is called with each point's parameters.

# %%
grid = {"base": {"cluster": "harbor-us-west-h100-b", "hours_ahead": 6},
        "grid": {"spread": [0.02, 0.04, 0.08], "gpus": [4, 8]}}
sweep = tessera.sweep(history, MarketMaker, grid)
table = sweep.table()
for gpus, spread, fills, pnl in zip(table["param.gpus"], table["param.spread"], table["fills"], table["pnl"]):
    print(f"gpus {gpus:>2}  spread {spread:.2f}: {fills:>3} fills, P&L ${tessera.dollars(pnl):>10,.2f}")

# %% [markdown]
# ## Live
# The same object trades on a running exchange (`tessera-exchange --config
# resources/exchange/exchange.json`); set TESSERA_LIVE_PORT to try it.

# %%
if os.environ.get("TESSERA_LIVE_PORT"):
    live = tessera.run_live(MarketMaker({"cluster": "us-east-h100-a", "hours_ahead": 6}), account="alice",
                            key="alice-key", port=int(os.environ["TESSERA_LIVE_PORT"]), seconds=10)
    print(live)
