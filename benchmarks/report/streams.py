"""The report's event streams: delivery, idle subscribers, fan-out, floods and
exchanges over streams; their table, note and targets."""

from __future__ import annotations

import math
from typing import Any

from ..measures import Target, ratio
from .floor import _n

STREAM_IDLE_LIMIT_KB = 32.0
"""Memory of the worker process per idle stream subscriber, at most."""


STREAM_P99_LIMIT_MS = 50.0
"""From a move's commit to its event at every subscriber, p99 at most."""


def stream_targets(figures: dict[str, Any]) -> list[Target]:
    """The event streams' targets (:mod:`benchmarks.streams`); none for a run
    without them."""
    found = figures.get("streams")
    if not found:
        return []
    idle, dl = found["idle"], found["delivery"]
    return [
        Target(
            "idle stream subscribers on one worker: worker RSS per subscriber",
            idle["worker_rss_per_subscriber_bytes"] / 1024,
            STREAM_IDLE_LIMIT_KB,
            True,
            " KB",
            f"{idle['subscribers']:,} public streams on {idle['tables']} tables; Redis "
            f"used_memory {idle['redis_used_memory_per_subscriber_bytes']:,.0f} B per subscriber",
        ),
        Target(
            "stream delivery p99: a move's commit to its event at every subscriber",
            dl["all_ms"]["p99"],
            STREAM_P99_LIMIT_MS,
            True,
            " ms",
            f"{dl['subscribers']} subscribers ({dl['seat_subscribers']} seat streams) of "
            f"{dl['tables']} tables, two workers, {dl['commits_per_s']:,.0f} commits/s; "
            f"p50 {_n(dl['all_ms']['p50'])} ms; {dl['all_ms']['n']:,} deliveries",
        ),
        Target(
            "stream events a subscriber missed (that another of its table got)",
            dl["missed"],
            0,
            True,
            "",
            f"{dl['events']:,} events",
        ),
        *_exchange_stream_targets(figures),
        *_stream_abuse_targets(found),
    ]


STREAM_FANOUT_LIMIT_US = 20.0
"""Issue 39: server CPU per move that one more stream on a busy table costs, at most."""


STREAM_FLOOD_RATIO = 2.0
"""Issue 39: a seat's move while one address holds streams until refused,
p99 ÷ its quiet p99, at most."""


def _stream_abuse_targets(found: dict[str, Any]) -> list[Target]:
    """Issue 39's stream figures: the cost of one more stream on a busy
    table (:mod:`benchmarks.stream_fanout`), and an instance under one
    address's stream flood (:mod:`benchmarks.stream_flood`), and under one
    address's slow request bodies (:mod:`benchmarks.slow_bodies`)."""
    out = []
    fan = found.get("fanout")
    if fan:
        out.append(
            Target(
                "one more stream on a busy table: server CPU per move per stream",
                fan["us_per_move_per_stream"],
                STREAM_FANOUT_LIMIT_US,
                True,
                " µs",
                f"{fan['streams']} {fan.get('kind', 'public')} streams on a Sevens table, a turn "
                f"every {fan['period_s'] * 1000:g} ms: {_n(fan['cpu_ms_per_turn_with'])} ms a "
                f"turn with them, {_n(fan['cpu_ms_per_turn_without'])} ms without; runs "
                + ", ".join(_n(v) for v in fan["us_per_move_per_stream_runs"])
                + f" µs; events missed {fan['missed']}",
            )
        )
    flood = found.get("flood")
    if flood:
        quiet, flooded, attacker = flood["quiet"], flood["flooded"], flood["attacker"]
        failed = sum(flooded["moves"]["failed"].values()) + sum(
            flooded["readyz"]["failed"].values()
        )
        answers = ", ".join(f"{n} × {why}" for why, n in sorted(attacker["answers"].items()))
        out += [
            Target(
                "one address holding streams until refused: a seat's move from another, "
                "p99 ÷ quiet p99",
                flood["move_p99_ratio"],
                STREAM_FLOOD_RATIO,
                True,
                "×",
                f"{_n(flooded['moves']['p99'])} ms against {_n(quiet['moves']['p99'])} ms; "
                f"/readyz p99 {_n(flooded['readyz']['p99'])} ms against "
                f"{_n(quiet['readyz']['p99'])} ms; the attacker held {attacker['held']} "
                f"streams ({answers})",
            ),
            Target(
                "… moves and /readyz not answered 2xx in time during the flood",
                failed,
                0,
                True,
                "",
                f"{flooded['moves']['n'] + flooded['readyz']['n']:,} answered",
            ),
        ]
    slow = found.get("slow_bodies")
    if slow:
        quiet, flooded = slow["quiet"], slow["flood"]
        answers = ", ".join(
            f"{n} × {why}" for why, n in sorted(flooded["attacker_answers"].items())
        )
        out += [
            Target(
                "one address holding slow request bodies: /readyz from another, p99 ÷ quiet p99",
                slow["readyz_p99_ratio"],
                STREAM_FLOOD_RATIO,
                True,
                "×",
                f"{_n(flooded['readyz_p99_ms'])} ms against {_n(quiet['readyz_p99_ms'])} ms; "
                f"the attacker held at most {flooded['attacker_held_at_most']} connections "
                f"({answers})",
            ),
            Target(
                "… /readyz not answered 200 in time during the slow bodies",
                sum(flooded["readyz_not_answered"].values()),
                0,
                True,
                "",
                f"{flooded['readyz_answered']:,} answered",
            ),
        ]
    return out


STREAM_REQUESTS_LIMIT = 1.05
"""Issue 18, at 7 seats with the seats reading the streams: HTTP requests
per pass (per move for Sevens and May I?), at most."""


STREAM_CPU_RATIO = {"pass": 1.5, "move": 2.0}
"""Issue 44, at 7 seats with every seat reading its stream: server CPU per
pass (My Ship Sails) or move (Sevens, May I?), stream delivery included, ÷
the stream floor's CPU per move in the same run, at most."""


STREAM_RATE_RATIO = 0.6
"""… passes (moves) per second ÷ the stream floor's moves/s, at least."""


def _exchange_stream_targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 44's speed targets, for each game at 7 seats with every seat
    following its seat stream: HTTP requests per move (issue 18), and CPU
    and throughput as ratios to the stream floor of the same run
    (:mod:`benchmarks.stream_floor`). boardgame.io's passes/s (the peer
    plays only My Ship Sails) stay in the details, not a target on 2
    shared cores."""
    found = figures["streams"]
    ex = found.get("exchange")
    if not ex:
        return []
    vs = figures.get("versus", {})
    views = vs.get("7", {}).get("service", {})
    peer = vs.get("7", {}).get("memory")
    peer_rate = peer["passes_per_s"] if peer else math.nan
    floor = found.get("floor")
    unfloored = "" if floor else "the stream floor not measured"
    floor_cpu = floor["cpu_ms_per_move"] if floor else math.nan
    floor_rate = floor["moves_per_s"] if floor else math.nan
    rows = [
        (
            "My Ship Sails passes",
            "pass",
            ex["requests_per_pass_in_play"],
            ex["cpu_ms_per_pass"],
            ex["passes_per_s"],
            f"with seat views {_n(views.get('requests_per_pass', math.nan))} requests, "
            f"{_n(views.get('cpu_ms_per_pass', math.nan))} ms, "
            f"{_n(views.get('passes_per_s', math.nan))}/s",
        )
    ]
    for key, label in (("sevens/7", "Sevens turns"), ("may-i/7", "May I? moves")):
        g = found.get("games", {}).get(key)
        if g:
            plain = figures.get("games", {}).get(key, {})
            rows.append(
                (
                    label,
                    "move",
                    g["requests_per_move_in_play"],
                    g["cpu_ms_per_move"],
                    g["moves_per_s"],
                    f"without streams {_n(plain.get('cpu_ms_per_move', math.nan))} ms, "
                    f"{_n(plain.get('moves_per_s', math.nan))}/s",
                )
            )
    out = []
    for label, unit, requests, cpu, rate, before in rows:
        head = f"{label}, 7 seats, from the seat streams"
        plural = "passes" if unit == "pass" else "moves"
        peer_detail = (
            f"; boardgame.io in-memory {peer_rate:,.0f} passes/s ({_n(ratio(rate, peer_rate))}×)"
            if peer
            else ""
        )
        out += [
            Target(
                f"{head}: HTTP requests per {unit} in play",
                requests,
                STREAM_REQUESTS_LIMIT,
                True,
                "",
                "passes and deals" if unit == "pass" else "moves, asks, answers, deals",
            ),
            Target(
                f"{head}: server CPU per {unit} ÷ the stream floor's per move (gunicorn + "
                "Redis, stream delivery included)",
                ratio(cpu, floor_cpu),
                STREAM_CPU_RATIO[unit],
                True,
                "×",
                f"{_n(cpu)} ms against {_n(floor_cpu)} ms (benchmarks/floor.py); {before}"
                if floor
                else "",
                unfloored,
            ),
            Target(
                f"{head}: {plural}/s ÷ the stream floor's moves/s",
                ratio(rate, floor_rate),
                STREAM_RATE_RATIO,
                False,
                "×",
                f"{rate:,.0f} against {floor_rate:,.0f}/s{peer_detail}" if floor else "",
                unfloored,
            ),
        ]
    return out


def scaling_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """Issue 44's per-core scaling (:mod:`benchmarks.scaling`): (header, rows),
    ``None`` for a run without it."""
    found = figures.get("streams", {}).get("scaling")
    if not found or not found.get("rows"):
        return None
    store = f"a Redis Cluster of {found['shards']} primaries" if found["shards"] else "one Redis"
    header = [
        f"7-seat My Ship Sails from the seat streams, {store}, {found['cores']} cores",
        "passes/s",
        "passes/s per worker",
        "÷ 1 worker's passes/s",
        "server CPU per pass (ms)",
    ]
    first = found["rows"][0]["passes_per_s"]
    rows = [
        [
            f"WEB_CONCURRENCY={row['workers']}",
            _n(row["passes_per_s"]),
            _n(row["passes_per_s_per_worker"]),
            f"{_n(ratio(row['passes_per_s'], first))}×",
            _n(row["cpu_ms_per_pass"]),
        ]
        for row in found["rows"]
    ]
    return header, rows


def streams_table(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The event streams' figures (:mod:`benchmarks.streams`): (figure, value)."""
    found = figures["streams"]
    idle, dl = found["idle"], found["delivery"]
    mb = 1024 * 1024
    out = [
        (
            f"{idle['subscribers']:,} idle public streams on {idle['tables']} tables, one worker: "
            "worker RSS before → after (MB)",
            f"{idle['worker_rss_before_bytes'] / mb:.1f} → "
            f"{idle['worker_rss_after_bytes'] / mb:.1f}",
        ),
        (
            "worker RSS per idle subscriber (KB)",
            _n(idle["worker_rss_per_subscriber_bytes"] / 1024),
        ),
        (
            "Redis used_memory per idle subscriber (B; Δ of its clients' buffers, all "
            "subscribers; Redis clients before → after)",
            f"{_n(idle['redis_used_memory_per_subscriber_bytes'])} "
            f"({_n(idle.get('redis_client_buffers_delta_bytes', math.nan))} B; "
            f"{idle['redis_clients_before']} → {idle['redis_clients_after']})",
        ),
        (
            "streams refused while opening them",
            ", ".join(f"{n} × {why}" for why, n in idle.get("refused", {}).items()) or "none",
        ),
        (f"seconds to open the {idle['subscribers']:,} streams", _n(idle["open_s"])),
        (
            f"delivery: {dl['subscribers']} subscribers ({dl['seat_subscribers']} seat streams) "
            f"of {dl['tables']} busy tables, two workers: commits/s",
            _n(dl["commits_per_s"]),
        ),
    ]
    for key, label in (
        ("event_ms", "public events"),
        ("seat_ms", "seat frames"),
        ("all_ms", "all"),
    ):
        m = dl[key]
        out.append(
            (
                f"delivery delay, {label}: p50 / p95 / p99 (ms; n)",
                f"{_n(m['p50'])} / {_n(m['p95'])} / {_n(m['p99'])} ({m['n']:,})",
            )
        )
    out.append(("events a subscriber missed", f"{dl['missed']} of {dl['events']:,}"))
    ex = found.get("exchange")
    if ex:
        views = figures.get("versus", {}).get("7", {}).get("service")
        lat, put = ex["latency_ms"], ex["put_latency_ms"]
        out += [
            (
                "7 seats at once, hands from the seat streams: passes/s (with seat views)",
                f"{_n(ex['passes_per_s'])} ({_n(views['passes_per_s']) if views else '–'})",
            ),
            (
                "… HTTP requests per pass: in play / with creation and streams (with seat views)",
                f"{_n(ex['requests_per_pass_in_play'])} / {_n(ex['requests_per_pass'])} "
                f"({_n(views.get('requests_per_pass', math.nan)) if views else '–'})",
            ),
            (
                "… pass to its seat knowing its new hand, p50 / p99 (ms)",
                f"{_n(lat['p50'])} / {_n(lat['p99'])}",
            ),
            ("… pass answer alone, p50 / p99 (ms)", f"{_n(put['p50'])} / {_n(put['p99'])}"),
            ("… server CPU per pass (ms; gunicorn + Redis)", _n(ex["cpu_ms_per_pass"])),
        ]
        if ex.get("notes"):
            notes = ", ".join(f"{k}: {v}" for k, v in sorted(ex["notes"].items()))
            out.append(("… notes", notes))
    for key, label in (("sevens/7", "Sevens turns"), ("may-i/7", "May I? moves")):
        g = found.get("games", {}).get(key)
        if g:
            out.append(
                (
                    f"{label}, 7 seats, turns from the seat streams: moves/s; server CPU per "
                    "move (ms); HTTP requests per move in play; latency p50 / p99 (ms)",
                    f"{_n(g['moves_per_s'])}; {_n(g['cpu_ms_per_move'])}; "
                    f"{_n(g['requests_per_move_in_play'])}; "
                    f"{_n(g['latency_ms']['p50'])} / {_n(g['latency_ms']['p99'])}",
                )
            )
    floor = found.get("floor")
    if floor:
        out.append(
            (
                f"the stream floor, {floor['tables']} tables of {floor['seats']} seats: a minimal "
                "move pushed to every seat's stream: moves/s; server CPU per move (ms); latency "
                "p50 / p99 (ms)",
                f"{_n(floor['moves_per_s'])}; {_n(floor['cpu_ms_per_move'])}; "
                f"{_n(floor['latency_ms']['p50'])} / {_n(floor['latency_ms']['p99'])}",
            )
        )
    return out


STREAMS_NOTE = (
    "Event streams (benchmarks/streams.py): idle subscribers are aiohttp connections that "
    "read their stream's first frame; the worker's VmRSS and Redis's used_memory are read "
    "before and after opening them, after 100 first subscribers kept open (the Hub and Redis "
    "pool there). Delivery "
    "delay: the subscriber's clock on receipt less the event's at_ms (the Redis clock when "
    "the move read the table, a round trip before its commit; whole ms); seat frames from "
    "the at_ms of the last event before them. The driver makes one simultaneous exchange per "
    "table every {period:g} s (the tables spread over the period); driver, subscribers and "
    "servers share the machine. The stream floor (benchmarks/floor.py, "
    "benchmarks/stream_floor.py): the least a move pushed to every seat's stream costs on "
    "this stack (Flask, gunicorn's gevent workers, redis-py, the service's Redis client): a "
    "PUT that reads the slot and commits with one Lua compare-and-set that PUBLISHes the new "
    "state, one PSUBSCRIBE per worker process, one frame per seat stream; no rules, log, "
    "views or auth. Its seats play in turn, as the Sevens load's do."
)
