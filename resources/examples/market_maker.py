"""The built-in C++ market maker (backtest/strategies/MarketMakerStrategy.cpp) written in
Python, line for line: on the same history it places the same orders at the same instants, so
its run's event digest equals the C++ strategy's (python/tests/test_backtest.py checks it).

Every `requote_hours` it cancels its quotes and bids `gpus` GPUs for the `window_hours`
starting `hours_ahead` from now at the middle of the book minus half the spread, while its
inventory stays under `max_inventory_gpus`; it offers every future block it holds at the
middle plus half the spread (never below cost).
"""
import tessera
from tessera import FillStyle, Order, OrderCancelled, OrderRejected, Side


def on_tick(micros):
    """A price rounded to a tenth of a cent (half away from zero, as C++ llround), at least $0.001."""
    v = micros / 1000.0
    whole = int(v)
    if v - whole >= 0.5:
        whole += 1
    return max(1000, whole * 1000)


class MarketMaker(tessera.Strategy):
    def __init__(self, params):
        known = {"cluster", "gpus", "hours_ahead", "window_hours", "spread", "max_inventory_gpus", "requote_hours"}
        unknown = set(params) - known
        if unknown or "cluster" not in params:
            raise ValueError(f"market maker: needs 'cluster'; unknown parameters {sorted(unknown)}")
        self.cluster_name = params["cluster"]
        self.gpus = int(params.get("gpus", 8))
        self.hours_ahead = int(params.get("hours_ahead", 24))
        self.window_hours = int(params.get("window_hours", 4))
        self.spread = float(params.get("spread", 0.04))
        self.max_inventory = int(params.get("max_inventory_gpus", 64))
        self.requote_hours = int(params.get("requote_hours", 1))
        self.cluster = None
        self.quoted_at = None
        self.working = set()
        self.position = {}   # hour -> GPUs held
        self.cost = {}       # (start, end) -> highest price paid

    def name(self):
        # The C++ strategy's name: the run trades as the same account, "strategy:market-maker".
        return "market-maker"

    def on_start(self, ctx):
        try:
            self.cluster = tessera.require_cluster(ctx.clusters(), self.cluster_name).id
        except ValueError as why:
            return self.fail_setup(why)
        self.requote(ctx)

    def on_clock(self, ctx, now):
        for h in [h for h in self.position if h < now]:
            del self.position[h]
        for w in [w for w in self.cost if w[1] <= now + 1]:
            del self.cost[w]
        if self.quoted_at is None or now - self.quoted_at >= max(1, self.requote_hours):
            self.requote(ctx)

    def on_book_update(self, ctx, change):
        if self.quoted_at is None and self.cluster is not None and change.cluster == self.cluster:
            self.requote(ctx)

    def middle(self, ctx, hour):
        bids = ctx.depth(self.cluster, hour, Side.Buy, 1)
        asks = ctx.depth(self.cluster, hour, Side.Sell, 1)
        if bids and asks:
            return (bids[0].price + asks[0].price) // 2
        last = ctx.last_trade_price(self.cluster)
        if last is not None:
            return last
        if asks:
            return asks[0].price
        return None

    def requote(self, ctx):
        if self.cluster is None:
            return
        now = ctx.now()
        start = now + max(1, self.hours_ahead)
        mid = self.middle(ctx, start)
        if mid is None:
            return
        self.quoted_at = now
        for order in sorted(self.working):
            ctx.cancel(order)
        self.working.clear()
        half = self.spread / 2.0
        held = 0
        for h in range(start, start + self.window_hours):
            held = max(held, self.position.get(h, 0))
        if held + self.gpus <= self.max_inventory:
            self.working.add(ctx.place(Order(side=Side.Buy, cluster=self.cluster, gpus=self.gpus, start=start,
                                             end=start + self.window_hours, limit=on_tick(float(mid) * (1.0 - half)),
                                             fill=FillStyle.Divisible)))
        for (first, last), paid in sorted(self.cost.items()):
            a = max(first, now + 1)
            if a >= last:
                continue
            g = min(self.position.get(h, 0) for h in range(a, last))
            if g <= 0:
                continue
            m = self.middle(ctx, a)
            if m is None:
                m = mid
            self.working.add(ctx.place(Order(side=Side.Sell, cluster=self.cluster, gpus=g, start=a, end=last,
                                             limit=max(on_tick(float(m) * (1.0 + half)), paid),
                                             fill=FillStyle.Divisible)))

    def on_own_fill(self, ctx, fill):
        sign = 1 if fill.side == Side.Buy else -1
        for h in range(fill.start, fill.end):
            self.position[h] = self.position.get(h, 0) + sign * fill.gpus
        if fill.side == Side.Buy:
            key = (fill.start, fill.end)
            self.cost[key] = max(self.cost.get(key, 0), fill.price)
        if fill.leaves_gpu_hours == 0:
            self.working.discard(fill.order)

    def on_order_event(self, ctx, event):
        if isinstance(event, OrderCancelled) and event.leaves_gpu_hours == 0:
            self.working.discard(event.order)
        if isinstance(event, OrderRejected):
            self.working.discard(event.order)
