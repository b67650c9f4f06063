"""The load generator: an asyncio HTTP client (aiohttp) that plays many tables
of the referee at once, or hammers the floor, with the same number of
requests in flight. Run in its own process, it prints its figures as JSON::

    python -m benchmarks.load service http://127.0.0.1:8001 --concurrency 16 --duration 10
    python -m benchmarks.load floor http://127.0.0.1:8002 --concurrency 16 --duration 10
    python -m benchmarks.load move http://127.0.0.1:8002 --concurrency 16 --duration 10

**Service**: ``--tables`` tables play at once. Each is created with 4 to 7
seats (seeded random mix; ``classic``, see :func:`benchmarks.players.table_body`),
plays a 5-deal match and is replaced by a new one. A round: the host deals
(``POST …/rounds``), every seat reads its hand (``GET …/seats/{seat}``), then
for each exchange every seat puts its pass at the same moment (``PUT
…/passes/{seat}``, all seats of the table concurrently, so they race for the
table's version), the client computes the new hands, reads the public view
(``GET /v1/tables/{id}``, what a front end polls) and, when a hand wins, that
seat claims (``POST …/claims``). The pass answer's ``hand`` is checked
against the client's own bookkeeping.

**Floor**: ``--concurrency`` loops, each ``GET /floor`` again and again.

**Move** (the minimal-move floor): ``--concurrency`` loops, each ``PUT
/floor/move/{loop}`` (its own slot, as each table has its own key) with a
pass's body, again and again.

A semaphore keeps exactly ``--concurrency`` requests in flight (the service
has more work waiting than that: 7 seats per table). Latency is the time
from sending a request to reading its whole answer, per kind of request,
for requests started after ``--warmup`` seconds; throughput counts the
requests with a 2xx answer started in the measured window. The client's own
CPU time is reported: on a small machine it competes with the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from .players import after_exchange, choose_cards, table_body, winners


@dataclass
class Recorder:
    """Latencies (ms) and status counts per kind of request, for the requests
    started inside the window [``start``, ``end``)."""

    start: float
    end: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    notes: Counter[str] = field(default_factory=Counter)
    # 2xx answers of the whole run, warm-up included (for costs per request).
    answered: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, started: float, elapsed: float, status: int) -> None:
        if 200 <= status < 300:
            self.answered[kind] += 1
        if self.start <= started < self.end:
            self.statuses[kind][status] += 1
            if 200 <= status < 300:
                self.latencies[kind].append(elapsed * 1000.0)

    def over(self) -> bool:
        return time.perf_counter() >= self.end


async def send(
    session: aiohttp.ClientSession, method: str, url: str, token: str | None, body: Any
) -> tuple[int, Any]:
    """One request (``body`` as JSON, ``token`` as the bearer), read whole:
    ``(status, decoded JSON body or None)``. Raises ``TimeoutError`` or
    ``aiohttp.ClientError``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    async with session.request(method, url, data=data, headers=headers) as response:
        raw = await response.read()
        return response.status, (json.loads(raw) if raw else None)


async def pass_at_once(
    client: Client,
    table: str,
    round_no: int,
    exchange: int,
    tokens: list[str],
    passed: list[Any],
    sent: float | None = None,
) -> list[tuple[int, Any]]:
    """Every seat's pass of ``exchange`` (``passed[seat]``), all sent at the
    same moment; their ``(status, answer)`` in seat order. ``sent`` (a
    ``perf_counter`` reading) is the moment that puts them all in or out of
    the measured window, as the caller counts the exchange (default: now)."""
    at = time.perf_counter() if sent is None else sent
    return await asyncio.gather(
        *(
            client.call(
                "pass",
                "PUT",
                f"{table}/rounds/{round_no}/exchanges/{exchange}/passes/{s}",
                t,
                {"cards": passed[s]},
                window_at=at,
            )
            for s, t in enumerate(tokens)
        )
    )


class Client:
    """One aiohttp session, a semaphore of ``concurrency`` requests in flight."""

    def __init__(self, base: str, concurrency: int, recorder: Recorder) -> None:
        self.base = base
        self.semaphore = asyncio.Semaphore(concurrency)
        self.recorder = recorder
        connector = aiohttp.TCPConnector(limit=concurrency, ttl_dns_cache=None)
        self.session = aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=60)
        )

    async def call(
        self,
        kind: str,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        window_at: float | None = None,
    ) -> tuple[int, Any]:
        """One request, recorded in the window by its start (or ``window_at``)."""
        async with self.semaphore:
            started = time.perf_counter()
            try:
                status, answer = await send(self.session, method, self.base + path, token, body)
            except (TimeoutError, aiohttp.ClientError) as error:
                self.recorder.notes[f"{kind}: {type(error).__name__}"] += 1
                return 0, None
            elapsed = time.perf_counter() - started
        self.recorder.add(kind, started if window_at is None else window_at, elapsed, status)
        return status, answer

    async def close(self) -> None:
        await self.session.close()


async def play_tables(client: Client, rng: random.Random, rounds: int) -> None:
    """One table after another until the window ends (see the module docstring)."""
    rec = client.recorder
    while not rec.over():
        seats = rng.randint(4, 7)
        status, created = await client.call(
            "create", "POST", "/v1/tables", None, table_body(seats, rounds)
        )
        if status != 201:
            rec.notes[f"create answered {status}"] += 1
            await asyncio.sleep(0.05)
            continue
        table = f"/v1/tables/{created['table_id']}"
        host = created["host_token"]
        tokens = [s["token"] for s in created["seat_tokens"]]
        options = created["table"]["options"]
        for _ in range(rounds):
            if rec.over() or not await play_round(client, rng, table, host, tokens, options):
                break
        rec.notes["tables played"] += 1


async def play_round(
    client: Client,
    rng: random.Random,
    table: str,
    host: str,
    tokens: list[str],
    options: dict[str, Any],
) -> bool:
    """Deal and play one round; False when the table cannot go on."""
    rec = client.recorder
    status, dealt = await client.call("deal", "POST", f"{table}/rounds", host)
    if status != 201:
        rec.notes[f"deal answered {status}"] += 1
        return False
    number = dealt["round"]
    direction = dealt["table"]["round"]["direction"]
    views = await asyncio.gather(
        *(client.call("seat", "GET", f"{table}/seats/{s}", t) for s, t in enumerate(tokens))
    )
    if any(status != 200 for status, _ in views):
        rec.notes["seat view failed"] += 1
        return False
    hands = [view["hand"] for _, view in views]
    exchange = 1
    while not rec.over():
        passed = [choose_cards(h, options["pass_count"]) for h in hands]
        answers = await pass_at_once(client, table, number, exchange, tokens, passed)
        if any(status != 200 for status, _ in answers):
            rec.notes["pass refused: table abandoned"] += 1
            return False
        last = [a for _, a in answers if a["resolved"]]
        if len(last) != 1:
            rec.notes["exchange did not resolve once"] += 1
            return False
        hands = after_exchange(hands, passed, direction)
        if sorted(last[0]["hand"]) != sorted(hands[last[0]["seat"]]):
            rec.notes["hand bookkeeping differs from the referee"] += 1
            return False
        rec.notes["exchanges"] += 1
        if last[0]["round_status"] != "passing":
            rec.notes["rounds void"] += 1
            return True
        await client.call("view", "GET", table)
        ready = winners(hands, options["win_count"])
        if ready:
            seat = rng.choice(ready)
            status, _ = await client.call(
                "claim", "POST", f"{table}/rounds/{number}/claims", tokens[seat]
            )
            rec.notes["rounds won" if status == 200 else f"claim answered {status}"] += 1
            return status == 200
        exchange += 1
    return True


async def hammer_floor(client: Client) -> None:
    """``GET /floor`` again and again until the window ends."""
    while not client.recorder.over():
        await client.call("floor", "GET", "/floor")


async def hammer_move(client: Client, slot: int) -> None:
    """``PUT /floor/move/{slot}`` again and again until the window ends."""
    while not client.recorder.over():
        await client.call("move", "PUT", f"/floor/move/{slot}", None, {"cards": ["AH"]})


async def run(
    target: str,
    base: str,
    concurrency: int,
    duration: float,
    warmup: float,
    tables: int,
    rounds: int,
    seed: int,
) -> dict[str, Any]:
    """Drive ``target`` (``service``, ``floor`` or ``move``) for ``warmup + duration`` s."""
    now = time.perf_counter()
    recorder = Recorder(now + warmup, now + warmup + duration)
    client = Client(base, concurrency, recorder)
    rng = random.Random(seed)
    try:
        if target == "service":
            tasks = [
                play_tables(client, random.Random(rng.random()), rounds) for _ in range(tables)
            ]
        elif target == "move":
            tasks = [hammer_move(client, slot) for slot in range(concurrency)]
        else:
            tasks = [hammer_floor(client) for _ in range(concurrency)]
        await asyncio.gather(*tasks)
    finally:
        await client.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "target": target,
        "concurrency": concurrency,
        "tables": tables if target == "service" else None,
        "window_s": duration,
        "latencies_ms": dict(recorder.latencies),
        "statuses": {k: {str(s): n for s, n in c.items()} for k, c in recorder.statuses.items()},
        "notes": dict(recorder.notes),
        "answered_whole_run": dict(recorder.answered),
        "client_cpu_s": usage.ru_utime + usage.ru_stime,
        "client_wall_s": time.perf_counter() - now,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=["service", "floor", "move"])
    parser.add_argument("base", help="the app's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5, help="deals per table's match")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    result = asyncio.run(
        run(
            args.target,
            args.base.rstrip("/"),
            args.concurrency,
            args.duration,
            args.warmup,
            args.tables,
            args.rounds,
            args.seed,
        )
    )
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
