"""Fan-out: what one more stream on a busy table costs the server per move
(issue 39: at most 20 µs; 89 to 109 µs before).

One Sevens table of 4 seats (an ``open`` match) is played turn after turn
through the API by its seats, one turn every ``period`` seconds (a busy
table whose every commit wakes its streams alone), while ``streams``
public streams of the table (``GET …/stream``; ``kind="seat"``: seat 1's
own, with its token; one client reading them all) follow it; then the
same number of turns with no stream attached; the two alternated ``runs``
times. The server's CPU (gunicorn's master and workers, and Redis) is read
around the turns of each phase, the streams already open and read: the
figure is (CPU per turn with the streams − without) ÷ ``streams``, the
median over the runs. Every stream must receive every
turn's event (``missed`` counts those that did not).

The turns are chosen by the game's own bot on a mirror of the table (the
client dealt the cards: ``POST …/rounds`` with the hands), as
:mod:`benchmarks.game_moves` does, so that no seat view is read between
turns. Run alone (its own Redis and gunicorn, JSON on stdout)::

    python -m benchmarks.stream_fanout [--streams 200] [--turns 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from service.games.sevens import engine as sevens
from service.games.sevens.deal import shuffle_and_deal
from service.games.sevens.players import bot
from service.games.sevens.state import RoundStatus
from service.games.sevens.state import Table as SevensTable

from . import measures
from .exchange_streams import frames
from .load import send
from .processes import Gunicorn, redis_cpu_seconds
from .streams import open_stream, raise_fd_limit, run_alone

SEATS = 4
NAMES = [f"P{i}" for i in range(SEATS)]
OPENING_AT_ONCE = 50


def fanout_env(streams: int) -> dict[str, str]:
    """The instance's settings: room for ``streams`` public streams of one
    table from one address on each worker (the caps are what is measured
    against, not what limits the run). The caps counted in Redis leave room
    for a phase's streams that the previous phase's (closed by the client,
    seen closed at their next write) still hold places beside: they refused
    a phase with 429 ``too-many-streams`` in 3 of 6 runs."""
    leases = str(4 * streams + 200)
    return {
        "STREAM_MAX_OPEN": str(streams + 50),
        "GUNICORN_WORKER_CONNECTIONS": str(2 * streams + 200),
        "STREAM_MAX_PER_ADDRESS": leases,
        "STREAM_MAX_PER_TABLE": leases,
        "STREAM_MAX_PER_SEAT": leases,
    }


class Table:
    """A Sevens table on the service and its mirror in the pure engine."""

    def __init__(self, session: aiohttp.ClientSession, base: str, rng: random.Random) -> None:
        self.session = session
        self.base = base
        self.rng = rng
        self.path = ""
        self.host = ""
        self.tokens: list[str] = []
        self.mirror: SevensTable | None = None

    async def create(self) -> None:
        options: dict[str, Any] = {"match": {"open": True}}
        body = {"variant": "sevens", "players": NAMES, "first_dealer": 0, "options": options}
        status, created = await send(self.session, "POST", f"{self.base}/v1/tables", None, body)
        if status != 201:
            raise RuntimeError(f"POST /v1/tables answered {status}: {created}")
        self.path = f"/v1/tables/{created['table_id']}"
        self.host = created["host_token"]
        self.tokens = [s["token"] for s in created["seat_tokens"]]
        self.mirror = sevens.create_table("sevens", options, NAMES, 0, self.rng).table

    async def _deal(self) -> None:
        assert self.mirror is not None
        hands = shuffle_and_deal(
            self.mirror.options, self.mirror.seats, self.mirror.next_dealer, self.rng
        )
        deal = {"hands": [list(h) for h in hands]}
        url = f"{self.base}{self.path}/rounds"
        status, answer = await send(self.session, "POST", url, self.host, deal)
        if status != 201:
            raise RuntimeError(f"a deal answered {status}: {answer}")
        self.mirror = sevens.start_round(self.mirror, self.rng, 0, deal).table

    async def turn(self) -> None:
        """The next turn (a deal first when no round is in play)."""
        assert self.mirror is not None
        rnd = self.mirror.round
        if rnd is None or rnd.status is not RoundStatus.PLAYING:
            await self._deal()
            rnd = self.mirror.round
            assert rnd is not None
        seat = rnd.on_turn
        assert seat is not None
        choice = bot(self.mirror, seat, self.rng)
        if choice["action"] == "play":
            body: dict[str, Any] = {"play": choice["card"], "last_card": choice["last_card"]}
        else:
            body = {"pass": True}
        url = f"{self.base}{self.path}/rounds/{rnd.number}/turns/{rnd.turn}"
        status, answer = await send(self.session, "PUT", url, self.tokens[seat], body)
        if status != 200:
            raise RuntimeError(f"a turn answered {status}: {answer}")
        if choice["action"] == "play":
            moved = sevens.play(
                self.mirror, rnd.number, rnd.turn, seat, choice["card"], choice["last_card"], 0
            )
        else:
            moved = sevens.pass_turn(self.mirror, rnd.number, rnd.turn, seat, 0)
        self.mirror = moved.table


class Follower:
    """One public stream: the seqs of the events it received."""

    def __init__(self) -> None:
        self.seqs: set[int] = set()

    async def read(self, response: aiohttp.ClientResponse) -> None:
        with contextlib.suppress(aiohttp.ClientError, asyncio.CancelledError):
            async for event, data in frames(response):
                if event == "message":
                    self.seqs.add(int(json.loads(data)["seq"]))
        response.close()


async def _phase(
    session: aiohttp.ClientSession,
    table: Table,
    streams: int,
    turns: int,
    period: float,
    cpu: Callable[[], float],
    kind: str = "public",
) -> dict[str, Any]:
    """``turns`` turns with ``streams`` public streams attached: CPU seconds,
    turns, events the streams missed."""
    url = f"{table.base}{table.path}/stream"
    token = None
    if kind == "seat":  # every stream is seat 1's, with its token
        url, token = f"{table.base}{table.path}/seats/1/stream", table.tokens[1]
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def opened() -> aiohttp.ClientResponse:
        async with gate:
            return await open_stream(streams_session, url, token)

    connector = aiohttp.TCPConnector(limit=streams + 10, ttl_dns_cache=None)
    timeout = aiohttp.ClientTimeout(total=None, connect=30, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as streams_session:
        held = await asyncio.gather(*(opened() for _ in range(streams)))
        followers = [Follower() for _ in held]
        readers = [asyncio.create_task(f.read(r)) for f, r in zip(followers, held, strict=True)]
        await table.turn()  # every stream has read a frame of this table once
        await asyncio.sleep(0.5)
        first_seq = await _last_event(session, table)
        before = cpu()
        due = time.perf_counter()
        for _ in range(turns):
            await table.turn()
            due += period
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        used = cpu() - before
        last_seq = await _last_event(session, table)
        await asyncio.sleep(0.5)  # the last frames on their way
        for task in readers:
            task.cancel()
        for task in readers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
    wanted = set(range(first_seq + 1, last_seq + 1))
    missed = sum(len(wanted - f.seqs) for f in followers)
    return {"streams": streams, "turns": turns, "cpu_s": used, "missed": missed}


async def _last_event(session: aiohttp.ClientSession, table: Table) -> int:
    status, view = await send(session, "GET", f"{table.base}{table.path}", None, None)
    if status != 200:
        raise RuntimeError(f"the table's view answered {status}")
    return int(view["last_event"])


async def _measure(
    base: str,
    streams: int,
    turns: int,
    runs: int,
    period: float,
    cpu: Callable[[], float],
    kind: str,
) -> dict[str, Any]:
    connector = aiohttp.TCPConnector(limit=16, ttl_dns_cache=None)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=60)
    ) as session:
        table = Table(session, base, random.Random(39))
        await table.create()
        for _ in range(20):  # warm-up: the workers' first requests, a deal
            await table.turn()
        phases = []
        for _ in range(runs):
            for attached in (streams, 0):
                phases.append(await _phase(session, table, attached, turns, period, cpu, kind))
    per_stream = []
    for run in range(runs):
        with_them, without = phases[2 * run], phases[2 * run + 1]
        extra = with_them["cpu_s"] / with_them["turns"] - without["cpu_s"] / without["turns"]
        per_stream.append(1e6 * extra / streams)
    quiet = [p["cpu_s"] / p["turns"] * 1000 for p in phases if not p["streams"]]
    busy = [p["cpu_s"] / p["turns"] * 1000 for p in phases if p["streams"]]
    return {
        "kind": kind,
        "streams": streams,
        "turns_per_phase": turns,
        "runs": runs,
        "period_s": period,
        "us_per_move_per_stream": measures.median(per_stream),
        "us_per_move_per_stream_runs": per_stream,
        "cpu_ms_per_turn_without": measures.median(quiet),
        "cpu_ms_per_turn_with": measures.median(busy),
        "missed": sum(p["missed"] for p in phases),
        "phases": phases,
    }


def measure(
    redis_url: str,
    rclient: Any,
    folder: Path,
    env: dict[str, str],
    *,
    streams: int,
    turns: int,
    runs: int,
    period: float = 0.02,
    kind: str = "public",
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """The figure (see the module docstring) on an instance of its own
    (two workers), started and stopped here on the Redis at ``redis_url``."""
    raise_fd_limit(streams + 256)
    folder.mkdir(parents=True, exist_ok=True)
    app = Gunicorn(
        "service.wsgi:app",
        {**env, "REDIS_URL": redis_url, **fanout_env(streams)},
        folder / "stream-fanout.log",
        "/readyz",
    ).start()
    try:
        log(f"fan-out: {streams} {kind} streams on a busy Sevens table, {runs} × {turns} turns…")

        def cpu() -> float:
            return app.cpu_seconds() + redis_cpu_seconds(rclient)

        return asyncio.run(_measure(app.base, streams, turns, runs, period, cpu, kind))
    finally:
        app.stop()


FULL: dict[str, Any] = {"streams": 200, "turns": 200, "runs": 3}
QUICK: dict[str, Any] = {"streams": 50, "turns": 60, "runs": 1}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 streams, 60 turns, one run")
    parser.add_argument("--streams", type=int)
    parser.add_argument("--turns", type=int)
    parser.add_argument("--runs", type=int)
    parser.add_argument(
        "--kind", choices=("public", "seat"), default="public", help="the streams attached"
    )
    args = parser.parse_args(argv)
    sizes = dict(QUICK if args.quick else FULL)
    for key in ("streams", "turns", "runs"):
        if getattr(args, key) is not None:
            sizes[key] = getattr(args, key)
    run_alone("referee-fanout-", measure, kind=args.kind, **sizes)


if __name__ == "__main__":
    main()
