"""Event streams (``GET …/stream``, ``GET …/seats/{seat}/stream``): what an
idle subscriber costs, and how soon a commit reaches every subscriber.

1. **Idle subscribers** (:func:`idle`): ``count`` public-stream subscribers
   spread over ``tables`` tables, on an instance with ONE gunicorn worker
   process (gevent; ``STREAM_MAX_OPEN`` and ``GUNICORN_WORKER_CONNECTIONS``
   raised above ``count``). Each is an aiohttp connection that has read its
   stream's first frame (so the stream is open and follows its table). After
   :data:`WARM_STREAMS` first subscribers (kept open: the process's Hub and
   its Redis pool exist), the worker's RSS (``VmRSS`` of /proc/<pid>/status)
   and Redis's ``used_memory`` are read before and after opening ``count``
   more, :data:`OPENING_AT_ONCE` at a time; the differences ÷ the streams
   opened are the figures (a refused stream is counted by its code).
2. **Delivery** (:func:`delivery`): ``tables`` busy tables of 4 seats (My
   Ship Sails, classic), each with ``per_table`` subscribers (its 4 seat
   streams with the seats' tokens, the rest public streams), on an instance
   with TWO worker processes (a commit on one wakes streams on both, through
   Redis's PUBLISH). A driver makes one simultaneous exchange (every seat
   passes at once) per table every ``period`` s for ``duration`` s, the
   tables' exchanges spread evenly over the period, dealing again when a
   round ends. A subscriber's delay for an event: its receive
   time (``time.time()``) less the event's ``at_ms`` (the Redis clock when the
   move read the table, a round trip before its commit: the delay is a
   little over-stated); same machine, same clock, whole milliseconds. Seat
   frames (``event: seat``) are timed from the ``at_ms`` of the last event
   before them. Only events the driver caused count; a subscriber that
   misses an event another subscriber of its table got is counted.

Run alone (its own Redis and gunicorns, JSON on stdout)::

    python -m benchmarks.streams [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import redis

from . import measures
from .exchange_load import deal, table_body
from .exchange_streams import frames
from .load import Client, Recorder, pass_at_once
from .players import after_exchange, choose_cards
from .processes import Gunicorn, RedisServer, gunicorn_env

SEATS = 4
OPENING_AT_ONCE = 50
"""Streams opened concurrently (a crowd arriving, not all in the same millisecond)."""

WARM_STREAMS = 2 * OPENING_AT_ONCE
"""Idle subscribers opened before the measured ones (and kept open)."""


def stream_env(streams: int, workers: int) -> dict[str, str]:
    """The instance's environment for ``streams`` open streams per worker."""
    return {
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_WORKER_CLASS": "gevent",
        "STREAM_MAX_OPEN": str(streams + 50),
        # Streams take at most half of a worker's connections.
        "GUNICORN_WORKER_CONNECTIONS": str(2 * streams + 200),
        # Many subscribers of few tables, from one address: what is measured
        # is a stream's memory and delivery, not the caps.
        "STREAM_MAX_PER_TABLE": str(streams + 50),
        "STREAM_MAX_PER_ADDRESS": str(streams + 50),
    }


def raise_fd_limit(needed: int) -> int:
    """Raise this process's soft file-descriptor limit to ``needed`` (at most
    the hard limit; gunicorn started afterwards inherits it); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        soft = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return int(soft)


def rss_bytes(pid: int) -> int:
    """The resident set of ``pid`` (``VmRSS``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def _session(connections: int) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=connections + 10, ttl_dns_cache=None)
    timeout = aiohttp.ClientTimeout(total=None, connect=30, sock_connect=30, sock_read=None)
    return aiohttp.ClientSession(connector=connector, timeout=timeout)


async def create_tables(session: aiohttp.ClientSession, base: str, n: int) -> list[dict[str, Any]]:
    """``n`` new 4-seat tables: their ``POST /v1/tables`` answers."""

    async def one() -> dict[str, Any]:
        async with session.post(f"{base}/v1/tables", json=table_body(SEATS)) as r:
            if r.status != 201:
                raise RuntimeError(f"POST /v1/tables answered {r.status}: {await r.text()}")
            created: dict[str, Any] = await r.json()
            return created

    return list(await asyncio.gather(*(one() for _ in range(n))))


class Refused(RuntimeError):
    """A stream was not opened: ``why`` its status and problem code."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"GET {url} answered {why}")
        self.why = why


async def open_stream(
    session: aiohttp.ClientSession, url: str, token: str | None = None
) -> aiohttp.ClientResponse:
    """``GET url`` (a stream), its first frame read (the ``retry`` line and
    its blank line): the stream is open and follows its table. Raises
    :class:`Refused`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await session.get(url, headers=headers)
    if response.status != 200:
        text = await response.text()
        response.release()
        code = ""
        with contextlib.suppress(ValueError, AttributeError):
            code = str(json.loads(text).get("code", ""))
        raise Refused(url, f"{response.status} {code}".strip())
    while (await response.content.readline()).strip():
        pass
    return response


async def _idle(
    base: str, pid: int, rclient: redis.Redis, count: int, tables: int, settle: float
) -> dict[str, Any]:
    async with _session(count + WARM_STREAMS) as session:
        created = await create_tables(session, base, tables)
        urls = [f"{base}/v1/tables/{c['table_id']}/stream" for c in created]
        gate = asyncio.Semaphore(OPENING_AT_ONCE)
        refused: Counter[str] = Counter()

        async def opened(i: int) -> aiohttp.ClientResponse | None:
            async with gate:
                try:
                    return await open_stream(session, urls[i % tables])
                except Refused as no:
                    refused[no.why] += 1
                    return None

        # The first subscribers open as the crowd will and stay: the Hub and
        # the Redis pool at its peak (a connection per stream reading at once)
        # are in "before". (A closed stream would hold on in the worker until
        # its next heartbeat's write fails.)
        first = await asyncio.gather(*(opened(i) for i in range(WARM_STREAMS)))
        await asyncio.sleep(settle)
        rss0, mem0 = rss_bytes(pid), rclient.info("memory")
        clients0 = rclient.info("clients")["connected_clients"]
        began = time.perf_counter()
        held = await asyncio.gather(*(opened(i) for i in range(count)))
        open_s = time.perf_counter() - began
        await asyncio.sleep(settle)
        rss1, mem1 = rss_bytes(pid), rclient.info("memory")
        clients1 = rclient.info("clients")["connected_clients"]
        for response in [*first, *held]:
            if response is not None:
                response.close()
    measured = sum(r is not None for r in held)
    used = mem1["used_memory"] - mem0["used_memory"]
    return {
        "subscribers": measured,
        "tried": count,
        "first_subscribers": sum(r is not None for r in first),
        "refused": dict(refused),
        "tables": tables,
        "open_s": open_s,
        "worker_rss_before_bytes": rss0,
        "worker_rss_after_bytes": rss1,
        "worker_rss_per_subscriber_bytes": (rss1 - rss0) / max(measured, 1),
        "redis_used_memory_delta_bytes": used,
        "redis_used_memory_per_subscriber_bytes": used / max(measured, 1),
        # Of it, the buffers of Redis's clients (they shrink when idle).
        "redis_client_buffers_delta_bytes": mem1["mem_clients_normal"] - mem0["mem_clients_normal"],
        "redis_clients_before": clients0,
        "redis_clients_after": clients1,
    }


def idle(
    base: str, pid: int, rclient: redis.Redis, count: int, tables: int, settle: float = 1.0
) -> dict[str, Any]:
    """Figure 1 (see the module docstring) against the one worker ``pid`` of
    the instance at ``base``; bytes, seconds."""
    raise_fd_limit(count + WARM_STREAMS + 256)
    return asyncio.run(_idle(base, pid, rclient, count, tables, settle))


@dataclass
class Subscriber:
    """What one stream received after ``since_ms``: delays (ms) and seqs."""

    table: int
    seat: int | None
    since_ms: float
    event_ms: list[float] = field(default_factory=list)
    seat_ms: list[float] = field(default_factory=list)
    seqs: set[int] = field(default_factory=set)

    async def read(self, response: aiohttp.ClientResponse) -> None:
        last_at: float | None = None
        async for event, data in frames(response):
            now = time.time() * 1000.0
            if event == "message":
                shown = json.loads(data)
                last_at = float(shown["at_ms"])
                if last_at >= self.since_ms:
                    self.event_ms.append(now - last_at)
                    self.seqs.add(int(shown["seq"]))
            elif event == "seat" and last_at is not None and last_at >= self.since_ms:
                self.seat_ms.append(now - last_at)


async def drive_table(
    client: Client, created: dict[str, Any], period: float, offset: float, exchanges: list[int]
) -> None:
    """Simultaneous exchanges at the table, one every ``period`` s from
    ``offset`` s on, until the client's window ends; a new deal when a round
    ends."""
    rec = client.recorder
    await asyncio.sleep(offset)
    table = f"/v1/tables/{created['table_id']}"
    host = created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    dealt = await deal(client, table, host, tokens)
    due = time.perf_counter()
    while dealt is not None and not rec.over():
        number, direction, hands = dealt
        exchange = 1
        while not rec.over():
            due += period
            passed = [choose_cards(h, 1) for h in hands]
            answers = await pass_at_once(client, table, number, exchange, tokens, passed)
            if any(status != 200 for status, _ in answers):
                rec.notes["pass refused"] += 1
                return
            exchanges[0] += 1
            resolved = [a for _, a in answers if a["resolved"]]
            hands = after_exchange(hands, passed, direction)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            if not resolved or resolved[0]["round_status"] != "passing":
                break
            exchange += 1
        else:
            break
        dealt = await deal(client, table, host, tokens)


async def _delivery(
    base: str, tables: int, per_table: int, duration: float, period: float, drain: float
) -> dict[str, Any]:
    async with _session(tables * per_table) as session:
        created = await create_tables(session, base, tables)
        subscribers: list[Subscriber] = []
        opening = []
        for t, c in enumerate(created):
            url = f"{base}/v1/tables/{c['table_id']}"
            for i in range(per_table):
                seat = i if i < SEATS else None
                if seat is None:
                    opening.append(open_stream(session, f"{url}/stream"))
                else:
                    token = c["seat_tokens"][seat]["token"]
                    opening.append(open_stream(session, f"{url}/seats/{seat}/stream", token))
                subscribers.append(Subscriber(t, seat, 0.0))
        gate = asyncio.Semaphore(OPENING_AT_ONCE)

        async def gated(
            coroutine: Coroutine[Any, Any, aiohttp.ClientResponse],
        ) -> aiohttp.ClientResponse:
            async with gate:
                return await coroutine

        held = await asyncio.gather(*(gated(o) for o in opening))
        since = time.time() * 1000.0
        for s in subscribers:
            s.since_ms = since
        readers = [asyncio.create_task(s.read(r)) for s, r in zip(subscribers, held, strict=True)]
        now = time.perf_counter()
        recorder = Recorder(now, now + duration)
        client = Client(base, tables * SEATS, recorder)
        exchanges = [0]
        try:
            # The tables' exchanges spread over the period, as tables' moves are.
            await asyncio.gather(
                *(
                    drive_table(client, c, period, period * t / tables, exchanges)
                    for t, c in enumerate(created)
                )
            )
        finally:
            await client.close()
        driven = time.perf_counter() - now
        await asyncio.sleep(drain)
        for task in readers:
            task.cancel()
        for task in readers:
            with contextlib.suppress(asyncio.CancelledError, aiohttp.ClientError):
                await task
        for response in held:
            response.close()
    seen: dict[int, set[int]] = {}
    for s in subscribers:
        seen.setdefault(s.table, set()).update(s.seqs)
    missed = sum(len(seen[s.table] - s.seqs) for s in subscribers)
    events = [d for s in subscribers for d in s.event_ms]
    seat_delays = [d for s in subscribers for d in s.seat_ms]
    commits = sum(recorder.answered.values()) - recorder.answered.get("seat", 0)
    return {
        "tables": tables,
        "subscribers": len(subscribers),
        "seat_subscribers": sum(s.seat is not None for s in subscribers),
        "period_s": period,
        "driven_s": driven,
        "exchanges": exchanges[0],
        "commits": commits,
        "commits_per_s": commits / driven if driven else 0.0,
        "deliveries": len(events),
        "events": sum(len(v) for v in seen.values()),
        "missed": missed,
        "event_ms": measures.latency_summary(events),
        "seat_ms": measures.latency_summary(seat_delays),
        "all_ms": measures.latency_summary(events + seat_delays),
        "statuses": {k: {str(s): n for s, n in c.items()} for k, c in recorder.statuses.items()},
        "notes": dict(recorder.notes),
    }


def delivery(
    base: str,
    tables: int,
    per_table: int,
    duration: float,
    period: float = 0.5,
    drain: float = 1.0,
) -> dict[str, Any]:
    """Figure 2 (see the module docstring) against the instance at ``base``:
    delays in ms (``event_ms``, ``seat_ms``, ``all_ms``: p50/p95/p99, n)."""
    raise_fd_limit(tables * per_table + 256)
    return asyncio.run(_delivery(base, tables, per_table, duration, period, drain))


def measure(
    redis_url: str,
    rclient: redis.Redis,
    folder: Path,
    env: dict[str, str],
    *,
    idle_subscribers: int,
    idle_tables: int,
    tables: int,
    per_table: int,
    duration: float,
    period: float = 0.5,
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Both figures, each on an instance of its own (started and stopped
    here, on the Redis at ``redis_url``; ``env`` the rest of its environment)."""
    raise_fd_limit(max(idle_subscribers, tables * per_table) + 256)
    folder.mkdir(parents=True, exist_ok=True)
    base_env = {**env, "REDIS_URL": redis_url}
    one = Gunicorn(
        "service.wsgi:app",
        {**base_env, **stream_env(idle_subscribers + WARM_STREAMS, 1)},
        folder / "streams-idle.log",
        "/readyz",
    ).start()
    try:
        (pid,) = one.workers()
        log(f"streams: {idle_subscribers} idle subscribers on one worker…")
        idle_figures = idle(one.base, pid, rclient, idle_subscribers, idle_tables)
    finally:
        one.stop()
    subscribers = tables * per_table
    two = Gunicorn(
        "service.wsgi:app",
        {**base_env, **stream_env(subscribers, 2)},
        folder / "streams-delivery.log",
        "/readyz",
    ).start()
    try:
        log(f"streams: delivery to {subscribers} subscribers of {tables} busy tables…")
        delivered = delivery(two.base, tables, per_table, duration, period)
    finally:
        two.stop()
    return {"idle": idle_figures, "delivery": delivered}


def run_alone(prefix: str, section: Callable[..., dict[str, Any]], **sizes: Any) -> None:
    """Run a bench section alone: ``section(redis_url, rclient, folder,
    env, log=…, **sizes)`` on a Redis of its own in a temporary folder,
    with the bench's environment (``redis_cost.ONE_ADDRESS_ENV``); its
    figures as JSON on stdout, its progress on stderr."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        server = RedisServer(Path(tmp) / "redis").start()
        try:
            from .redis_cost import ONE_ADDRESS_ENV

            found = section(
                server.url,
                server.client(),
                Path(tmp),
                gunicorn_env(ONE_ADDRESS_ENV),
                log=lambda m: print(m, file=sys.stderr, flush=True),
                **sizes,
            )
        finally:
            server.stop()
    json.dump(found, sys.stdout, indent=1)
    print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 subscribers, 3 s of moves")
    args = parser.parse_args(argv)
    run_alone("referee-streams-", measure, **(QUICK if args.quick else FULL))


FULL: dict[str, Any] = {
    "idle_subscribers": 1000,
    "idle_tables": 100,
    "tables": 10,
    "per_table": 10,
    "duration": 10.0,
}
QUICK: dict[str, Any] = {
    "idle_subscribers": 200,
    "idle_tables": 20,
    "tables": 5,
    "per_table": 8,
    "duration": 3.0,
}


if __name__ == "__main__":
    main()
