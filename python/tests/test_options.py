"""A Python strategy trading an option on the price index in a backtest: it buys a call from the
replay's option dealer through the strategy API (option_quote, place_option, on_option_event),
and the option settles on the delivery month's average index. The P&L is checked against the
payoff computed by hand."""
import json
import subprocess

import pytest

import tessera
from conftest import program

START = 490_992                  # 2026-01-05 00:00 UTC, in hours since 1970
FEBRUARY = START + 27 * 24       # 2026-02-01 00:00 UTC
MARCH = FEBRUARY + 28 * 24       # 2026-03-01 00:00 UTC
HOUR_US = 3_600_000_000
BEFORE, DURING = 2_000_000, 2_500_000   # the next-day index before and during February ($/GPU-h, micro)
STRIKE = 2_100_000
NOTIONAL = 100


@pytest.fixture(scope="module")
def february(tmp_path_factory):
    """One H100 cluster from 2026-01-05 to two hours past February: every hour one trade of 8 GPUs
    for the next hour, so the next-day index is its price: $2.00 until 30 hours before February,
    $2.50 from then on (every index value inside February)."""
    folder = tmp_path_factory.mktemp("february")
    lines = [
        {"type": "clock", "now": START, "time_us": START * HOUR_US},
        {"type": "cluster", "id": 1, "name": "c1", "provider": "p1", "region": "us-east", "accelerator": "H100",
         "gpus_per_node": 8, "node_count": 4, "time_us": START * HOUR_US},
        {"type": "capacity", "account": "p1", "cluster": 1, "gpus": 32, "start": START, "end": MARCH + 48,
         "time_us": START * HOUR_US},
    ]
    order = 1
    for h in range(START + 1, MARCH + 3):
        at = h * HOUR_US
        price = BEFORE if h < FEBRUARY - 30 else DURING
        lines.append({"type": "clock", "now": h, "time_us": at})
        for offset, (side, who) in enumerate((("sell", "p1"), ("buy", "buyer")), start=1):
            lines.append({"type": "order", "id": order, "account": who, "side": side, "cluster": 1, "gpus": 8,
                          "start": h + 1, "end": h + 2, "limit": price, "time_us": at + offset})
            order += 1
    inputs = folder / "february.jsonl"
    inputs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    path = folder / "february.db"
    done = subprocess.run([program("TESSERA_BACKTEST_BIN"), "import", "--history", str(path), "--from", str(inputs)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return tessera.open_history(path)


class CallBuyer(tessera.Strategy):
    """Buys NOTIONAL GPU-hours of the February $2.10 H100 call at the dealer's ask, once quoted."""

    def __init__(self):
        self.series = tessera.OptionSeries(accelerator=tessera.Accelerator.H100, kind=tessera.OptionKind.Call,
                                           period=tessera.PeriodKind.Month, start=FEBRUARY, strike=STRIKE)
        self.order = None
        self.ask = None
        self.updates = []

    def on_clock(self, ctx, now):
        if self.order is not None:
            return
        quote = ctx.option_quote(self.series)
        if quote.ask is None:
            return
        self.ask = quote.ask
        self.order = ctx.place_option(tessera.OptionOrder(side=tessera.Side.Buy, series=self.series,
                                                          gpu_hours=NOTIONAL, premium=quote.ask))

    def on_option_event(self, ctx, update):
        self.updates.append(update)


def test_a_bought_call_pays_average_minus_strike_less_premium(february):
    # Seen failing with PyStrategy not binding on_option_event (no fill seen).
    buyer = CallBuyer()
    result = tessera.run(february, buyer)
    assert buyer.ask is not None, "the dealer never quoted the February call"
    kinds = [u.kind for u in buyer.updates]
    assert tessera.OptionUpdateKind.Rejected not in kinds, [u.text for u in buyer.updates]
    fills = [u for u in buyer.updates if u.kind == tessera.OptionUpdateKind.Filled]
    assert len(fills) == 1
    fill = fills[0]
    assert fill.order == buyer.order and fill.is_long and fill.series == buyer.series
    assert fill.gpu_hours == NOTIONAL and fill.premium == buyer.ask
    assert fill.amount == -buyer.ask * NOTIONAL
    # By hand: February's average index is $2.50, so the call pays (2.50 - 2.10) x 100 = $40.00.
    payoff = 40_000_000
    assert (DURING - STRIKE) * NOTIONAL == payoff
    settled = [u for u in buyer.updates if u.kind == tessera.OptionUpdateKind.Notice and u.amount != 0]
    assert len(settled) == 1 and settled[0].amount == payoff and settled[0].is_long
    options = result.summary["options"]
    assert options["payoff_received"] == payoff
    assert options["premium_paid"] == buyer.ask * NOTIONAL
    assert options["pnl"] == payoff - buyer.ask * NOTIONAL
    # The strategy traded nothing else: its cash is its option P&L.
    assert result.summary["final_cash"] == payoff - buyer.ask * NOTIONAL


def test_bad_option_input_is_refused_with_its_reason():
    with pytest.raises(ValueError, match="begins no month"):
        tessera.OptionSeries(accelerator=tessera.Accelerator.H100, kind=tessera.OptionKind.Put,
                             period=tessera.PeriodKind.Month, start=FEBRUARY + 1, strike=STRIKE)
    with pytest.raises(ValueError, match="whole cents"):
        tessera.OptionSeries(accelerator=tessera.Accelerator.H100, kind=tessera.OptionKind.Put,
                             period=tessera.PeriodKind.Month, start=FEBRUARY, strike=2_100_001)
    assert [p.name for p in tessera.listed_periods(START)][:2] == ["2026-02", "2026-03"]
