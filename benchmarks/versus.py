"""Issue 13: the service against boardgame.io at the same load.

The load: ``tables`` tables of 4 or 7 seats at once; every seat of a table
passes at the same moment; the next exchange starts once every seat knows
its new hand. The service is driven by :mod:`benchmarks.exchange_load` (HTTP
keep-alive, aiohttp); the peer, ``benchmarks/peers/boardgameio`` (its own
``Server``, one node process, InMemory or FlatFile storage), by its
``load.js`` (lobby credentials, boardgame.io's socket.io client). Each run
reports passes/s, server CPU per pass (service: gunicorn master and workers
plus Redis; peer: the node process) over the whole run, warm-up included,
divided by the passes of the whole run, and the pass latency from sending to
the seat knowing its new hand. For the service it also reads its lost
version races (``referee_commit_conflicts_total``) before and after.

The peer runs only when ``node`` is on the PATH and the peer's
``node_modules`` is there or ``npm ci`` can make it; :func:`peer_ready` says
why not otherwise, and the report shows the peer rows as skipped.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from . import measures
from .processes import (
    CLOCK_TICKS,
    ROOT,
    Gunicorn,
    cpu_busy_ticks,
    free_port,
    process_cpu_seconds,
    redis_cpu_seconds,
    stop_process,
    wait_ready,
)

PEER_DIR = Path(__file__).resolve().parent / "peers" / "boardgameio"
STORAGES = ("memory", "flatfile")

# Every way the two sides differ, printed with the figures (docs/guide/performance.md too).
ASYMMETRIES = (
    "storage: the service commits every move to Redis with AOF fsynced every second "
    "(a restart loses at most about one second); boardgame.io InMemory keeps matches in "
    "the node process (a restart loses every match); FlatFile writes a file per match "
    "with node-persist, without fsync",
    "transport: boardgame.io pushes each move's state to every seat over a websocket "
    "(socket.io); the service answers each pass over HTTP/1.1 keep-alive, and a seat "
    "whose pass did not resolve the exchange reads its seat view once all passes are "
    "answered (one GET per seat and exchange: counted in the service's CPU, not in "
    "its passes)",
    "processes: the service runs gunicorn (its master and WEB_CONCURRENCY workers) "
    "and Redis, which may use both cores; boardgame.io runs in one node process "
    "(one core for JavaScript, plus libuv's threads for file writes)",
    "work per move: the service checks a bearer token, counts a rate limit, validates "
    "the body, applies every rule, commits atomically with a version check, appends "
    "to the event log, logs an access line and counts metrics; boardgame.io checks "
    "the credentials, runs the move and stores the state and its log",
    "rounds: with a winning hand the service ends the round itself (declaration "
    "automatic) and the load's host deals the next one (one more request, then every "
    "seat reads its hand); the peer deals the next round inside the resolving move",
    "load generators: the service's is Python (aiohttp), the peer's node; both run "
    "on this machine and compete with the servers for its cores (their CPU is given)",
)


def commit_conflicts(app: Gunicorn) -> float:
    """The service's ``referee_commit_conflicts_total``, summed over its workers."""
    with urllib.request.urlopen(f"{app.base}/metrics", timeout=10) as response:
        text = response.read().decode()
    for line in text.splitlines():
        if line.startswith("referee_commit_conflicts_total"):
            return float(line.split()[-1])
    return 0.0


def peer_ready(log: Any = print) -> tuple[bool, str]:
    """Whether the peer can run: (True, how) or (False, why not). Runs ``npm
    ci`` in the peer's folder when ``node_modules`` is missing."""
    if shutil.which("node") is None:
        return False, "no `node` on the PATH"
    if (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        return True, "node_modules present"
    if shutil.which("npm") is None:
        return False, f"no `npm` on the PATH to install {PEER_DIR / 'node_modules'}"
    log(f"npm ci in {PEER_DIR} (boardgame.io 0.50.2, from package-lock.json)…")
    try:
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=PEER_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, "`npm ci` took more than 10 minutes"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return False, f"`npm ci` failed: {' '.join(tail)}"
    return True, "installed by npm ci"


@dataclass
class PeerServer:
    """``node server.js`` (boardgame.io's Server) on a free port."""

    storage: str
    folder: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> PeerServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        command = ["node", "server.js", "--port", str(self.port), "--storage", self.storage]
        command += ["--dir", str(self.folder / "flatfile")]
        with open(self.folder / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                command, cwd=PEER_DIR, stdout=log, stderr=subprocess.STDOUT
            )
        if wait_ready(self.proc, f"{self.base}/games", timeout):
            return self
        self.stop()
        lines = (self.folder / "server.log").read_text(errors="replace").splitlines()
        why = next((line for line in lines if "Error" in line), lines[-1] if lines else "?")
        raise RuntimeError(f"boardgame.io ({self.storage}) did not start: {why.strip()}")

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the node process (all its threads)."""
        return process_cpu_seconds(self.proc.pid) if self.proc is not None else 0.0

    def stop(self) -> None:
        stop_process(self.proc, 10)
        self.proc = None


def _latency(values: list[float]) -> dict[str, float]:
    return measures.latency_summary(values)


def _others(busy0: int, started: float, ours: float) -> float:
    """The share of the machine that other processes used since ``busy0``
    (jiffies) and ``started`` (perf_counter), ``ours`` CPU seconds aside."""
    busy1, _ = cpu_busy_ticks()
    wall = max(time.perf_counter() - started, 1e-9)
    cores = os.cpu_count() or 1
    return max(0.0, (busy1 - busy0) / CLOCK_TICKS - ours) / wall / cores


def _timed_load(
    app: Gunicorn, rclient: redis.Redis, command: list[str], what: str
) -> tuple[dict[str, Any], float, float, float]:
    """Run a load (``command``, in its own process, its figures as JSON on
    stdout) against ``app``: its figures, the CPU seconds of the app's
    processes and of Redis over it, and the other processes' share of the
    machine meanwhile. Raises ``RuntimeError`` with the load's stderr when
    it fails (``what`` names it)."""
    cpu0, redis0 = app.cpu_seconds(), redis_cpu_seconds(rclient)
    busy0, started = cpu_busy_ticks()[0], time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    server_cpu = app.cpu_seconds() - cpu0
    redis_cpu = redis_cpu_seconds(rclient) - redis0
    others = _others(busy0, started, server_cpu + redis_cpu + result["client_cpu_s"])
    return result, server_cpu, redis_cpu, others


def service_run(
    app: Gunicorn,
    rclient: redis.Redis,
    seats: int,
    tables: int,
    duration: float,
    warmup: float,
    streams: bool = False,
) -> dict[str, Any]:
    """One run of :mod:`benchmarks.exchange_load` against the service (with
    ``streams``: hands from the seats' streams, ``--streams``)."""
    conflicts0 = commit_conflicts(app)
    command = [sys.executable, "-m", "benchmarks.exchange_load", app.base]
    command += ["--tables", str(tables), "--seats", str(seats)]
    command += ["--duration", str(duration), "--warmup", str(warmup)]
    command += ["--streams"] if streams else []
    result, server_cpu, redis_cpu, others = _timed_load(app, rclient, command, "the exchange load")
    lost = commit_conflicts(app) - conflicts0
    whole = max(result["passes_whole_run"], 1)
    answered = result["answered_whole_run"]
    return {
        "server": "service",
        "seats": seats,
        "passes_per_s": result["passes_per_s"],
        "cpu_ms_per_pass": 1000 * (server_cpu + redis_cpu) / whole,
        "redis_cpu_ms_per_pass": 1000 * redis_cpu / whole,
        "latency_ms": _latency(result["pass_to_hand_ms"]),
        "put_latency_ms": _latency(result["latencies_ms"].get("pass", [])),
        "lost_races": lost,
        "lost_races_per_pass": lost / whole,
        "passes_whole_run": result["passes_whole_run"],
        "requests_whole_run": answered,
        "requests_per_pass": sum(answered.values()) / whole,
        # Less each table's requests made once: its creation, its seats' streams.
        "requests_per_pass_in_play": (
            sum(answered.values()) - answered.get("create", 0) - answered.get("stream", 0)
        )
        / whole,
        "statuses": result["statuses"],
        "notes": result["notes"],
        "client_cpu_share": result["client_cpu_s"] / result["client_wall_s"],
        "other_cpu_share": others,
    }


def peer_run(
    server: PeerServer, seats: int, tables: int, duration: float, warmup: float
) -> dict[str, Any]:
    """One run of the peer's ``load.js`` against ``server``."""
    cpu0 = server.cpu_seconds()
    busy0, started = cpu_busy_ticks()[0], time.perf_counter()
    command = ["node", "load.js", server.base, "--tables", str(tables), "--seats", str(seats)]
    command += ["--duration", str(duration), "--warmup", str(warmup)]
    done = subprocess.run(command, cwd=PEER_DIR, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the peer's load.js failed:\n{done.stderr}{done.stdout}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    cpu = server.cpu_seconds() - cpu0
    others = _others(busy0, started, cpu + result["client_cpu_s"])
    whole = max(result["passes_whole_run"], 1)
    return {
        "server": f"boardgame.io {server.storage}",
        "seats": seats,
        "passes_per_s": result["passes_per_s"],
        "cpu_ms_per_pass": 1000 * cpu / whole,
        "latency_ms": result["latency_ms"],
        "passes_whole_run": result["passes_whole_run"],
        "rounds_won": result["rounds_won"],
        "rounds_void": result["rounds_void"],
        "client_cpu_share": result["client_cpu_s"] / result["client_wall_s"],
        "other_cpu_share": others,
    }


GAME_LOADS = (("sevens", 7), ("sevens", 4), ("may-i", 7), ("may-i", 4))
"""The other games' moves in the bench (issue 13): (game, seats)."""


def game_run(
    app: Gunicorn,
    rclient: redis.Redis,
    game: str,
    seats: int,
    tables: int,
    duration: float,
    streams: bool = False,
    warmup: float = 0.0,
) -> dict[str, Any]:
    """One run of :mod:`benchmarks.game_moves` (Sevens turns or May I? moves,
    asks and answers, as fast as the service answers) against the service:
    moves/s, server CPU per move (gunicorn + Redis over the whole run ÷ its
    moves: table creation, deals and seat reads included, as no warm-up is
    left out; with ``streams``, the seats' streams and their delivery too),
    latency, lost version races and HTTP requests per move. A ``warmup``
    (s, for streams: the seats open theirs first) is left out of moves/s;
    the CPU and the requests are then divided by every move of the run."""
    conflicts0 = commit_conflicts(app)
    command = [sys.executable, "-m", "benchmarks.game_moves", "--url", app.base]
    command += ["--game", game, "--seats", str(seats), "--tables", str(tables)]
    command += ["--seconds", str(duration), "--warmup", str(warmup)]
    command += ["--streams"] if streams else []
    result, server_cpu, redis_cpu, others = _timed_load(app, rclient, command, f"the {game} load")
    answered = result.get("requests_whole_run", {})
    played = result.get("moves_whole_run", 0)
    whole = played or math.nan  # no move: no figure per move (not 0)
    moves = max(played, 1) if warmup else max(result["moves"], 1)
    return {
        "game": game,
        "seats": seats,
        "streams": streams,
        "requests_whole_run": answered,
        "requests_per_move": sum(answered.values()) / whole,
        # Less each table's requests made once: its creation, its seats' streams.
        "requests_per_move_in_play": (
            sum(answered.values()) - answered.get("create", 0) - answered.get("stream", 0)
        )
        / whole,
        "notes": result.get("notes", {}),
        "moves_per_s": result["moves_per_s"],
        "cpu_ms_per_move": 1000 * (server_cpu + redis_cpu) / moves,
        "latency_ms": {"p50": result["p50_ms"] or math.nan, "p99": result["p99_ms"] or math.nan},
        "lost_races": commit_conflicts(app) - conflicts0,
        "moves": result["moves"],
        "moves_by_kind": result["moves_by_kind"],
        "errors": result["errors"],
        "other_cpu_share": others,
    }


def floor_stream_run(
    app: Gunicorn,
    rclient: redis.Redis,
    seats: int,
    tables: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    """One run of :mod:`benchmarks.stream_floor` against the floor app: the
    least a move pushed to every seat's stream costs on this stack
    (:mod:`benchmarks.floor`'s third floor), in the same shape as the
    service's Sevens turns from the seat streams: moves/s, server CPU per
    move (gunicorn + Redis over the whole run ÷ its moves), latency."""
    command = [sys.executable, "-m", "benchmarks.stream_floor", app.base]
    command += ["--tables", str(tables), "--seats", str(seats)]
    command += ["--seconds", str(duration), "--warmup", str(warmup)]
    result, server_cpu, redis_cpu, others = _timed_load(
        app, rclient, command, "the stream floor's load"
    )
    return {
        "seats": seats,
        "tables": tables,
        "moves_per_s": result["moves_per_s"],
        "cpu_ms_per_move": 1000 * (server_cpu + redis_cpu) / max(result["moves_whole_run"], 1),
        "latency_ms": {"p50": result["p50_ms"] or math.nan, "p99": result["p99_ms"] or math.nan},
        "moves_whole_run": result["moves_whole_run"],
        "notes": result["notes"],
        "client_cpu_share": result["client_cpu_s"] / result["client_wall_s"],
        "other_cpu_share": others,
    }


def games(
    service: Gunicorn,
    rclient: redis.Redis,
    *,
    runs: int,
    tables: int,
    duration: float,
    log: Any = print,
) -> dict[str, Any]:
    """``runs`` runs of each of :data:`GAME_LOADS`; ``out["sevens/7"]`` etc.:
    medians of moves/s, CPU per move and latency, lost races and errors summed."""
    out: dict[str, Any] = {"tables": tables, "runs": runs, "duration_s": duration}
    for game, seats in GAME_LOADS:
        found = [game_run(service, rclient, game, seats, tables, duration) for _ in range(runs)]
        errors: Counter[str] = Counter()
        for run in found:
            errors.update(run["errors"])
        out[f"{game}/{seats}"] = {
            "moves_per_s": measures.median([r["moves_per_s"] for r in found]),
            "cpu_ms_per_move": measures.median([r["cpu_ms_per_move"] for r in found]),
            "latency_ms": {
                q: measures.median([r["latency_ms"][q] for r in found]) for q in ("p50", "p99")
            },
            "lost_races": sum(r["lost_races"] for r in found),
            "moves": sum(r["moves"] for r in found),
            "errors": dict(errors),
            "other_cpu_share": measures.median([r["other_cpu_share"] for r in found]),
        }
        last = out[f"{game}/{seats}"]
        log(
            f"{game}, {seats} seats: {last['moves_per_s']:.0f} moves/s, "
            f"{last['cpu_ms_per_move']:.2f} ms CPU a move, {last['lost_races']:g} lost races, "
            f"errors {last['errors'] or 'none'}"
        )
    return out


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the runs of one server at one table size."""
    out: dict[str, Any] = {"runs": len(runs)}
    medians = (
        "passes_per_s",
        "cpu_ms_per_pass",
        "redis_cpu_ms_per_pass",
        "requests_per_pass",
        "client_cpu_share",
        "other_cpu_share",
    )
    for key in medians:
        if key in runs[0]:
            out[key] = measures.median([r[key] for r in runs])
    for key in ("latency_ms", "put_latency_ms"):
        if key in runs[0]:
            out[key] = {
                f"p{q}": measures.median([r[key][f"p{q}"] for r in runs])
                for q in measures.PERCENTILES
            }
    if "lost_races" in runs[0]:
        out["lost_races"] = sum(r["lost_races"] for r in runs)
        out["passes_whole_run"] = sum(r["passes_whole_run"] for r in runs)
    return out


def measure(
    service: Gunicorn,
    rclient: redis.Redis,
    peers: dict[str, PeerServer],
    *,
    runs: int,
    tables: int,
    duration: float,
    warmup: float,
    log: Any = print,
) -> dict[str, Any]:
    """For 4 and 7 seats: ``runs`` rounds of (service, each peer), alternated so
    that drift hits every server. ``out["4"]["service"]``, ``out["7"]["memory"]``…:
    the medians per table size and server (see :func:`combine`); ``per_run``
    every run's figures. A peer that fails (its load stalls, its server dies)
    is left out of the later runs, with its error in ``peer_errors``."""
    out: dict[str, Any] = {"tables": tables, "runs": runs, "duration_s": duration, "per_run": {}}
    errors: dict[str, str] = {}
    out["peer_errors"] = errors
    for seats in (4, 7):
        per: dict[str, list[dict[str, Any]]] = {"service": []}
        per.update({name: [] for name in peers})
        for i in range(runs):
            found = service_run(service, rclient, seats, tables, duration, warmup)
            per["service"].append(found)
            log(
                f"{seats} seats, run {i + 1}/{runs}, service: "
                f"{found['passes_per_s']:.0f} passes/s, "
                f"{found['cpu_ms_per_pass']:.2f} ms CPU a pass, "
                f"{found['lost_races']:g} lost races, "
                f"other processes {found['other_cpu_share']:.0%} of the machine"
            )
            for name, server in peers.items():
                if name in errors:
                    continue
                try:
                    found = peer_run(server, seats, tables, duration, warmup)
                except RuntimeError as error:
                    errors[name] = str(error).strip().splitlines()[-1][:300]
                    log(f"boardgame.io {name} left out: {errors[name]}")
                    continue
                per[name].append(found)
                log(
                    f"{seats} seats, run {i + 1}/{runs}, {found['server']}: "
                    f"{found['passes_per_s']:.0f} passes/s, "
                    f"{found['cpu_ms_per_pass']:.2f} ms CPU a pass, "
                    f"other processes {found['other_cpu_share']:.0%} of the machine"
                )
        out[str(seats)] = {name: combine(found) for name, found in per.items() if found}
        out["per_run"][str(seats)] = per
    return out
