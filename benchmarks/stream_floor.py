"""The third floor's load (issue 18): turns at tables whose seats learn
them from their streams, on :mod:`benchmarks.floor`'s ``PUT /floor/turn``
and ``GET /floor/stream``. Run in its own process, it prints its figures as
JSON::

    python -m benchmarks.stream_floor http://127.0.0.1:8002 --tables 16 --seats 7 --seconds 10

``--tables`` tables (a slot each) of ``--seats`` seats play at once. Every
seat follows its stream. Turn after turn, the seat on turn (the version
modulo the seats) makes its move once its own stream shows the version that
put it on turn, as the service's Sevens load does with its seat streams
(:mod:`benchmarks.game_moves` ``--streams``): one ``PUT`` per move, every
seat of the table receiving a frame for it. Figures: moves started in the
measured window (after ``--warmup`` s) per second, every move of the run
(for costs per move), the latency from sending a move to its next seat
knowing its turn, and the client's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import resource
import sys
import time
from typing import Any

import aiohttp

from .exchange_streams import frames

WAIT_SECONDS = 10.0
"""How long a seat waits for its turn on its stream before its table stops."""


class Seat:
    """One seat's stream: the newest version its frames showed."""

    def __init__(self) -> None:
        self.version = 0
        self.changed = asyncio.Event()

    async def read(self, response: aiohttp.ClientResponse) -> None:
        with contextlib.suppress(aiohttp.ClientError, asyncio.CancelledError):
            async for event, data in frames(response):
                if event == "seat":
                    self.version = json.loads(data)["version"]
                    self.changed.set()
        response.close()

    async def until(self, version: int) -> bool:
        """Whether the stream shows ``version`` (or a newer one) within :data:`WAIT_SECONDS`."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT_SECONDS):
                while self.version < version:
                    self.changed.clear()
                    await self.changed.wait()
                return True
        return False


class Run:
    """The measured window (after the warm-up) and what the tables did."""

    def __init__(self, seconds: float, warmup: float) -> None:
        self.began = time.perf_counter()
        self.start = self.began + warmup
        self.end = self.start + seconds
        self.moves = 0
        self.moves_whole_run = 0
        self.latencies: list[float] = []
        self.notes: dict[str, int] = {}

    def note(self, what: str) -> None:
        self.notes[what] = self.notes.get(what, 0) + 1


async def table(session: aiohttp.ClientSession, base: str, slot: int, seats: int, run: Run) -> None:
    """One table (slot ``slot``) until the window ends: its seats' streams,
    then move after move, each made by the seat its stream put on turn."""
    followers = [Seat() for _ in range(seats)]
    readers = []
    for number, seat in enumerate(followers):
        response = await session.get(
            f"{base}/floor/stream/{slot}/{number}", headers={"Accept": "text/event-stream"}
        )
        readers.append(asyncio.create_task(seat.read(response)))
    await asyncio.sleep(0.5)  # every worker's subscription is made
    body = {"card": "QS"}
    try:
        while time.perf_counter() < run.end:
            sent = time.perf_counter()
            async with session.put(f"{base}/floor/turn/{slot}", json=body) as answer:
                if answer.status != 200:
                    run.note(f"move answered {answer.status}")
                    return
                version = (await answer.json())["version"]
            # The next seat on turn moves once its own stream shows this version.
            if not await followers[version % seats].until(version):
                run.note("no frame on the stream in time")
                return
            run.moves_whole_run += 1
            if run.start <= sent < run.end:
                run.moves += 1
                run.latencies.append(1000 * (time.perf_counter() - sent))
    finally:
        for reader in readers:
            reader.cancel()


async def measure(
    base: str, tables: int, seats: int, seconds: float, warmup: float
) -> dict[str, Any]:
    run = Run(seconds, warmup)
    connector = aiohttp.TCPConnector(limit=tables * (seats + 1), ttl_dns_cache=None)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=None, sock_read=60)
    ) as session:
        first = random.randrange(1_000_000)  # slots of their own, run after run
        await asyncio.gather(*(table(session, base, first + n, seats, run) for n in range(tables)))
    lat = sorted(run.latencies)

    def pct(p: float) -> float | None:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else None

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "tables": tables,
        "seats": seats,
        "seconds": seconds,
        "moves": run.moves,
        "moves_per_s": round(run.moves / seconds, 1),
        "moves_whole_run": run.moves_whole_run,
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "notes": run.notes,
        "client_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "client_wall_s": round(time.perf_counter() - run.began, 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the floor app, e.g. http://127.0.0.1:8002")
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.base, args.tables, args.seats, args.seconds, args.warmup))
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
