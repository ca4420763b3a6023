"""Python strategies against a real tessera-exchange process started here (the sample accounts
of resources/exchange, an in-memory journal, the clock held): a provider's strategy offers
GPU-hours, a buyer's strategy sees the offer in the book and takes it; both see their fill."""
import re
import shutil
import subprocess
import threading
import time

import pytest

import tessera
from conftest import SOURCE_DIR, program


@pytest.fixture
def exchange(tmp_path):
    accounts = tmp_path / "accounts.json"
    shutil.copy(SOURCE_DIR / "resources" / "exchange" / "accounts.json", accounts)
    proc = subprocess.Popen([program("TESSERA_EXCHANGE_BIN"), "--port", "0", "--db", ":memory:", "--accounts",
                             str(accounts), "--no-wall-clock"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        port = None
        deadline = time.monotonic() + 20
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
        if port is None:
            proc.kill()
            pytest.fail("tessera-exchange did not start: " + proc.stderr.read())
        # The exchange keeps logging: its pipes are drained so it never blocks on a full one.
        for pipe in (proc.stdout, proc.stderr):
            threading.Thread(target=pipe.read, daemon=True).start()
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


class Seller(tessera.Strategy):
    """The provider lists 8 GPUs for two hours at $2.50 on us-east-h100-a."""

    def __init__(self):
        self.accepted = threading.Event()
        self.filled = threading.Event()

    def on_start(self, ctx):
        c = tessera.require_cluster(ctx.clusters(), "us-east-h100-a")
        self.order = ctx.place(tessera.Order(side=tessera.Side.Sell, cluster=c.id, gpus=8, start=ctx.now() + 2,
                                             end=ctx.now() + 4, limit=2_500_000))

    def on_order_event(self, ctx, event):
        if isinstance(event, tessera.OrderAccepted) and event.order == self.order:
            self.accepted.set()

    def on_own_fill(self, ctx, fill):
        if fill.order == self.order and fill.side == tessera.Side.Sell:
            self.filled.set()


class Buyer(tessera.Strategy):
    """Takes the first ask it sees on a book update (one hour of one side of one cluster), all
    of it, at the ask's price."""

    def __init__(self):
        self.order = None
        self.fills = []

    def on_book_update(self, ctx, change):
        if self.order is not None or change.side != tessera.Side.Sell:
            return
        asks = ctx.depth(change.cluster, change.start, tessera.Side.Sell, 1)
        if asks:
            self.order = ctx.place(tessera.Order(side=tessera.Side.Buy, cluster=change.cluster, gpus=asks[0].gpus,
                                                 start=change.start, end=change.end, limit=asks[0].price,
                                                 tif=tessera.TimeInForce.IOC))

    def on_own_fill(self, ctx, fill):
        self.fills.append((fill.order, fill.gpus, fill.price))


def test_python_strategies_trade_with_each_other_on_a_live_exchange(exchange):
    # Fails if the live adapter loses the buyer's book update or its fill (the buyer then never
    # fills and the until() conditions time out), or if place() sends another price.
    seller, buyer = Seller(), Buyer()
    results = {}

    def sell():
        results["seller"] = tessera.run_live(seller, account="provider", key="provider-key", port=exchange,
                                             seconds=30, until=seller.filled.is_set)

    t = threading.Thread(target=sell)
    t.start()
    assert seller.accepted.wait(20), "the seller's order was not accepted"
    results["buyer"] = tessera.run_live(buyer, account="alice", key="alice-key", port=exchange, seconds=30,
                                        until=lambda: len(buyer.fills) > 0)
    t.join(35)
    assert buyer.fills and all(price == 2_500_000 for _, _, price in buyer.fills)
    assert sum(g for _, g, _ in buyer.fills) == 8
    assert results["buyer"].started and results["buyer"].fills >= 1
    # The buyer takes the hour its book update named: 8 GPUs for one hour.
    assert results["buyer"].bought_gpu_hours == 8 and results["buyer"].spent == 8 * 2_500_000
    assert results["seller"].sold_gpu_hours == 8


def test_refused_credentials_are_a_value_error(exchange):
    with pytest.raises(ValueError, match="refused the credentials"):
        tessera.run_live(tessera.Strategy(), account="alice", key="wrong-key", port=exchange, seconds=20)
