"""One address holding connections with slow request bodies (issue 39, H1):
the instance must still answer ``/readyz`` from another address, at a p99
no worse than twice its quiet p99, and never leave one unanswered.

An instance of two gevent workers with its default settings and no proxy in
front (``TRUSTED_PROXIES`` unset: the caps of ``service/workers.py`` apply)
is asked ``/readyz`` from 127.0.0.2 every ``period`` s, first quietly for
``seconds``, then for as long while an attacker at 127.0.0.1 opens
:data:`RATE` connections a second, each announcing a 60,000-byte body and
sending one byte of it every 2 s (issue 39's attack: ~2,000 connections
held, and ``/readyz`` went unanswered). Figures: the readiness checks'
latency (p50, p99) in both phases and those not answered 200 within 3 s,
the most connections the attacker held at once, and the answers it got by
status (``make bench`` sets the p99 ratio against 2, and the unanswered
against 0: ``benchmarks/report.py``). Run alone (its own Redis and gunicorn, JSON on stdout)::

    python -m benchmarks.slow_bodies [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .processes import Gunicorn
from .streams import raise_fd_limit, run_alone

RATE = 50.0
"""Slow-body connections the attacker opens a second (issue 39's H1)."""
HEAD = (
    b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 60000\r\n\r\n"
)
PROBE = b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
PROBE_TIMEOUT = 3.0
ANSWER_GRACE = 2.0
"""How long past its phase an attacker's connection still waits for its
answer (one byte's interval): a busy machine's workers accept and refuse
(429) the connections of the phase's last second after it ended; counted
"held to the end" they hid the refusals (10 of 35 in a busy test run)."""


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 2)


async def _probe(port: int, ms: list[float], failed: Counter[str]) -> None:
    began = time.perf_counter()
    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=("127.0.0.2", 0)
            )
            writer.write(PROBE)
            answer = await reader.read()
            writer.close()
        status = answer.split(b" ", 2)[1].decode() if answer else "closed"
    except (TimeoutError, OSError) as error:
        status = type(error).__name__
    if status == "200":
        ms.append((time.perf_counter() - began) * 1000)
    else:
        failed[status] += 1


async def _answered(reader: asyncio.StreamReader, answers: Counter[str], seconds: float) -> bool:
    """Whether the server answered within ``seconds`` (its status counted)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            answer = await reader.read(65536)
            answers[answer.split(b" ", 2)[1].decode() if answer else "closed"] += 1
            return True
    return False


async def _slow_body(port: int, held: list[int], answers: Counter[str], ends: float) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as error:
        answers[type(error).__name__] += 1
        return
    held[0] += 1
    held[1] = max(held[1], held[0])
    try:
        writer.write(HEAD)
        while time.monotonic() < ends:
            if await _answered(reader, answers, 2.0):
                return
            writer.write(b"{")  # one byte every 2 s
        if not await _answered(reader, answers, ANSWER_GRACE):
            answers["held to the end"] += 1
    except OSError as error:
        answers[type(error).__name__] += 1
    finally:
        held[0] -= 1
        writer.close()


async def _phase(port: int, seconds: float, period: float, flood: bool) -> dict[str, Any]:
    ms: list[float] = []
    failed: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    held = [0, 0]  # now, most at once
    ends = time.monotonic() + seconds
    tasks = []
    next_probe = next_open = time.monotonic()
    while (now := time.monotonic()) < ends:
        if now >= next_probe:
            tasks.append(asyncio.create_task(_probe(port, ms, failed)))
            next_probe += period
        if flood and now >= next_open:
            tasks.append(asyncio.create_task(_slow_body(port, held, answers, ends)))
            next_open += 1 / RATE
        await asyncio.sleep(max(0.0, min(next_probe, next_open if flood else ends) - now))
    await asyncio.gather(*tasks)
    figures: dict[str, Any] = {
        "readyz_p50_ms": percentile(ms, 0.5),
        "readyz_p99_ms": percentile(ms, 0.99),
        "readyz_answered": len(ms),
        "readyz_not_answered": dict(failed),
    }
    if flood:
        figures["attacker_held_at_most"] = held[1]
        figures["attacker_answers"] = dict(answers)
    return figures


def measure(
    redis_url: str,
    rclient: Any,
    folder: Path,
    env: dict[str, str],
    *,
    seconds: float,
    period: float = 0.1,
    connections_per_address: int | None = None,
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """The figures (see the module docstring) on an instance of its own,
    started and stopped here on the Redis at ``redis_url`` (``rclient``
    unused: the sections' common signature). ``connections_per_address``:
    ``CONNECTIONS_PER_ADDRESS`` (None: the service's default, whatever
    ``env`` says: the bench's one-address settings lift it)."""
    raise_fd_limit(8192)
    folder.mkdir(parents=True, exist_ok=True)
    dropped = ("TRUSTED_PROXIES", "CONNECTIONS_PER_ADDRESS")
    settings = {k: v for k, v in env.items() if k not in dropped}
    if connections_per_address is not None:
        settings["CONNECTIONS_PER_ADDRESS"] = str(connections_per_address)
    settings.update(REDIS_URL=redis_url, WEB_CONCURRENCY="2", GUNICORN_WORKER_CLASS="gevent")
    app = Gunicorn("service.wsgi:app", settings, folder / "slow-bodies.log", "/readyz").start()
    try:
        log(f"slow bodies: {seconds:g} s quiet, then {seconds:g} s with one address flooding…")
        quiet = asyncio.run(_phase(app.port, seconds, period, flood=False))
        flooded = asyncio.run(_phase(app.port, seconds, period, flood=True))
    finally:
        app.stop()
    quiet_p99, p99 = quiet["readyz_p99_ms"], flooded["readyz_p99_ms"]
    ratio = p99 / quiet_p99 if p99 is not None and quiet_p99 else float("inf")
    return {"quiet": quiet, "flood": flooded, "readyz_p99_ratio": round(ratio, 2)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args(argv)
    run_alone("referee-slow-bodies-", measure, seconds=args.seconds)


if __name__ == "__main__":
    main()
