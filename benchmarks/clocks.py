"""Clocks and bots through real ``referee worker`` processes (issue 19).

- **Deadlines**: ``tables`` Sevens tables of four people, each dealt with a
  turn clock set so that the first deadlines fall due within the same
  second, spread evenly over it (table ``i`` at ``i/tables`` of it: a
  thousand deadlines a second); nobody moves. Two worker processes make
  each default move. Lateness is the ``move-timed-out`` event's ``at_ms``
  less the deadline the table's view showed (``until_ms``), both by Redis's
  clock; every deadline must fire exactly once (one ``move-timed-out`` for
  step ``r1t1`` per table). Then the same with every deadline at one
  instant (a burst: as many as the tables can be made to share; the spread
  achieved is reported), the harshest shape of "within one second".
- **A worker SIGKILLed** (issue 41): the deadlines of ``tables`` tables
  fall due over one second, and one of the two workers is SIGKILLed in the
  middle of it, holding whatever it held (buckets claimed and not yet sent,
  jobs fetched and not yet run): the lateness of every deadline due from
  the kill on, which the other worker fires (RULES.md 5.3: within 10 s).
- **Bots only**: ``bot_tables`` Sevens tables of four ``basic`` bots at
  ``bot_delay_ms: 0``, one round each, dealt at once: the moves/s the two
  workers make, and the CPU (the workers' and Redis's; gunicorn only deals
  and answers the bench's seldom polls) per move, beside a Sevens turn made
  by people through the API (``versus.games``' figure).
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import requests

from .measures import Target, percentile
from .processes import Gunicorn, process_cpu_seconds, redis_cpu_seconds

LATENESS_P99_MS = 250.0
"""Issue 19's goal: a default move at most this late at p99, on this machine."""
KILLED_LATENESS_P99_MS = 10_000.0
"""Issue 41's goal: after a worker's SIGKILL, a default move at most this late at p99."""
WORKERS = 2
CLIENTS = 16


class Workers:
    """``count`` ``referee worker`` processes on ``redis_url``, logs in ``folder``."""

    def __init__(self, redis_url: str, folder: Path, count: int = WORKERS, **extra: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        # The bench's own tables all come from one address: the throughput
        # figures measure the workers, not the creator's budget of referee
        # moves (RULES.md 5.4), which benchmarks/bot_quota.py measures.
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "WORKER_THREADS": "4",
            "RATE_LIMIT_REFEREE_MOVES": "1000000/second",
            **extra,
        }
        self.logs = [open(folder / f"worker{i}.log", "ab") for i in range(count)]  # noqa: SIM115
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"],
                env={**env, "WORKER_HEALTH_FILE": str(folder / f"worker{i}.alive")},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            for i, log in enumerate(self.logs)
        ]
        self.health = [folder / f"worker{i}.alive" for i in range(count)]

    def wait_ready(self, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while not all(h.exists() for h in self.health):
            if time.monotonic() > end:
                raise RuntimeError("the workers did not subscribe")
            time.sleep(0.05)

    def cpu_seconds(self) -> float:
        return sum(process_cpu_seconds(p.pid) for p in self.procs)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait(30)
        for log in self.logs:
            log.close()


def _create_and_deal(base: str, body: dict[str, Any]) -> dict[str, Any]:
    created = requests.post(f"{base}/v1/tables", json=body, timeout=30).json()
    host = {"Authorization": f"Bearer {created['host_token']}"}
    dealt = requests.post(
        f"{base}/v1/tables/{created['table_id']}/rounds", headers=host, timeout=30
    )
    dealt.raise_for_status()
    return dict(created)


def _events(base: str, table_id: str) -> list[dict[str, Any]]:
    answer = requests.get(f"{base}/v1/tables/{table_id}/events?limit=500", timeout=30)
    if answer.status_code != 200:
        raise RuntimeError(f"events of {table_id}: {answer.status_code} {answer.text[:300]}")
    return list(answer.json()["events"])


SECOND_MS = 1000
"""The second the deadlines fall due within."""


def deadlines(
    base: str,
    rclient: redis.Redis,
    tables: int,
    lead_s: float,
    spread_ms: int = SECOND_MS,
    cpu: Callable[[], tuple[float, float]] = lambda: (0.0, 0.0),
    settle_s: float = 3.0,
    kill: tuple[int, Callable[[], None]] | None = None,
) -> dict[str, Any]:
    """The deadline figures of the module docstring: the first falls due
    ``lead_s`` seconds after the first table is created, the others evenly
    over the ``spread_ms`` after it (0: all at that instant); ``cpu()`` is
    the CPU seconds the workers and Redis used so far, read once the tables
    are made and once their deadlines are ``settle_s`` past, as a pair:
    the workers', Redis's. With ``kill`` (ms after the first deadline, and
    what to do then), the lateness of the deadlines due from then on is
    also given (``after_kill_ms``)."""

    def server_ms() -> int:
        seconds, micros = rclient.time()
        return int(seconds) * 1000 + int(micros) // 1000

    target_ms = server_ms() + int(lead_s * 1000)

    def one(i: int) -> tuple[str, int]:
        # The clock starts at the deal: a timeout that ends it at the target.
        due_ms = target_ms + spread_ms * i // tables
        timeout = max(100, due_ms - server_ms())
        body = {
            "variant": "sevens",
            "players": ["A", "B", "C", "D"],
            "first_dealer": 0,
            # An away seat's next deadline in an hour: one default move a table.
            "options": {
                "match": {"deals": 1},
                "turn_timeout_ms": timeout,
                "away_timeout_ms": 3_600_000,
            },
        }
        created = _create_and_deal(base, body)
        view = requests.get(f"{base}/v1/tables/{created['table_id']}", timeout=30).json()
        due = [s["until_ms"] for s in view["seats"] if s["until_ms"] is not None]
        return created["table_id"], int(due[0])

    with ThreadPoolExecutor(CLIENTS) as pool:
        made = list(pool.map(one, range(tables)))
    spread = max(d for _, d in made) - min(d for _, d in made)
    created_by = server_ms()
    wait_until = max(d for _, d in made) + int(settle_s * 1000)
    samples: list[tuple[int, tuple[float, float]]] = []  # (Redis's clock, CPU) every 50 ms
    killed_at: int | None = None
    first_due = min(d for _, d in made)
    # Half-way through the deadlines as made: a busy machine that made the
    # tables late packed them closer than ``spread_ms`` (all before the kill).
    kill_after = 0 if kill is None else min(kill[0], spread // 2)
    while (now := server_ms()) < wait_until:
        if kill is not None and killed_at is None and now >= first_due + kill_after:
            kill[1]()
            killed_at = server_ms()
        samples.append((now, cpu()))
        time.sleep(0.05)

    def fired(item: tuple[str, int]) -> list[int]:
        table_id, due = item
        return [
            int(e["at_ms"]) - due
            for e in _events(base, table_id)
            if e["type"] == "move-timed-out" and e["step"] == "r1t1"
        ]

    with ThreadPoolExecutor(CLIENTS) as pool:
        found = list(pool.map(fired, made))
    late = sorted(x[0] for x in found if x)
    # The CPU from the sample before the first deadline to the one after the
    # last default move: the moves, the workers' notes and buckets, Redis's
    # share (and the little the idle parts of both cost meanwhile).
    last_move = (
        max(due + x[-1] for (_, due), x in zip(made, found, strict=True) if x) if late else 0
    )
    start = max((s for s in samples if s[0] <= first_due), default=samples[0])
    end = min((s for s in samples if s[0] >= last_move), default=samples[-1])
    moves = max(1, sum(len(x) for x in found))
    workers_cpu, redis_cpu = (end[1][i] - start[1][i] for i in (0, 1))
    after_kill: dict[str, Any] = {}
    if killed_at is not None:
        due_after = [
            (x[0] if x else math.inf)
            for (_, due), x in zip(made, found, strict=True)
            if due >= killed_at
        ]
        due_after.sort()
        after_kill = {
            "killed_after_first_due_ms": killed_at - first_due,
            "tables": len(due_after),
            "not_fired": sum(1 for x in due_after if x == math.inf),
            "p50": percentile(due_after, 50) if due_after else float("nan"),
            "p99": percentile(due_after, 99) if due_after else float("nan"),
            "max": float(due_after[-1]) if due_after else float("nan"),
        }
    return {
        "after_kill_ms": after_kill,
        "tables": tables,
        "deadline_spread_ms": spread,
        "all_made_before_target": created_by <= min(d for _, d in made),
        "fired_once": sum(1 for x in found if len(x) == 1),
        "fired_twice_or_more": sum(1 for x in found if len(x) > 1),
        "not_fired": sum(1 for x in found if not x),
        "cpu_ms_per_move": 1000 * (workers_cpu + redis_cpu) / moves,
        "redis_cpu_ms_per_move": 1000 * redis_cpu / moves,
        "cpu_window_ms": end[0] - start[0],
        "lateness_ms": {
            "p50": percentile(late, 50) if late else float("nan"),
            "p99": percentile(late, 99) if late else float("nan"),
            "max": float(late[-1]) if late else float("nan"),
        },
    }


def bots_only(
    base: str,
    service: Gunicorn,
    rclient: redis.Redis,
    workers: Workers,
    tables: int,
    timeout_s: float = 300.0,
) -> dict[str, Any]:
    """The bots-only figures of the module docstring."""
    body: dict[str, Any] = {
        "variant": "sevens",
        "players": [{"bot": "basic"}] * 4,
        "first_dealer": 0,
        "options": {"match": {"deals": 1}, "bot_delay_ms": 0},
    }
    made: list[str] = []
    with ThreadPoolExecutor(CLIENTS) as pool:
        # Created first, dealt together: every table's bots start at once.
        created = list(
            pool.map(
                lambda _: requests.post(f"{base}/v1/tables", json=body, timeout=30).json(),
                range(tables),
            )
        )
    cpu0 = (workers.cpu_seconds(), service.cpu_seconds(), redis_cpu_seconds(rclient))
    started = time.perf_counter()

    def deal(c: dict[str, Any]) -> None:
        host = {"Authorization": f"Bearer {c['host_token']}"}
        requests.post(f"{base}/v1/tables/{c['table_id']}/rounds", headers=host, timeout=30)
        made.append(c["table_id"])

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(deal, created))

    def over(table_id: str) -> bool:
        view = requests.get(f"{base}/v1/tables/{table_id}", timeout=30).json()
        return bool(view["match"]["status"] != "in-progress")

    pending = list(made)
    while pending and time.perf_counter() - started < timeout_s:
        with ThreadPoolExecutor(CLIENTS) as pool:
            still = [
                t for t, done in zip(pending, pool.map(over, pending), strict=True) if not done
            ]
        pending = still
        if pending:
            time.sleep(0.5)  # seldom: the polls' CPU is counted apart
    elapsed = time.perf_counter() - started
    worker_cpu = workers.cpu_seconds() - cpu0[0]
    service_cpu = service.cpu_seconds() - cpu0[1]
    redis_cpu = redis_cpu_seconds(rclient) - cpu0[2]

    def recorded(table_id: str) -> int:
        # The log keeps the newest events only; the round's record every move.
        answer = requests.get(f"{base}/v1/tables/{table_id}/rounds/1/record", timeout=30)
        return len(answer.json()["moves"]) if answer.status_code == 200 else 0

    with ThreadPoolExecutor(CLIENTS) as pool:
        counts = list(pool.map(recorded, made))
    moves = sum(counts)
    return {
        "tables": tables,
        "finished": tables - len(pending),
        "moves": moves,
        "seconds": elapsed,
        "moves_per_s": moves / elapsed if elapsed else float("nan"),
        "cpu_ms_per_move": 1000 * (worker_cpu + redis_cpu) / moves if moves else float("nan"),
        "worker_cpu_ms_per_move": 1000 * worker_cpu / moves if moves else float("nan"),
        "redis_cpu_ms_per_move": 1000 * redis_cpu / moves if moves else float("nan"),
        "gunicorn_cpu_s": service_cpu,
        "moves_per_table_median": statistics.median(counts) if counts else 0,
    }


def measure(
    redis_url: str,
    service: Gunicorn,
    rclient: redis.Redis,
    folder: Path,
    tables: int,
    bot_tables: int,
    log: Callable[[str], None],
    lead_s: float | None = None,
    settle_s: float = 3.0,
) -> dict[str, Any]:
    """Both parts, with two worker processes on the bench's Redis; the
    deadlines fall due ``lead_s`` after the first table is made (by default
    time enough to make them all), and are read ``settle_s`` after the last."""
    workers = Workers(redis_url, folder)
    try:
        workers.wait_ready()
        lead = lead_s if lead_s is not None else max(10.0, tables / 60)
        log(f"clocks: {tables} tables whose deadlines fall due over one second, 2 workers…")

        def cpu() -> tuple[float, float]:
            return workers.cpu_seconds(), redis_cpu_seconds(rclient)

        late = deadlines(service.base, rclient, tables, lead, cpu=cpu, settle_s=settle_s)
        log(f"clocks: {tables} tables whose deadlines fall due at one instant…")
        burst = deadlines(
            service.base, rclient, tables, lead, spread_ms=0, cpu=cpu, settle_s=settle_s
        )
        log(f"bots: {bot_tables} tables of 4 basic bots at bot_delay_ms 0…")
        bots = bots_only(service.base, service, rclient, workers, bot_tables)
    finally:
        workers.stop()
    killed = killed_worker(redis_url, service.base, rclient, folder / "killed", tables, lead, log)
    return {"deadlines": late, "burst": burst, "bots": bots, "killed": killed}


def killed_worker(
    redis_url: str,
    base: str,
    rclient: redis.Redis,
    folder: Path,
    tables: int,
    lead_s: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The module docstring's SIGKILLed worker: two new workers, ``tables``
    deadlines over one second, the first worker SIGKILLed half-way through."""
    workers = Workers(redis_url, folder)
    try:
        workers.wait_ready()
        log(f"clocks: {tables} deadlines over one second, one of 2 workers SIGKILLed in it…")

        def kill() -> None:
            workers.procs[0].kill()

        found = deadlines(base, rclient, tables, lead_s, kill=(SECOND_MS // 2, kill), settle_s=15)
    finally:
        workers.stop()
    return found


def rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's rows: figure, value."""
    found = figures.get("clocks")
    if not found:
        return []
    late, bots = found["deadlines"], found["bots"]
    burst = found.get("burst")
    people = (figures.get("other_games") or {}).get("sevens", {})
    out = [
        ("tables, deadlines due over", f"{late['tables']}, {late['deadline_spread_ms']} ms"),
        (
            "fired once / twice or more / not",
            f"{late['fired_once']} / {late['fired_twice_or_more']} / {late['not_fired']}",
        ),
        ("default move lateness p50", f"{late['lateness_ms']['p50']:.0f} ms"),
        ("default move lateness p99", f"{late['lateness_ms']['p99']:.0f} ms"),
    ]
    if burst:
        out += [
            (
                "burst: tables, deadlines due within",
                f"{burst['tables']}, {burst['deadline_spread_ms']} ms",
            ),  # fmt: skip
            (
                "burst: fired once / twice or more / not",
                f"{burst['fired_once']} / {burst['fired_twice_or_more']} / {burst['not_fired']}",
            ),
            ("burst: default move lateness p50", f"{burst['lateness_ms']['p50']:.0f} ms"),
            ("burst: default move lateness p99", f"{burst['lateness_ms']['p99']:.0f} ms"),
        ]
    for name, phase in (("", late), ("burst: ", burst or {})):
        if "cpu_ms_per_move" in phase:
            out.append(
                (
                    f"{name}CPU per default move, workers + Redis "
                    f"(over the {phase['cpu_window_ms']} ms of the moves)",
                    f"{phase['cpu_ms_per_move']:.2f} ms "
                    f"(Redis {phase['redis_cpu_ms_per_move']:.2f})",
                )
            )
    out += [
        ("bots only: tables finished", f"{bots['finished']} of {bots['tables']}"),
        ("bots only: moves/s (2 workers)", f"{bots['moves_per_s']:.0f}"),
        (
            "bots only: CPU per move (workers + Redis)",
            f"{bots['cpu_ms_per_move']:.2f} ms "
            f"({bots['worker_cpu_ms_per_move']:.2f} + {bots['redis_cpu_ms_per_move']:.2f})",
        ),
    ]
    if people:
        out.append(("people: Sevens turns/s through the API", str(people)))
    killed = (found.get("killed") or {}).get("after_kill_ms")
    if killed:
        out += [
            (
                "a worker SIGKILLed: deadlines due after it, not fired",
                f"{killed['tables']}, {killed['not_fired']}",
            ),
            ("a worker SIGKILLed: default move lateness p50", f"{killed['p50']:.0f} ms"),
            ("a worker SIGKILLed: default move lateness p99", f"{killed['p99']:.0f} ms"),
        ]
    return out


def targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 19's targets; none for a run without the clocks."""
    found = figures.get("clocks")
    if not found:
        return []
    late = found["deadlines"]
    return [
        Target(
            "default move lateness after its deadline (p99, 1000 due within a second)",
            late["lateness_ms"]["p99"],
            LATENESS_P99_MS,
            True,
            " ms",
            "two worker processes",
        ),
        Target(
            "deadlines not fired exactly once",
            float(late["fired_twice_or_more"] + late["not_fired"]),
            0,
            True,
            "",
        ),
        *_killed_targets(found),
    ]


def _killed_targets(found: dict[str, Any]) -> list[Target]:
    killed = (found.get("killed") or {}).get("after_kill_ms")
    if not killed:
        return []
    return [
        Target(
            "deadline lateness after a worker SIGKILL (p99, the deadlines due after it)",
            killed["p99"],
            KILLED_LATENESS_P99_MS,
            True,
            " ms",
            "one of two workers killed",
        )
    ]


def main() -> None:  # pragma: no cover - a person's run
    """``python -m benchmarks.clocks [tables] [bot_tables]``: this part alone,
    on a Redis and a gunicorn of its own; prints the figures."""
    import json
    import tempfile

    from .processes import RedisServer, gunicorn_env
    from .redis_cost import ONE_ADDRESS_ENV

    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    bot_tables = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        server = RedisServer(folder / "redis").start()
        env = gunicorn_env({**ONE_ADDRESS_ENV, "REDIS_URL": server.url})
        service = Gunicorn("service.wsgi:app", env, folder / "service.log", "/readyz").start()
        try:
            found = measure(server.url, service, server.client(), folder, tables, bot_tables, print)
        finally:
            service.stop()
            server.stop()
    print(json.dumps(found, indent=2))
    for name, value in rows({"clocks": found}):
        print(f"{name}: {value}")


if __name__ == "__main__":  # pragma: no cover
    main()
