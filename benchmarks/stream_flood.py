"""One address holding streams until refused (issue 39): the instance must
still answer ``/readyz`` and a seat's move from another address, at a p99
no worse than twice its quiet p99.

An instance of two workers (the default caps and rate limits of an
address; ``TRUSTED_PROXIES=1``, so that each caller names its address in
``X-Forwarded-For``, as a proxy in front would) serves a Sevens table
whose seats (one address) move one turn every ``period`` s while
``/readyz`` is asked as often. First quietly for
``seconds``; then while an attacker (another address) asks for public
streams of 20 tables, :data:`RATE` a second (at most ``opening``
unanswered), keeps every one it gets and goes on asking, refused or not,
for as long. Figures: the moves' and readiness checks' latency (p50, p99) in both
phases, the streams the attacker held (its address's cap) and the answers
it got by status and code, and any request of the seats or of the
readiness checks that was not answered 2xx in time. Run alone (its own
Redis and gunicorn, JSON on stdout)::

    python -m benchmarks.stream_flood [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from . import measures
from .processes import Gunicorn
from .stream_fanout import Table
from .streams import raise_fd_limit, run_alone

ATTACKER = "203.0.113.7"
PLAYERS = "198.51.100.2"
TABLES = 20
"""Tables whose public streams the attacker opens (any table's, e.g. the lobby's)."""

RATE = 50.0
"""The attacker's streams asked for a second: issue 39's flood (48 a second
of anonymous public streams; 2,000 open in 60 to 90 s before the caps)."""


def flood_env() -> dict[str, str]:
    """The instance's settings: the default caps and the default rate
    limits of an address (the attacker meets both, as in production; the
    table creations of the set-up are out of reach), one trusted proxy."""
    return {
        "TRUSTED_PROXIES": "1",
        "WEB_CONCURRENCY": "2",
        "GUNICORN_WORKER_CLASS": "gevent",
        "RATE_LIMIT_PER_ADDRESS": "100/second",
        "RATE_LIMIT_ANONYMOUS": "50/second",
        "RATE_LIMIT_PER_TOKEN": "20/second",
        "RATE_LIMIT_TABLES": "1000000/minute",
        "STREAM_MAX_PER_ADDRESS": "32",
    }


class Timed:
    """Latencies (ms) of one kind of request, and those not answered 2xx."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.failed: Counter[str] = Counter()

    async def call(self, session: aiohttp.ClientSession, method: str, url: str, **kw: Any) -> None:
        began = time.perf_counter()
        try:
            async with session.request(method, url, **kw) as answer:
                await answer.read()
                status = answer.status
        except (TimeoutError, aiohttp.ClientError) as error:
            self.failed[type(error).__name__] += 1
            return
        if 200 <= status < 300:
            self.ms.append(1000 * (time.perf_counter() - began))
        else:
            self.failed[str(status)] += 1

    def summary(self) -> dict[str, Any]:
        return {**measures.latency_summary(self.ms), "failed": dict(self.failed)}


class Players:
    """The seats of one table, moving as a front end's players do, through
    :class:`.stream_fanout.Table` (from :data:`PLAYERS`)."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.table = Table(session, base, random.Random(39))
        self.base = base
        self.session = session

    async def phase(self, seconds: float, period: float) -> dict[str, Any]:
        moves, ready = Timed(), Timed()
        end = time.perf_counter() + seconds
        due = time.perf_counter()
        while time.perf_counter() < end:
            began = time.perf_counter()
            try:
                await self.table.turn()
                moves.ms.append(1000 * (time.perf_counter() - began))
            except (RuntimeError, TimeoutError, aiohttp.ClientError) as error:
                moves.failed[type(error).__name__] += 1
            await ready.call(self.session, "GET", f"{self.base}/readyz")
            due += period
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        return {"moves": moves.summary(), "readyz": ready.summary()}


async def _attack(
    base: str, table_paths: list[str], stop: asyncio.Event, opening: int, rate: float
) -> dict[str, Any]:
    """Public streams from :data:`ATTACKER`, ``rate`` a second (at most
    ``opening`` unanswered at once), each one answered 200 kept."""
    connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=None)
    timeout = aiohttp.ClientTimeout(total=None, connect=5, sock_read=None)
    held: list[aiohttp.ClientResponse] = []
    answers: Counter[str] = Counter()
    headers = {"X-Forwarded-For": ATTACKER}
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def one(i: int) -> None:
            url = f"{base}{table_paths[i % len(table_paths)]}/stream"
            try:
                response = await session.get(url, headers=headers)
            except (TimeoutError, aiohttp.ClientError) as error:
                answers[type(error).__name__] += 1
                return
            if response.status == 200:
                held.append(response)
                answers["200"] += 1
                return
            with contextlib.suppress(ValueError, aiohttp.ContentTypeError):
                answers[f"{response.status} {(await response.json()).get('code', '')}"] += 1
            response.release()

        i = 0
        pending: set[asyncio.Task[None]] = set()
        due = time.perf_counter()
        while not stop.is_set():
            if len(pending) < opening:
                task = asyncio.create_task(one(i))
                pending.add(task)
                task.add_done_callback(pending.discard)
                i += 1
            due += 1 / rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        await asyncio.gather(*pending)
        most = len(held)
        for response in held:
            response.close()
    return {"held": most, "answers": dict(answers), "tried": i}


async def _measure(
    base: str, seconds: float, period: float, opening: int, rate: float
) -> dict[str, Any]:
    connector = aiohttp.TCPConnector(limit=8, ttl_dns_cache=None)
    headers = {"X-Forwarded-For": PLAYERS}
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=5), headers=headers
    ) as session:
        players = Players(session, base)
        await players.table.create()
        paths = []
        for _ in range(TABLES):
            other = Table(session, base, random.Random(1))
            await other.create()
            paths.append(other.path)
        for _ in range(20):  # warm-up
            await players.table.turn()
        quiet = await players.phase(seconds, period)
        stop = asyncio.Event()
        attack = asyncio.create_task(_attack(base, paths, stop, opening, rate))
        await asyncio.sleep(1.0)  # the attacker at its cap
        flooded = await players.phase(seconds, period)
        stop.set()
        attacked = await attack
    ratio = measures.ratio(flooded["moves"]["p99"], quiet["moves"]["p99"])
    return {
        "seconds": seconds,
        "period_s": period,
        "quiet": quiet,
        "flooded": flooded,
        "attacker": attacked,
        "move_p99_ratio": ratio,
        "readyz_p99_ratio": measures.ratio(flooded["readyz"]["p99"], quiet["readyz"]["p99"]),
    }


def measure(
    redis_url: str,
    rclient: Any,
    folder: Path,
    env: dict[str, str],
    *,
    seconds: float,
    period: float = 0.05,
    opening: int = 20,
    rate: float = RATE,
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """The figures (see the module docstring) on an instance of its own,
    started and stopped here on the Redis at ``redis_url`` (``rclient``
    unused: the sections' common signature)."""
    raise_fd_limit(4096)
    folder.mkdir(parents=True, exist_ok=True)
    app = Gunicorn(
        "service.wsgi:app",
        {**env, "REDIS_URL": redis_url, **flood_env()},
        folder / "stream-flood.log",
        "/readyz",
    ).start()
    try:
        log(f"stream flood: {seconds:g} s quiet, then {seconds:g} s with one address flooding…")
        return asyncio.run(_measure(app.base, seconds, period, opening, rate))
    finally:
        app.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    run_alone("referee-flood-", measure, seconds=args.seconds)


if __name__ == "__main__":
    main()
