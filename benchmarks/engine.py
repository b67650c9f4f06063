"""The pure engine alone, in this process: no HTTP, no Redis, no codec.

- *resolution*: exchanges resolved per second by the engine's resolution
  step, given an exchange whose passes are all chosen
  (``service.games.ship.engine._resolve_exchange``; the target applies here);
- *exchange via the public API*: a whole exchange through
  ``engine.choose_pass``, one call per seat, the last one resolving (the
  work a pass request asks of the engine, summed over the seats);
- *rounds*: full rounds simulated per second by ``service.games.ship.simulate.play_round``
  (deal, the automatic players' choices, passes, claims), the work of
  ``referee simulate``.

Each is measured over ``PREPARED`` different dealt tables, cycled, for about
``seconds`` seconds, repeated ``repeats`` times; the median is reported.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from service.games.ship import engine
from service.games.ship.players import choose_cards
from service.games.ship.simulate import play_round

PREPARED = 200


def _dealt_tables(seats: int, count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    overrides = {"match": {"open": True}, "max_exchanges": 50}
    names = [f"P{i}" for i in range(seats)]
    tables = []
    for _ in range(count):
        table = engine.create_table("classic", overrides, names, 0, rng).table
        tables.append(engine.start_round(table, rng, 0).table)
    return tables


def _rate(work: Callable[[int], int], seconds: float, repeats: int) -> float:
    """Median over ``repeats`` of (units of work done) / (time taken); ``work(n)``
    does ``n`` iterations and returns the units done."""
    n = 64
    while True:  # calibrate: enough iterations for about ``seconds``
        started = time.perf_counter()
        work(n)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds / 4 or n > 10_000_000:
            break
        n *= 2
    n = max(1, int(n * seconds / max(elapsed, 1e-9)))
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        units = work(n)
        rates.append(units / (time.perf_counter() - started))
    return statistics.median(rates)


def resolution_rate(seats: int, seconds: float = 1.0, repeats: int = 3) -> float:
    """Exchanges resolved per second by ``_resolve_exchange`` at ``seats`` seats."""
    cases = []
    for table in _dealt_tables(seats, PREPARED, seed=seats):
        rnd = table.round
        choices = tuple(tuple(choose_cards(h, table.options.pass_count)) for h in rnd.hands)
        cases.append((table, replace(rnd.exchange, choices=choices)))
    resolve = engine._resolve_exchange

    def work(n: int) -> int:
        k = len(cases)
        for i in range(n):
            table, exchange = cases[i % k]
            resolve(table, exchange)
        return n

    return _rate(work, seconds, repeats)


def exchange_rate(seats: int, seconds: float = 1.0, repeats: int = 3) -> float:
    """Whole exchanges per second through ``engine.choose_pass`` (every seat)."""
    cases = []
    for table in _dealt_tables(seats, PREPARED, seed=100 + seats):
        rnd = table.round
        cases.append(
            (table, [choose_cards(h, table.options.pass_count) for h in rnd.hands], rnd.number)
        )
    choose = engine.choose_pass

    def work(n: int) -> int:
        k = len(cases)
        for i in range(n):
            table, passes, number = cases[i % k]
            for seat, cards in enumerate(passes):
                table = choose(table, number, 1, seat, cards, 0).table
        return n

    return _rate(work, seconds, repeats)


def round_rate(seats: int, seconds: float = 1.0, repeats: int = 3) -> float:
    """Full rounds per second through ``service.games.ship.simulate.play_round``."""
    rng = random.Random(seats)
    overrides = {"match": {"open": True}, "max_exchanges": 50}
    table = engine.create_table("classic", overrides, [f"P{i}" for i in range(seats)], 0, rng).table

    def work(n: int) -> int:
        t, now = table, 0
        for i in range(n):
            if i % 5 == 0:  # a fresh table every five rounds: results do not pile up
                t = table
            t, now = play_round(t, rng, now)
        return n

    return _rate(work, seconds, repeats)


def measure(seconds: float = 1.0, repeats: int = 3) -> dict[str, Any]:
    """Every engine figure for 4 and 7 seats."""
    out: dict[str, Any] = {}
    for seats in (4, 7):
        out[str(seats)] = {
            "resolutions_per_s": resolution_rate(seats, seconds, repeats),
            "exchanges_via_choose_pass_per_s": exchange_rate(seats, seconds, repeats),
            "rounds_per_s": round_rate(seats, seconds, repeats),
        }
    return out
