"""``python -m benchmarks``: every figure of issues 6 and 13 in one run, against the floors.

1. A private Redis (the settings of deploy/redis.conf that matter here:
   append-only file fsynced every second, no eviction) on a free port.
2. The service (``service.wsgi:app``) and the floor app
   (``benchmarks.floor:create_floor_app()``: the GET floor and the
   minimal-move floor) under ``gunicorn -c deploy/gunicorn.conf.py``, with the
   same environment (``--env`` adds to it).
3. The pure engine, in this process, before any load.
4. Redis round trips and commands per request, in this process (exact counts).
5. The load: a warm-up of each app, then ``--runs`` runs of each, alternated
   service, GET floor, minimal-move floor, service… so that drift hits all;
   medians over runs.
6. Issue 13's load (:mod:`benchmarks.versus`): simultaneous exchanges at 4
   and 7 seats on the service and, when node can run it, on boardgame.io
   (InMemory and FlatFile), alternated.
7. Memory per table, idle tables, expiry, Idempotency-Key records.
8. The dearest input of each stateless check beside a pass (server time).
9. Event streams (:mod:`benchmarks.streams`): memory per idle subscriber on
   one worker, delivery delay from commit to every subscriber on two; what
   one more stream on a busy table costs a move (:mod:`benchmarks.stream_fanout`);
   one address holding streams until refused (:mod:`benchmarks.stream_flood`);
   one address holding connections with slow bodies (:mod:`benchmarks.slow_bodies`);
   every game at 7 seats with the seats reading their streams, and the stream
   floor (:mod:`benchmarks.stream_floor`: a minimal move pushed to 7 seat streams);
   per-core scaling (:mod:`benchmarks.scaling`): the 7-seat stream load with
   ``--workers`` gunicorn workers (1 and 2 by default), on one Redis or a
   Redis Cluster of ``--shards`` primaries.
10. Replica acknowledgement (:mod:`benchmarks.replicas`): passes with
    ``REDIS_WAIT_REPLICAS=1`` (a replica of the bench's Redis) beside without.
11. Clocks and bots (:mod:`benchmarks.clocks`), a worker SIGKILLed among them;
    failovers under play (:mod:`benchmarks.failover`): Redis Sentinels,
    ``SENTINEL FAILOVER`` and SIGKILL of the primary, twice each.
12. ``benchmarks/results/latest.json``, ``latest.md``, ``latest.png``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from . import (
    bot_quota,
    clocks,
    engine,
    failover,
    growth,
    heavy_checks,
    keyed_memory,
    long_round,
    measures,
    memory,
    record_memory,
    redis_cost,
    replicas,
    report,
    scaling,
    slow_bodies,
    stream_fanout,
    stream_flood,
    streams,
    versus,
)
from .floor import DEFAULT_KEY
from .processes import (
    CLOCK_TICKS,
    ROOT,
    Gunicorn,
    RedisServer,
    cpu_busy_ticks,
    gunicorn_env,
    machine_load,
    redis_cpu_seconds,
)

RESULTS = Path(__file__).resolve().parent / "results"
README = ROOT / "docs" / "guide" / "performance.md"
"""Where ``--update-readme`` writes the figures (once README's "Performance")."""
README_START = "<!-- benchmark results: start"
README_END = "<!-- benchmark results: end -->"


def update_readme(text: str, readme: Path = README) -> None:
    """Put ``text`` (the Markdown report) between the two markers of ``readme``
    (the guide's performance page)."""
    content = readme.read_text()
    start = content.index(README_START)
    start = content.index("\n", start) + 1
    end = content.index(README_END)
    readme.write_text(content[:start] + "\n" + text + "\n" + content[end:])


@dataclass(frozen=True)
class Plan:
    """How long and how hard a run measures."""

    mode: str
    runs: int
    duration: float
    warmup: float
    concurrency: int
    tables: int
    engine_seconds: float
    engine_repeats: int
    contended_exchanges: int
    idle_tables: int
    warmup_run: float  # seconds of the first, unrecorded run of each app
    # Issue 13's exchanges (benchmarks.versus): runs per server and table size,
    # seconds measured per run, warm-up seconds of each run, tables at once.
    versus_runs: int
    versus_duration: float
    versus_warmup: float
    versus_tables: int
    # Event streams (benchmarks.streams): idle subscribers on one worker and
    # their tables; busy tables, subscribers per table, seconds of moves.
    stream_idle: int
    stream_idle_tables: int
    stream_tables: int
    stream_per_table: int
    stream_duration: float
    # Clocks and bots (benchmarks.clocks): tables whose deadlines fall due
    # within one second; tables of four bots.
    clock_tables: int = 1000
    clock_bot_tables: int = 100
    # Bots-only tables at their creator's quotas and the lobby over stale
    # entries (benchmarks.bot_quota): seconds of the load, seconds of the
    # quiet table alone, stale lobby entries.
    quota_seconds: float = 60.0
    quota_quiet_seconds: float = 20.0
    lobby_stale: int = 1000


FULL = Plan(
    "full",
    3,
    10.0,
    1.5,
    16,
    16,
    0.5,
    3,
    100,
    10_000,
    2.0,
    2,
    10.0,
    2.0,
    16,
    1000,
    100,
    10,
    10,
    10.0,
)
QUICK = Plan(
    "quick",
    1,
    3.0,
    1.0,
    16,
    16,
    0.2,
    1,
    30,
    1_000,
    1.0,
    1,
    2.0,
    1.0,
    16,
    200,
    20,
    5,
    8,
    3.0,
    100,
    10,
    quota_seconds=15.0,
    quota_quiet_seconds=8.0,
    lobby_stale=300,
)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def table_state_size(url: str) -> dict[str, Any]:
    """Bytes of a 7-seat table's stored fields two exchanges into a round: the
    fields a move reads (``HMGET v n s a k``), so the floor's blob is as big."""
    app = redis_cost.in_process_app(url)
    table = redis_cost.HttpTable(app.test_client(), 7)
    table.deal()
    table.read_hands()
    for _ in range(2):
        passed = table.choices()
        answer = None
        for seat, cards in enumerate(passed):
            answer = table.pass_(seat, cards)
        table.resolved(passed, answer)
    fields: dict[bytes, bytes] = redis.Redis.from_url(url).hgetall(f"referee:{{{table.id}}}:table")  # type: ignore[assignment]
    sizes = {k.decode(): len(v) for k, v in fields.items()}
    return {"fields": sizes, "blob_bytes": sum(sizes.values())}


commit_conflicts = versus.commit_conflicts


def load_run(
    target: str, app: Gunicorn, rclient: redis.Redis, plan: Plan, duration: float, seed: int
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """One run of the load generator against ``app``; its summary and latencies."""
    before_stats = redis_cost.commandstats(rclient)
    before_conflicts = commit_conflicts(app) if target == "service" else 0.0
    before_cpu = app.cpu_seconds()
    before_redis = redis_cpu_seconds(rclient)
    busy0, _ = cpu_busy_ticks()
    started = time.perf_counter()
    command = [
        sys.executable,
        "-m",
        "benchmarks.load",
        target,
        app.base,
        "--concurrency",
        str(plan.concurrency),
        "--tables",
        str(plan.tables),
        "--duration",
        str(duration),
        "--warmup",
        str(plan.warmup),
        "--seed",
        str(seed),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the load generator failed:\n{done.stderr}")
    wall = time.perf_counter() - started
    busy1, _ = cpu_busy_ticks()
    result = json.loads(done.stdout)
    server_cpu = app.cpu_seconds() - before_cpu
    redis_cpu = redis_cpu_seconds(rclient) - before_redis
    executed = redis_cost.executed_between(before_stats, redis_cost.commandstats(rclient))
    # CPU of everything else on the machine meanwhile (other engineers' tests…).
    ours = server_cpu + redis_cpu + result["client_cpu_s"]
    others = max(0.0, (busy1 - busy0) / CLOCK_TICKS - ours)
    window = result["window_s"]
    lat = result["latencies_ms"]
    statuses: Counter[str] = Counter()
    for per_status in result["statuses"].values():
        statuses.update(per_status)
    ok = {
        k: sum(n for s, n in v.items() if s.startswith("2")) for k, v in result["statuses"].items()
    }
    total_ok = sum(ok.values())
    summary = {
        "target": target,
        "window_s": window,
        "requests_per_s": total_ok / window,
        "ok_by_kind": ok,
        "statuses": result["statuses"],
        "statuses_total": dict(statuses),
        "notes": result["notes"],
        # Whole run (warm-up included): server CPU per answered request.
        "server_cpu_s": server_cpu,
        "redis_cpu_s": redis_cpu,
        "client_cpu_share": result["client_cpu_s"] / result["client_wall_s"],
        "other_cpu_share": others / wall / (os.cpu_count() or 1),
        "redis_commands": dict(executed),
        "latency_ms": {k: measures.latency_summary(v) for k, v in lat.items()},
    }
    # CPU and Redis counts cover the whole run, warm-up included: so do these.
    answered = result["answered_whole_run"]
    all_requests = sum(answered.values())
    summary["cpu_ms_per_request"] = 1000 * (server_cpu + redis_cpu) / max(all_requests, 1)
    if target == "service":
        summary["passes_per_s"] = ok.get("pass", 0) / window
        summary["redis_commands_per_pass"] = sum(executed.values()) / max(answered["pass"], 1)
        writes = sum(answered.get(k, 0) for k in ("pass", "create", "deal", "claim"))
        # Lost version races, from the service's own counter (EVALSHA counts
        # would mix the commit with the rate limiter's script).
        lost = commit_conflicts(app) - before_conflicts
        summary["commit_conflicts"] = lost
        summary["commits_per_write"] = 1 + lost / max(writes, 1)
    else:
        summary["redis_commands_per_request"] = sum(executed.values()) / max(all_requests, 1)
    return summary, lat


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the runs of one app."""
    out: dict[str, Any] = {"runs": len(runs)}
    for key in ("requests_per_s", "passes_per_s", "cpu_ms_per_request"):
        if key in runs[0]:
            out[key] = measures.median([r[key] for r in runs])
    kinds = {k for r in runs for k in r["latency_ms"]}
    for kind in kinds:
        out[kind] = {
            f"p{q}": measures.median(
                [r["latency_ms"].get(kind, {}).get(f"p{q}", math.nan) for r in runs]
            )
            for q in measures.PERCENTILES
        }
        out[kind]["n"] = sum(r["latency_ms"].get(kind, {}).get("n", 0) for r in runs)
    totals: Counter[str] = Counter()
    for r in runs:
        totals.update(r["statuses_total"])
    out["statuses_total"] = dict(totals)
    out["throttled_429"] = totals.get("429", 0)
    out["unavailable_503"] = totals.get("503", 0)
    notes: Counter[str] = Counter()
    for r in runs:
        notes.update(r["notes"])
    out["notes"] = dict(notes)
    return out


def parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--env wants KEY=VALUE, not {pair!r}")
        env[key] = value
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Measure the referee against Flask+Redis floors and boardgame.io "
        "(issues 6 and 13).",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of about 6 minutes")
    parser.add_argument("--runs", type=int, help="load runs per app (median over them)")
    parser.add_argument("--duration", type=float, help="seconds measured per load run")
    parser.add_argument("--concurrency", type=int, help="requests in flight, both apps")
    parser.add_argument("--tables", type=int, help="tables played at once")
    parser.add_argument("--idle-tables", type=int, help="idle tables measured for memory")
    parser.add_argument(
        "--no-peer", action="store_true", help="leave boardgame.io out (issue 13's peer rows)"
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment for both gunicorn apps and the in-process app (repeatable), "
        "e.g. WEB_CONCURRENCY=3, GUNICORN_THREADS=8, or a rate limit",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="folder for latest.* (default benchmarks/results; with --quick, "
        "benchmarks/results/quick, which git ignores, so a smoke run never replaces a full one)",
    )
    parser.add_argument(
        "--update-readme", action="store_true", help="copy latest.md into docs/guide/performance.md"
    )
    parser.add_argument(
        "--workers",
        type=scaling.parse_workers,
        default=list(scaling.WORKERS),
        metavar="N,N…",
        help="the per-core scaling's gunicorn worker counts (default 1,2; on a many-core box "
        "e.g. 1,2,4,8)",
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=0,
        metavar="N",
        help="run the per-core scaling against a Redis Cluster of N primaries (3 at least) on "
        "this machine instead of one Redis",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.out is None:
        args.out = RESULTS / "quick" if args.quick else RESULTS
    overrides = {
        "runs": args.runs,
        "duration": args.duration,
        "concurrency": args.concurrency,
        "tables": args.tables,
        "idle_tables": args.idle_tables,
    }
    plan = Plan(**{**plan.__dict__, **{k: v for k, v in overrides.items() if v is not None}})
    extra_env = {**redis_cost.ONE_ADDRESS_ENV, **parse_env(args.env)}
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    os.environ.update(extra_env)  # the in-process app reads its settings from here too

    began = time.perf_counter()
    load_before = machine_load()
    log(f"{plan.mode} run: {plan}")
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        folder = Path(tmp)
        server = RedisServer(folder / "redis").start()
        apps: list[Gunicorn | versus.PeerServer] = []
        try:
            rclient = server.client()
            url = server.url
            env = gunicorn_env({"REDIS_URL": url, "FLOOR_KEY": DEFAULT_KEY, **extra_env})
            state = table_state_size(url)
            rclient.set(DEFAULT_KEY, os.urandom(state["blob_bytes"]))
            log(f"a table's stored fields: {state['fields']} → floor blob {state['blob_bytes']} B")
            service = Gunicorn("service.wsgi:app", env, folder / "service.log", "/readyz").start()
            apps.append(service)
            floor = Gunicorn(
                "benchmarks.floor:create_floor_app()", env, folder / "floor.log", "/readyz"
            ).start()
            apps.append(floor)
            log(f"service on {service.base}, floor on {floor.base}, Redis on {url}")

            log("engine alone…")
            engine_figures = engine.measure(plan.engine_seconds, plan.engine_repeats)

            log("Redis round trips, uncontended and contended…")
            uncontended = redis_cost.uncontended(url)
            contended = redis_cost.contended(url, plan.contended_exchanges)

            log("load: warm-up of each app…")
            targets = (("service", service), ("floor", floor), ("move", floor))
            for target, app in targets:
                load_run(target, app, rclient, plan, plan.warmup_run, seed=0)
            runs: dict[str, list[dict[str, Any]]] = {"service": [], "floor": [], "move": []}
            latencies: dict[str, list[float]] = {
                "referee pass": [],
                "referee public view": [],
                "floor GET": [],
                "floor minimal move": [],
            }
            what = {"service": "passes", "floor": "GETs", "move": "minimal moves"}
            for i in range(plan.runs):
                for target, app in targets:
                    summary, lat = load_run(target, app, rclient, plan, plan.duration, seed=i + 1)
                    runs[target].append(summary)
                    if target == "service":
                        latencies["referee pass"] += lat.get("pass", [])
                        latencies["referee public view"] += lat.get("view", [])
                    elif target == "floor":
                        latencies["floor GET"] += lat.get("floor", [])
                    else:
                        latencies["floor minimal move"] += lat.get("move", [])
                    rps = summary.get("passes_per_s", summary["requests_per_s"])
                    log(
                        f"run {i + 1}/{plan.runs} {target}: {rps:.0f}/s ({what[target]}), "
                        f"other processes {summary['other_cpu_share']:.0%} of the machine"
                    )
            svc, flo = combine(runs["service"]), combine(runs["floor"])
            mov = combine(runs["move"])
            ratios = {
                "passes_per_s": measures.ratio(svc["passes_per_s"], flo["requests_per_s"]),
                "requests_per_s": measures.ratio(svc["requests_per_s"], flo["requests_per_s"]),
                "cpu_ms_per_request": measures.ratio(
                    svc["cpu_ms_per_request"], flo["cpu_ms_per_request"]
                ),
            }
            ratios["passes_per_s_to_move"] = measures.ratio(
                svc["passes_per_s"], mov["requests_per_s"]
            )
            ratios["cpu_ms_per_request_to_move"] = measures.ratio(
                svc["cpu_ms_per_request"], mov["cpu_ms_per_request"]
            )
            for q in measures.PERCENTILES:
                ratios[f"move_p{q}"] = measures.ratio(svc["pass"][f"p{q}"], mov["move"][f"p{q}"])
                ratios[f"pass_p{q}"] = measures.ratio(svc["pass"][f"p{q}"], flo["floor"][f"p{q}"])
                ratios[f"view_p{q}"] = measures.ratio(svc["view"][f"p{q}"], flo["floor"][f"p{q}"])
            under_load = {
                "commands_per_pass": measures.median(
                    [r["redis_commands_per_pass"] for r in runs["service"]]
                ),
                "commits_per_write": measures.median(
                    [r["commits_per_write"] for r in runs["service"]]
                ),
                "floor_commands_per_request": measures.median(
                    [r["redis_commands_per_request"] for r in runs["floor"]]
                ),
                "commands_of_last_service_run": runs["service"][-1]["redis_commands"],
            }

            peer_ok, peer_why = (False, "--no-peer") if args.no_peer else versus.peer_ready(log)
            peers: dict[str, versus.PeerServer] = {}
            if peer_ok:
                try:
                    for storage in versus.STORAGES:
                        peer = versus.PeerServer(storage, folder / f"peer-{storage}")
                        apps.append(peer.start())
                        peers[storage] = peer
                except RuntimeError as error:  # the report says why the rows are missing
                    peer_ok, peer_why, peers = False, str(error), {}
            if peer_ok:
                log(
                    f"boardgame.io peers ({peer_why}): "
                    + ", ".join(f"{k} on {p.base}" for k, p in peers.items())
                )
            else:
                log(f"boardgame.io rows skipped: {peer_why}")
            log("issue 13's load: simultaneous exchanges, 4 and 7 seats…")
            against = versus.measure(
                service,
                rclient,
                peers,
                runs=plan.versus_runs,
                tables=plan.versus_tables,
                duration=plan.versus_duration,
                warmup=plan.versus_warmup,
                log=log,
            )
            against["peer"] = {"ran": peer_ok, "why": peer_why}
            against["asymmetries"] = list(versus.ASYMMETRIES)

            log("the other games: Sevens turns and May I? moves, 4 and 7 seats…")
            other_games = versus.games(
                service,
                rclient,
                runs=plan.versus_runs,
                tables=plan.versus_tables,
                duration=plan.versus_duration,
                log=log,
            )

            log("replica acknowledgement: passes with REDIS_WAIT_REPLICAS=1 beside without…")
            acknowledged = replicas.measure(
                server,
                service,
                env,
                folder,
                plan.runs,
                lambda app: load_run("service", app, rclient, plan, plan.duration, seed=9)[0],
                log,
            )

            clocked = clocks.measure(
                url,
                service,
                rclient,
                folder / "clocks",
                plan.clock_tables,
                plan.clock_bot_tables,
                log,
            )
            quota = bot_quota.measure(
                folder / "bot-quota",
                log,
                seconds=plan.quota_seconds,
                quiet_seconds=plan.quota_quiet_seconds,
                stale=plan.lobby_stale,
            )

            if failover.SENTINEL is None:
                failed_over: dict[str, Any] = {"skipped": "no redis-sentinel on this machine"}
            else:
                failed_over = failover.measure(
                    folder / "failover", env, log, quick=plan.mode == "quick"
                )

            log("memory…")
            played = memory.played_tables(url)
            played["record_per_move"] = record_memory.per_move(played)
            log("the largest table: every record at its cap…")
            largest = record_memory.largest_table(url)
            idle = memory.idle_tables(url, plan.idle_tables)
            expiry = memory.expiry(url)
            log("a May I? round nobody lays down in: 1, 100 and 4,000 moves…")
            long = long_round.measure(url, repeats=10 if plan.mode == "quick" else 40)
            log(f"a table after 1 and {growth.ROUNDS} rounds of an open match, every game…")
            grown = growth.growth(url)
            keyed = {
                "records": keyed_memory.record_sizes(url),
                "table": keyed_memory.keyed_table(url),
            }
            log("the dearest stateless checks beside a pass…")
            checks = heavy_checks.measure(url)
            streamed = streams.measure(
                url,
                rclient,
                folder / "streams",
                env,
                idle_subscribers=plan.stream_idle,
                idle_tables=plan.stream_idle_tables,
                tables=plan.stream_tables,
                per_table=plan.stream_per_table,
                duration=plan.stream_duration,
                log=log,
            )
            sizes = stream_fanout.QUICK if plan.mode == "quick" else stream_fanout.FULL
            streamed["fanout"] = found = stream_fanout.measure(
                url, rclient, folder / "fanout", env, log=log, **sizes
            )
            log(
                f"fan-out: {found['us_per_move_per_stream']:.1f} µs of server CPU per move "
                f"per stream ({found['streams']} public streams)"
            )
            streamed["flood"] = found = stream_flood.measure(
                url,
                rclient,
                folder / "flood",
                env,
                seconds=3.0 if plan.mode == "quick" else 10.0,
                log=log,
            )
            log(
                f"stream flood: a move's p99 {found['flooded']['moves']['p99']:.1f} ms against "
                f"{found['quiet']['moves']['p99']:.1f} ms quiet; the attacker held "
                f"{found['attacker']['held']} streams"
            )
            streamed["slow_bodies"] = found = slow_bodies.measure(
                url,
                rclient,
                folder / "slow-bodies",
                env,
                seconds=3.0 if plan.mode == "quick" else 10.0,
                log=log,
            )
            log(
                f"slow bodies: /readyz p99 {found['flood']['readyz_p99_ms']} ms against "
                f"{found['quiet']['readyz_p99_ms']} ms quiet; the attacker held "
                f"{found['flood']['attacker_held_at_most']} connections"
            )
            log("issue 13's load at 7 seats, hands from the seat streams…")
            streamed["exchange"] = versus.service_run(
                service,
                rclient,
                7,
                plan.versus_tables,
                plan.versus_duration,
                plan.versus_warmup,
                streams=True,
            )
            log("Sevens turns and May I? moves at 7 seats, turns from the seat streams…")
            streamed["games"] = {}
            for game in ("sevens", "may-i"):
                streamed["games"][f"{game}/7"] = found = versus.game_run(
                    service,
                    rclient,
                    game,
                    7,
                    plan.versus_tables,
                    plan.versus_duration,
                    streams=True,
                    warmup=plan.versus_warmup,
                )
                log(
                    f"{game}, 7 seats, streams: {found['moves_per_s']:.0f} moves/s, "
                    f"{found['cpu_ms_per_move']:.2f} ms CPU a move, "
                    f"{found['requests_per_move_in_play']:.2f} requests a move"
                )
            log("the stream floor: a minimal move pushed to 7 seat streams…")
            streamed["floor"] = found = versus.floor_stream_run(
                floor, rclient, 7, plan.versus_tables, plan.versus_duration, plan.versus_warmup
            )
            log(
                f"stream floor: {found['moves_per_s']:.0f} moves/s, "
                f"{found['cpu_ms_per_move']:.2f} ms CPU a move"
            )
            log(f"per-core scaling: workers {args.workers}, shards {args.shards or 'none'}…")
            streamed["scaling"] = scaling.measure(
                folder / "scaling",
                env,
                workers=args.workers,
                shards=args.shards,
                tables=plan.versus_tables,
                # A fresh service opens 112 streams first: a smoke run's 2 s
                # measured no pass at one worker on a busy machine.
                duration=max(plan.versus_duration, 5.0),
                warmup=max(plan.versus_warmup, 2.0),
                log=log,
            )
            redis_info = rclient.info("server")
        finally:
            for process in apps:
                process.stop()
            server.stop()

    load_after = machine_load()
    all_runs = runs["service"] + runs["floor"] + runs["move"]
    figures: dict[str, Any] = {
        "meta": {
            "finished": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "mode": plan.mode,
            "plan": plan.__dict__,
            "runs": plan.runs,
            "duration_s": plan.duration,
            "concurrency": plan.concurrency,
            "tables": plan.tables,
            "cores": os.cpu_count(),
            "python": sys.version.split()[0],
            "redis_version": redis_info["redis_version"],
            "redis_settings": ", ".join(f"{k} {v}" for k, v in server.settings.items())
            or "Redis defaults",
            "gunicorn": ", ".join(
                f"{k}={os.environ.get(k, default)}"
                for k, default in (
                    ("WEB_CONCURRENCY", "2"),
                    ("GUNICORN_WORKER_CLASS", "gevent"),
                )
            ),
            "extra_env": extra_env,
            "load_before": load_before,
            "load_after": load_after,
            "other_cpu_share": measures.median([r["other_cpu_share"] for r in all_runs]),
            "client_cpu_share": measures.median([r["client_cpu_share"] for r in all_runs]),
            "note": "The load generator runs on the same machine and competes for its cores.",
            "seconds": round(time.perf_counter() - began, 1),
        },
        "state_size": state,
        "load": {"service": svc, "floor": flo, "move": mov, "ratios": ratios, "runs": runs},
        "versus": against,
        "games": other_games,
        "redis": {"uncontended": uncontended, "contended": contended, "under_load": under_load},
        "memory": {
            "played": played,
            "idle": idle,
            "expiry": expiry,
            "growth": grown,
            "keyed": keyed,
            "largest": largest,
        },
        "long_round": long,
        "streams": streamed,
        "engine": engine_figures,
        "checks": checks,
        "replicas": acknowledged,
        "clocks": clocked,
        "failover": failed_over,
        "bot_quota": quota,
    }
    figures["targets"] = [t.to_json() for t in report.targets(figures)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    text = report.markdown(figures)
    (args.out / "latest.md").write_text(text)
    if args.update_readme:
        update_readme(text)
    report.plot(
        latencies,
        args.out / "latest.png",
        f"card-referee vs floors, {plan.concurrency} requests in flight, "
        f"{plan.runs}×{plan.duration:g} s per app ({figures['meta']['finished']})",
    )
    print(report.console(figures))
    print(
        f"\nother processes used {figures['meta']['other_cpu_share']:.0%} of the machine during "
        f"the load runs; the load generator itself {figures['meta']['client_cpu_share']:.0%} of a "
        f"core (it competes with the servers for the {os.cpu_count()} cores)."
    )
    print(f"wrote {args.out}/latest.json, latest.md, latest.png in {figures['meta']['seconds']} s")
    return 0
