"""Fixtures of the Python package's tests: the programs under test come from the build tree,
named by CTest (python/CMakeLists.txt) in TESSERA_BACKTEST_BIN and TESSERA_EXCHANGE_BIN."""
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "resources" / "examples"))


def program(var):
    path = os.environ.get(var)
    if not path or not os.path.exists(path):
        pytest.fail(f"{var} must name the built program (run the tests through ctest)")
    return path


@pytest.fixture(scope="session")
def history_path(tmp_path_factory):
    """Two days of the simulated market, written by `tessera-backtest generate`."""
    path = tmp_path_factory.mktemp("history") / "two-days.db"
    subprocess.run([program("TESSERA_BACKTEST_BIN"), "generate", "--out", str(path), "--days", "2", "--seed", "7",
                    "--quiet"], check=True, capture_output=True)
    return path


@pytest.fixture(scope="session")
def history(history_path):
    import tessera
    return tessera.open_history(history_path)
