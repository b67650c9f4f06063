"""What a replica-acknowledged move costs (issue 21, ``REDIS_WAIT_REPLICAS``).

The bench's Redis gets a replica (a second ``redis-server`` on this
machine, ``replicaof`` the first), and a second instance of the service runs
beside the bench's own with ``REDIS_WAIT_REPLICAS=1`` (each commit waits for
``WAIT 1``). The same load (:func:`benchmarks.run.load_run`: tables of My
Ship Sails, every seat passing at once) runs against both, alternated
``runs`` times; the figures are medians over the runs: passes/s and a pass's
latency with and without the acknowledgement, and the difference of their
p50 (what the acknowledgement adds to a move; here one loopback round trip
to a replica on the same machine, which also competes for the cores).

Under load on a small shared machine those figures are mostly noise, so
one request at a time too (:func:`sequential`): passes of 7-seat tables
through the app in this process, alternated round by round between an app
with the acknowledgement and one without; a pass's median time with each.
The commit and its ``WAIT`` share one round trip (a pipeline).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from . import redis_cost
from .measures import Target, median
from .processes import Gunicorn, RedisServer

WAIT_ENV = {
    "REDIS_WAIT_REPLICAS": "1",
    "REDIS_WAIT_TIMEOUT_MS": "1000",
    "REDIS_TIMEOUT_SECONDS": "3",
}
"""The acknowledged instance's settings (a timeout long enough never to be met
here, below the connection's, as the settings require)."""

COST_LIMIT_MS = 3.0
"""A pass's p50 with the acknowledgement less without it, at most (one round
trip to a replica on the same machine)."""


def measure(
    primary: RedisServer,
    service: Gunicorn,
    env: dict[str, str],
    folder: Path,
    runs: int,
    run_load: Callable[[Gunicorn], dict[str, Any]],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The figures of the module docstring. ``run_load(app)`` is one load run
    against ``app`` (its summary, as :func:`benchmarks.run.load_run` gives it)."""
    settings = {**primary.settings, "replicaof": f"127.0.0.1 {primary.port}"}
    replica = RedisServer(folder / "replica", settings=settings).start()
    waiting: Gunicorn | None = None
    try:
        link = redis.Redis(port=replica.port)
        while link.info("replication")["master_link_status"] != "up":
            pass
        waiting = Gunicorn(
            "service.wsgi:app", {**env, **WAIT_ENV}, folder / "service-wait.log", "/readyz"
        ).start()
        one_at_a_time = sequential(primary.url)
        log(
            "one pass at a time: {off:.2f} ms as today, {on:.2f} ms acknowledged".format(
                **one_at_a_time
            )
        )
        found: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
        run_load(waiting)  # its warm-up
        for i in range(runs):
            for name, app in (("off", service), ("on", waiting)):
                summary = run_load(app)
                found[name].append(summary)
                log(f"run {i + 1}/{runs} WAIT {name}: {summary['passes_per_s']:.0f} passes/s")
    finally:
        if waiting is not None:
            waiting.stop()
        replica.stop()

    def figures(summaries: list[dict[str, Any]]) -> dict[str, float]:
        return {
            "passes_per_s": median([s["passes_per_s"] for s in summaries]),
            "pass_p50_ms": median([s["latency_ms"]["pass"]["p50"] for s in summaries]),
            "pass_p99_ms": median([s["latency_ms"]["pass"]["p99"] for s in summaries]),
            "cpu_ms_per_request": median([s["cpu_ms_per_request"] for s in summaries]),
        }

    off, on = figures(found["off"]), figures(found["on"])
    return {
        "sequential": one_at_a_time,
        "runs": runs,
        "off": off,
        "on": on,
        "cost_p50_ms": on["pass_p50_ms"] - off["pass_p50_ms"],
        "cost_p99_ms": on["pass_p99_ms"] - off["pass_p99_ms"],
    }


def sequential(url: str, rounds: int = 6, seats: int = 7) -> dict[str, float]:
    """A pass's median time (ms, in this process, one request at a time)
    without (``off``) and with (``on``) ``REDIS_WAIT_REPLICAS=1``, and their
    difference (``cost``), over ``rounds`` rounds of each, alternated."""
    from service import create_app
    from service.config import Settings

    apps = {}
    for name, wait in (("off", 0), ("on", 1)):
        settings = Settings.from_env(
            {**redis_cost.ONE_ADDRESS_ENV, **WAIT_ENV},  # its timeouts, as the instance's
            redis_url=url,
            table_ttl_seconds=3600,
            redis_wait_replicas=wait,
        )
        apps[name] = create_app(settings).test_client()
    times = pass_times(apps, rounds, seats)
    off, on = statistics.median(times["off"]), statistics.median(times["on"])
    return {"off": off, "on": on, "cost": on - off, "passes": float(len(times["on"]))}


def pass_times(apps: dict[str, Any], rounds: int, seats: int) -> dict[str, list[float]]:
    """Each pass's time (ms) through each of ``apps`` (name -> a test
    client), one request at a time, over ``rounds`` rounds of ``seats``
    seats on each, alternated (a first round of each warms up, uncounted)."""
    times: dict[str, list[float]] = {name: [] for name in apps}
    for i in range(rounds + 1):
        for name, client in apps.items():

            def each(kind: str, call: Callable[[], Any], name: str = name, i: int = i) -> Any:
                started = time.perf_counter()
                result = call()
                if kind == "pass" and i:
                    times[name].append(1000 * (time.perf_counter() - started))
                return result

            redis_cost.HttpTable(client, seats, keyed=True).play_round(each)
    return times


def rows(figures: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The report's rows: figure, without the acknowledgement, with it."""
    found = figures.get("replicas")
    if not found:
        return []
    off, on, one = found["off"], found["on"], found["sequential"]
    return [
        ("a pass, one at a time (p50)", f"{one['off']:.2f} ms", f"{one['on']:.2f} ms"),
        ("passes/s", f"{off['passes_per_s']:.0f}", f"{on['passes_per_s']:.0f}"),
        ("pass p50", f"{off['pass_p50_ms']:.1f} ms", f"{on['pass_p50_ms']:.1f} ms"),
        ("pass p99", f"{off['pass_p99_ms']:.1f} ms", f"{on['pass_p99_ms']:.1f} ms"),
        (
            "server CPU per request",
            f"{off['cpu_ms_per_request']:.2f} ms",
            f"{on['cpu_ms_per_request']:.2f} ms",
        ),
    ]


def targets(figures: dict[str, Any]) -> list[Target]:
    """The acknowledgement's target; none for a run without it."""
    found = figures.get("replicas")
    if not found:
        return []
    return [
        Target(
            "a pass, one at a time, with REDIS_WAIT_REPLICAS=1 less without (p50)",
            found["sequential"]["cost"],
            COST_LIMIT_MS,
            True,
            " ms",
            "one replica on this machine",
        )
    ]
