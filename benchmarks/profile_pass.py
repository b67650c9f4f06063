"""Where a pass's time goes: cProfile over pass requests in this process.

    python -m benchmarks.profile_pass [--passes 3000] [--top 30]

Starts a private Redis, plays 7-seat tables through the service's WSGI app
(one request at a time, so no contention) and profiles only the pass
requests. It prints the time per pass inside ``Flask.wsgi_app`` (what
gunicorn calls; the test client's own work is outside it), the cumulative
time per pass of the layers of the pass path, and the top functions by own
time. cProfile slows Python code down (Redis waits much less), so read the
shares, not the absolute times. For a profile of a gunicorn worker under
load, run ``py-spy record --gil --subprocesses --pid <master>`` during
``python -m benchmarks``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .processes import RedisServer
from .redis_cost import HttpTable, in_process_app

# (label, file suffix, function name): the layers of a pass, in request order.
LAYERS = [
    ("the whole request in the app (Flask.wsgi_app)", "flask/app.py", "wsgi_app"),
    ("  rate limit (our hook, the limits library)", "service/edge/limits.py", "check"),
    ("    its round trip: counter + table read", "service/edge/limits.py", "_send"),
    ("  body parsing and validation (BodyParser.parse)", "service/edge/common.py", "parse"),
    ("  the view (Pass.put)", "service/resources/ship/endpoints.py", "put"),
    ("    TableStore.apply", "service/storage/store.py", "apply"),
    (
        "      TableStore.load (decode, fold; read with the limit)",
        "service/storage/store.py",
        "load",
    ),
    ("        codec.decode (state JSON → Table)", "service/games/ship/codec.py", "decode"),
    ("        json.loads", "json/__init__.py", "loads"),
    ("      the move: auth + engine", "service/resources/ship/endpoints.py", "move"),
    ("        auth.require_seat (sha256, compare)", "service/edge/auth.py", "require_seat"),
    ("        engine.choose_pass", "service/games/ship/engine.py", "choose_pass"),
    ("      TableStore._write_choice (choose.lua)", "service/storage/store.py", "_write_choice"),
    (
        "      TableStore._write (a resolution: encode, commit.lua)",
        "service/storage/store.py",
        "_write",
    ),
    ("        codec.encode (Table → state JSON)", "service/games/ship/codec.py", "encode"),
    ("        Script.__call__ (EVALSHA round trip)", "redis/commands/core.py", "__call__"),
    ("    Metrics.committed (active-table marks, counters)", "service/metrics.py", "committed"),
    ("  answer serialisation (fast_dumping's dump)", "service/edge/common.py", "dump"),
    ("  metrics timer (after_request)", "service/metrics.py", "_observe"),
    ("Redis: socket reads (waiting for answers)", "redis/_parsers/socket.py", "_read_from_socket"),
    ("Redis: socket writes", "redis/connection.py", "send_packed_command"),
]


def profile_passes(url: str, passes: int) -> tuple[pstats.Stats, int, float]:
    """Profile ``passes`` (about) uncontended passes; the stats, the number of
    passes and the wall time they took unprofiled-equivalent."""
    app = in_process_app(url)
    client = app.test_client()
    profiler = cProfile.Profile()
    done = 0
    wall = 0.0

    def each(kind: str, call: Callable[[], Any]) -> Any:
        nonlocal done, wall
        if kind != "pass":
            return call()
        started = time.perf_counter()
        profiler.enable()
        try:
            return call()
        finally:
            profiler.disable()
            wall += time.perf_counter() - started
            done += 1

    HttpTable(client, 7).play_round()  # warm up
    while done < passes:
        HttpTable(client, 7).play_round(each)
    return pstats.Stats(profiler), done, wall


def layer_times(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each of :data:`LAYERS`."""
    found: dict[str, float] = {}
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for label, suffix, name in LAYERS:
        total = 0.0
        for (filename, _line, func), (_cc, _nc, _tt, ct, _callers) in raw.items():
            if func == name and filename.endswith(suffix):
                total += ct
        found[label] = total
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=3000)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="referee-profile-") as tmp:
        server = RedisServer(Path(tmp) / "redis").start()
        try:
            stats, passes, wall = profile_passes(server.url, args.passes)
        finally:
            server.stop()
    layers = layer_times(stats)
    app_total = layers[LAYERS[0][0]]
    print(f"{passes} passes, {1e6 * wall / passes:.0f} µs each under cProfile")
    print(f"{'layer':<58} {'µs/pass':>8} {'share':>6}")
    for label, seconds in layers.items():
        share = seconds / app_total if app_total else 0.0
        print(f"{label:<58} {1e6 * seconds / passes:>8.0f} {share:>6.0%}")
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(args.top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
