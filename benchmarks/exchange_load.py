"""Issue 13's load shape on the service: simultaneous exchanges, table by table.

Run in its own process, it prints its figures as JSON::

    python -m benchmarks.exchange_load http://127.0.0.1:8001 --tables 16 --seats 7 --duration 10

``--tables`` tables of ``--seats`` seats play at once (``classic``, open
match, ``declaration: automatic``, at most 50 exchanges a round; see
:func:`table_body`). Per table: the host deals, every seat reads its hand
(``GET …/seats/{seat}``); then, exchange after exchange, **every seat puts its
pass at the same moment** (``PUT …/passes/{seat}``, the card of
:func:`benchmarks.players.choose_cards`), and the next exchange starts once
every seat knows its new hand: the seat whose pass resolved the exchange
reads it in its pass answer (``hand``), every other seat reads its seat view
once all pass answers are in (HTTP has no push: this is as early as a client
can learn it without polling). When an exchange ends the round (a winning
hand under ``automatic``, or the 50th exchange: void), the host deals the
next round and every seat reads its new hand, so the load goes on.

With ``--streams`` every seat follows its seat stream and reads its new
hands there instead (:mod:`benchmarks.exchange_streams`).

The same shape as ``benchmarks/peers/boardgameio/load.js`` drives against
boardgame.io. Figures: passes sent in the measured window (after
``--warmup`` s) whose seat then knew its new hand, per second; the latency
of a pass from sending it to the seat knowing its new hand
(``pass_to_hand``), and of the PUT alone (``pass``); 2xx answers per kind
for the whole run (for costs per pass); the client's CPU. Each seat checks
the referee's hand against its own bookkeeping
(:func:`benchmarks.players.after_exchange`); a difference is a note, never
silent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from typing import Any

from .load import Client, Recorder, pass_at_once
from .players import after_exchange, choose_cards
from .players import table_body as match_body


def table_body(seats: int) -> dict[str, Any]:
    """``POST /v1/tables`` for this load: ``classic`` (7 cards, trimmed deck,
    pass one left, RULES.md 2.9), an open match (it never ends), a winning
    hand ends the round by itself (``declaration: automatic``, RULES.md 2.6),
    and a round with no winner is void after 50 exchanges."""
    body = match_body(seats, declaration="automatic")
    body["options"]["match"] = {"open": True}
    return body


def _hand(answer: Any) -> list[str]:
    return list(answer["hand"])


class Exchanges:
    """The figures of the simultaneous exchanges: latencies (ms) from a pass
    sent to its seat knowing its new hand, for passes sent in the window."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.pass_to_hand: list[float] = []
        self.passes_whole_run = 0

    def known(self, sent: float) -> None:
        self.passes_whole_run += 1
        if self.recorder.start <= sent < self.recorder.end:
            self.pass_to_hand.append((time.perf_counter() - sent) * 1000.0)


View = dict[str, Any]


class SeatViews:
    """Where the seats learn their hands without streams: each reads its
    seat view (``GET …/seats/{seat}``) when it must know it. The other
    source is :class:`benchmarks.exchange_streams.Streamed` (the same two
    methods); :func:`play_table` plays with either."""

    async def follow(self, client: Client, table: str, tokens: list[str]) -> bool:
        """Nothing to open: seat views need no stream."""
        return True

    async def views(
        self,
        client: Client,
        table: str,
        tokens: list[str],
        seats: list[int],
        round_no: int,
        exchange: int,
    ) -> dict[int, View] | None:
        """Every seat of ``seats`` reads its own view at once (they are read
        once every pass of the exchange before is answered, so they show
        ``round_no`` at ``exchange`` or its end)."""
        views = await asyncio.gather(
            *(client.call("seat", "GET", f"{table}/seats/{s}", tokens[s]) for s in seats)
        )
        if any(status != 200 for status, _ in views):
            client.recorder.notes["seat view failed"] += 1
            return None
        return {s: view for s, (_, view) in zip(seats, views, strict=True)}


Views = Any
"""A :class:`SeatViews` or a :class:`benchmarks.exchange_streams.Streamed`."""


async def deal(
    client: Client, table: str, host: str, tokens: list[str], views: Views | None = None
) -> tuple[int, str, list[list[str]]] | None:
    """Deal the next round (again while a dealt hand already wins) and let
    every seat learn its hand from ``views`` (default: its seat view):
    (round, direction, hands), or None."""
    rec = client.recorder
    views = SeatViews() if views is None else views
    for _ in range(5):
        status, dealt = await client.call("deal", "POST", f"{table}/rounds", host)
        if status != 201:
            rec.notes[f"deal answered {status}"] += 1
            return None
        rnd = dealt["table"]["round"]
        if rnd["status"] == "passing":
            seats = list(range(len(tokens)))
            found = await views.views(client, table, tokens, seats, dealt["round"], 1)
            if found is None:
                return None
            return dealt["round"], rnd["direction"], [_hand(found[s]) for s in seats]
        rec.notes["rounds over at the deal"] += 1
    return None


async def play_table(client: Client, figures: Exchanges, seats: int, views: Views) -> None:
    """Create a table and play exchanges until the window ends; the seats
    learn their hands from ``views`` (see the module docstring)."""
    rec = client.recorder
    status, created = await client.call("create", "POST", "/v1/tables", None, table_body(seats))
    if status != 201:
        rec.notes[f"create answered {status}"] += 1
        return
    table = f"/v1/tables/{created['table_id']}"
    host = created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    if not await views.follow(client, table, tokens):
        return
    dealt = await deal(client, table, host, tokens, views)
    while dealt is not None and not rec.over():
        number, direction, hands = dealt
        exchange = 1
        while not rec.over():
            passed = [choose_cards(h, 1) for h in hands]
            sent = time.perf_counter()
            answers = await pass_at_once(client, table, number, exchange, tokens, passed, sent)
            if any(status != 200 for status, _ in answers):
                rec.notes["pass refused: table abandoned"] += 1
                return
            resolved = [(s, a) for s, (_, a) in enumerate(answers) if a["resolved"]]
            if len(resolved) != 1 or resolved[0][1]["exchange"] != exchange:
                rec.notes["exchange did not resolve once"] += 1
                return
            resolver, answer = resolved[0]
            figures.known(sent)  # the resolving seat's answer carries its new hand
            others = [s for s in range(seats) if s != resolver]
            found = await views.views(client, table, tokens, others, number, exchange + 1)
            if found is None:
                return
            for _ in others:
                figures.known(sent)
            expected = after_exchange(hands, passed, direction)
            hands = [_hand(found[s]) if s in found else _hand(answer) for s in range(seats)]
            if [sorted(h) for h in hands] != [sorted(h) for h in expected]:
                rec.notes["hand bookkeeping differs from the referee"] += 1
                return
            rec.notes["exchanges"] += 1
            if answer["round_status"] != "passing":
                rec.notes[f"rounds {answer['round_status']}"] += 1
                break
            exchange += 1
        else:  # the window ended mid-round
            break
        dealt = await deal(client, table, host, tokens, views)


async def run(
    base: str, tables: int, seats: int, duration: float, warmup: float, streams: bool = False
) -> dict[str, Any]:
    """Drive the service for ``warmup + duration`` s; the figures (see the
    module). With ``streams``, seats learn their hands from their seat
    streams (:mod:`benchmarks.exchange_streams`) instead of seat views."""
    from .exchange_streams import Streamed

    now = time.perf_counter()
    recorder = Recorder(now + warmup, now + warmup + duration)
    # Every seat of every table may have a request in flight at once.
    client = Client(base, tables * seats, recorder)
    figures = Exchanges(recorder)
    streamed = Streamed(tables * seats) if streams else None
    views = streamed if streamed is not None else SeatViews()
    try:
        await asyncio.gather(*(play_table(client, figures, seats, views) for _ in range(tables)))
    finally:
        await client.close()
        if streamed is not None:
            await streamed.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    lat = figures.pass_to_hand
    return {
        "target": "service",
        "streams": streams,
        "tables": tables,
        "seats": seats,
        "window_s": duration,
        # As load.js counts them: passes sent in the window whose seat then knew its hand.
        "passes": len(lat),
        "passes_per_s": len(lat) / duration,
        "pass_to_hand_ms": lat,
        "latencies_ms": dict(recorder.latencies),
        "latency_measures": "pass sent -> the seat's hand known (its pass answer if it "
        "resolved the exchange, else its seat view read once all passes were answered)",
        "statuses": {k: {str(s): n for s, n in c.items()} for k, c in recorder.statuses.items()},
        "notes": dict(recorder.notes),
        "answered_whole_run": dict(recorder.answered),
        "passes_whole_run": figures.passes_whole_run,
        "client_cpu_s": usage.ru_utime + usage.ru_stime,
        "client_wall_s": time.perf_counter() - now,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the service's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seats", type=int, default=7, choices=range(4, 8))
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--streams", action="store_true", help="seats read their hands from their seat streams"
    )
    args = parser.parse_args(argv)
    result = asyncio.run(
        run(
            args.base.rstrip("/"), args.tables, args.seats, args.duration, args.warmup, args.streams
        )
    )
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
