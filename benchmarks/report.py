"""Figures to targets, a Markdown table, a console report and the latency plot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .measures import PERCENTILES, Target, median, ratio

PEER_LABELS = {
    "service": "card-referee",
    "memory": "boardgame.io, in-memory storage",
    "flatfile": "boardgame.io, FlatFile storage",
}


GAME_LABELS = {"sevens": "Sevens turns", "may-i": "May I? moves"}


def games_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The other games' moves (:func:`benchmarks.versus.games`): (header, rows)."""
    found = figures["games"]
    header = [
        f"{found['tables']} tables at once",
        "moves/s",
        "server CPU per move (ms)",
        "latency p50 / p99 (ms)",
        "lost races",
        "refusals",
    ]
    out = []
    for key, m in found.items():
        if "/" not in key:
            continue
        game, seats = key.split("/")
        errors = ", ".join(f"{n} × {k}" for k, n in sorted(m["errors"].items())) or "none"
        out.append(
            [
                f"{GAME_LABELS[game]}, {seats} seats",
                _n(m["moves_per_s"]),
                _n(m["cpu_ms_per_move"]),
                f"{_n(m['latency_ms']['p50'])} / {_n(m['latency_ms']['p99'])}",
                f"{_n(m['lost_races'])} in {m['moves']:,} moves",
                errors,
            ]
        )
    return header, out


def versus_targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 13's targets at its load (:mod:`benchmarks.versus`): per table size,
    server CPU per pass and passes/s against boardgame.io; no lost race at 7 seats."""
    vs = figures.get("versus")
    if not vs:
        return []
    peer = vs.get("peer", {})
    skipped = "" if peer.get("ran") else f"boardgame.io not run: {peer.get('why', '?')}"
    out = []
    for seats in ("4", "7"):
        svc = vs[seats]["service"]
        out.append(
            Target(
                f"{seats} seats at once: server CPU per pass (gunicorn + Redis)",
                svc["cpu_ms_per_pass"],
                1.0,
                True,
                " ms",
                f"Redis {svc['redis_cpu_ms_per_pass']:.2f} ms of it; seat reads and deals included",
            )
        )
        for peer_name, limit in (("memory", 1.0), ("flatfile", 3.0)):
            other = vs[seats].get(peer_name)
            value = ratio(svc["passes_per_s"], other["passes_per_s"]) if other else math.nan
            failed = vs.get("peer_errors", {}).get(peer_name)
            why = skipped or (f"boardgame.io {peer_name} failed: {failed}" if failed else "")
            out.append(
                Target(
                    f"{seats} seats at once: service passes/s ÷ {PEER_LABELS[peer_name]}",
                    value,
                    limit,
                    False,
                    "×",
                    f"{svc['passes_per_s']:,.0f} against {other['passes_per_s']:,.0f}/s"
                    if other
                    else "",
                    why if not other else "",
                )
            )
    for key, moves in sorted(figures.get("games", {}).items()):
        if "/" not in key:
            continue
        game, seats = key.split("/")
        out.append(
            Target(
                f"{GAME_LABELS[game]}, {seats} seats: server CPU per move (gunicorn + Redis)",
                moves["cpu_ms_per_move"],
                1.0,
                True,
                " ms",
                f"{moves['moves_per_s']:,.0f} moves/s; creation, deals and seat reads included",
            )
        )
    seven = vs["7"]["service"]
    out.append(
        Target(
            "lost version races when all 7 seats pass at once",
            seven["lost_races"],
            0,
            True,
            "",
            f"in {seven['passes_whole_run']:,} passes",
        )
    )
    return out


def targets(figures: dict[str, Any]) -> list[Target]:
    """The targets of issues 6 and 13, from the figures of a run."""
    load = figures["load"]
    red = figures["redis"]
    mem = figures["memory"]
    out = [
        Target(
            "pass submissions/s ÷ floor requests/s",
            load["ratios"]["passes_per_s"],
            0.5,
            False,
            "×",
        ),
        Target(
            "p99 pass latency ÷ floor p99",
            load["ratios"]["pass_p99"],
            2.5,
            True,
            "×",
        ),
        Target(
            "pass submissions/s ÷ minimal-move floor requests/s",
            load["ratios"].get("passes_per_s_to_move", math.nan),
            0.6,
            False,
            "×",
            "both at the same requests in flight; the service's load also reads views",
            "" if "move" in load else "minimal-move floor not measured",
        ),
        Target(
            "Redis round trips of an uncontended pass (max)",
            red["uncontended"]["pass"]["round_trips"]["max"],
            2,
            True,
            "",
            "; ".join(
                f"{k} {v:g}" for k, v in red["uncontended"]["pass"]["commands_sent_by_name"].items()
            ),
        ),
    ]
    con = red["contended"]
    storm = con["max_retries_of_one_pass"]
    busy = load["service"]["statuses_total"].get("503", 0)
    out.append(
        Target(
            "retries of one pass when all seats pass at once (max)",
            storm if busy == 0 else math.inf,
            con["seats"] - 1,
            True,
            "",
            f"bound: one lost race per other seat; mean {con['retries']['mean']:.2f}; "
            f"503 under load: {busy}",
        )
    )
    played = mem["played"]
    out.append(
        Target(
            "Redis memory of a 7-seat table after a 5-round match (median)",
            played["after_match"]["median"],
            MATCH_MEMORY_LIMIT,
            True,
            "B",
            f"{played['tables']} tables; largest {played['after_match']['max']:,.0f} B; "
            f"median {played['match_exchanges']['median']:g} exchanges, "
            f"{played['events']['median']:g} events, "
            f"{played['events_kept']['median']:g} kept; 100,000 such tables "
            f"{played['after_match']['median'] * 100_000 / 2**30:.2f} GiB",
        )
    )
    out += record_targets(mem)
    out += growth_targets(mem.get("growth", {}))
    exp = mem["expiry"]
    out.append(
        Target(
            "keys left by expired tables",
            exp["keys_left"] + exp["keys_without_expiry"],
            0,
            True,
            "",
            f"{exp['tables']} tables, TTL {exp['ttl_seconds']} s; keys without expiry: "
            f"{exp['keys_without_expiry']}",
        )
    )
    out.append(
        Target(
            "engine: 7-seat exchanges resolved/s",
            figures["engine"]["7"]["resolutions_per_s"],
            100_000,
            False,
            "/s",
        )
    )
    return (
        out
        + long_round_targets(figures)
        + check_targets(figures)
        + versus_targets(figures)
        + stream_targets(figures)
        + _replica_targets(figures)
        + _clock_targets(figures)
        + _failover_targets(figures)
        + _quota_targets(figures)
    )


def _quota_targets(figures: dict[str, Any]) -> list[Target]:
    from . import bot_quota  # it uses this module

    return bot_quota.targets(figures)


MATCH_MEMORY_LIMIT = 16_384
"""Issue 39: a 7-seat table after a 5-round match, round records included
(3.8 KB before records, 50 KB with them uncompacted)."""

RECORD_MOVE_LIMIT = 60
"""Issue 39: Redis bytes per recorded move (180-230 before compaction)."""


def record_targets(mem: dict[str, Any]) -> list[Target]:
    """Round records' Redis cost (benchmarks/record_memory.py): bytes per
    recorded move (the largest table is a figure of the memory rows)."""
    per_move = mem["played"].get("record_per_move")
    found = []
    if per_move is not None:
        found.append(
            Target(
                "Redis bytes per recorded move, 7-seat tables after a 5-round match (median)",
                per_move["median"],
                RECORD_MOVE_LIMIT,
                True,
                "B",
                f"{per_move['tables']} tables, headers included; largest {per_move['max']:.1f} B",
            )
        )
    return found


def _failover_targets(figures: dict[str, Any]) -> list[Target]:
    from . import failover  # it uses this module

    found = figures.get("failover") or {}
    if "skipped" in found:
        return [
            Target(
                "acknowledged moves lost over 2 x SENTINEL FAILOVER and 2 x SIGKILL",
                math.nan,
                failover.LOST_LIMIT,
                True,
                "",
                skipped=found["skipped"],
            )
        ]
    return failover.targets(figures)


def _clock_targets(figures: dict[str, Any]) -> list[Target]:
    from . import clocks  # it uses this module

    return clocks.targets(figures)


def _replica_targets(figures: dict[str, Any]) -> list[Target]:
    from . import replicas  # it uses this module

    return replicas.targets(figures)


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
    address's stream flood (:mod:`benchmarks.stream_flood`)."""
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
    return out


STREAM_REQUESTS_LIMIT = 1.05
"""Issue 18, at 7 seats with the seats reading the streams: HTTP requests
per pass (per move for Sevens and May I?), at most."""

STREAM_CPU_LIMIT_MS = 1.2
"""… server CPU per pass or move, stream delivery included, at most."""

STREAM_PEER_RATIO = 0.5
"""… passes (moves) per second ÷ boardgame.io in-memory's passes/s in the
same run, at least."""


def _exchange_stream_targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 18's speed targets, for each game at 7 seats with every seat
    following its seat stream: requests, CPU and throughput against
    boardgame.io in-memory (the peer plays only My Ship Sails: Sevens and
    May I? moves/s are set against its passes/s)."""
    found = figures["streams"]
    ex = found.get("exchange")
    if not ex:
        return []
    vs = figures.get("versus", {})
    views = vs.get("7", {}).get("service", {})
    peer = vs.get("7", {}).get("memory")
    ran = vs.get("peer", {}).get("ran")
    skipped = "" if peer else f"boardgame.io not run: {vs.get('peer', {}).get('why', '?')}"
    if ran and not peer:
        skipped = f"boardgame.io memory failed: {vs.get('peer_errors', {}).get('memory', '?')}"
    peer_rate = peer["passes_per_s"] if peer else math.nan
    floor = found.get("floor")
    floor_cpu = (
        f"; the stream floor {_n(floor['cpu_ms_per_move'])} ms (benchmarks/floor.py)"
        if floor
        else ""
    )
    floor_rate = (
        f"; the stream floor {floor['moves_per_s']:,.0f}/s, "
        f"{_n(ratio(floor['moves_per_s'], peer_rate))}×"
        if floor and peer
        else ""
    )
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
                f"{head}: server CPU per {unit} (gunicorn + Redis, stream delivery included)",
                cpu,
                STREAM_CPU_LIMIT_MS,
                True,
                " ms",
                before + floor_cpu,
            ),
            Target(
                f"{head}: {plural}/s ÷ boardgame.io in-memory passes/s",
                ratio(rate, peer_rate),
                STREAM_PEER_RATIO,
                False,
                "×",
                f"{rate:,.0f} against {peer_rate:,.0f}/s{floor_rate}" if peer else "",
                skipped,
            ),
        ]
    return out


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


LONG_ROUND_LIMIT = 1.5
"""A never-ending May I? round: the 4,000-move figure over the 100-move one at most."""


def long_round_targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 24: a May I? round nobody lays down in stays flat
    (:mod:`benchmarks.long_round`); none for a run without it."""
    found = figures.get("long_round")
    if not found:
        return []
    points = found["checkpoints"]
    first, mid, last = (points[k] for k in ("1", "100", "4000"))
    return [
        Target(
            "May I? state bytes after 4,000 moves ÷ after 100",
            found["ratio_state_bytes"],
            LONG_ROUND_LIMIT,
            True,
            "×",
            f"{first['state_bytes']:,} / {mid['state_bytes']:,} / {last['state_bytes']:,} B "
            f"after 1 / 100 / 4,000 moves; the table's keys {last['table_memory_bytes']:,} B "
            f"with {last['history_texts']} moves of history",
        ),
        Target(
            "May I? move server time after 4,000 moves ÷ after 100",
            found["ratio_move_ms"],
            LONG_ROUND_LIMIT,
            True,
            "×",
            f"{first['move_ms']:.2f} / {mid['move_ms']:.2f} / {last['move_ms']:.2f} ms "
            f"(median of {found['repeats']}) after 1 / 100 / 4,000 moves",
        ),
    ]


GROWTH_FIGURES = {
    "public_view_bytes": "public view",
    "match_state_bytes": "stored state (the match's part)",
}
"""The figures of :mod:`.growth` that must stay flat, and their names."""


def growth_targets(grown: dict[str, Any]) -> list[Target]:
    """Per game: its public view and the match's part of its stored state
    after many rounds of an open match, as a ratio to after 1 round (flat:
    at most :data:`.growth.FLAT`)."""
    from .growth import FLAT

    out = []
    for game, g in grown.items():
        one, many = g["after_one_round"], g["after_rounds"]
        more = {
            "public_view_bytes": ("seat view", "seat_view_bytes"),
            "match_state_bytes": ("whole state", "state_bytes"),
        }
        for key, label in GROWTH_FIGURES.items():
            name, other = more[key]
            detail = (
                f"{g['variant']}, {g['seats']} seats: {one[key]:,} → {many[key]:,} B; "
                f"{name} {one[other]:,} → {many[other]:,} B"
            )
            if key == "match_state_bytes":
                detail += (
                    f"; Redis memory {one['memory_bytes']:,} → {many['memory_bytes']:,} B "
                    "(the list of rounds keeps the newest ROUNDS_KEPT)"
                )
            out.append(
                Target(
                    f"{game}: {label} after {g['rounds']} rounds ÷ after 1",
                    g["ratios"][key],
                    FLAT,
                    True,
                    "×",
                    detail,
                )
            )
    return out


HEAVY_CHECK_LIMIT = 3.0
"""Issue 24: no request costs more than a few moves."""


def check_targets(figures: dict[str, Any]) -> list[Target]:
    """The dearest input of each stateless check against a pass, by server
    time (benchmarks/heavy_checks.py); none for runs that did not measure it."""
    checks = figures.get("checks")
    if not checks:
        return []
    pass_ms = checks["pass_ms"]
    return [
        Target(
            f"{path}, dearest input: server time ÷ a pass's",
            one["ms"] / pass_ms,
            HEAVY_CHECK_LIMIT,
            True,
            "×",
            f"{one['ms']:.1f} ms against {pass_ms:.1f} ms; answered {one['status']}",
        )
        for path, one in checks["checks"].items()
    ]


def _n(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(figure, referee, floor, ratio) for the Markdown and console tables."""
    load = figures["load"]
    svc, flo, rat = load["service"], load["floor"], load["ratios"]
    out = [
        (
            "throughput (req/s): passes vs floor GETs",
            _n(svc["passes_per_s"]),
            _n(flo["requests_per_s"]),
            _n(rat["passes_per_s"]),
        ),
        (
            "throughput (req/s): every request of the game",
            _n(svc["requests_per_s"]),
            _n(flo["requests_per_s"]),
            _n(rat["requests_per_s"]),
        ),
    ]
    mov = load.get("move")
    if mov:
        out += [
            (
                "throughput (req/s): passes vs minimal-move floor PUTs",
                _n(svc["passes_per_s"]),
                _n(mov["requests_per_s"]),
                _n(rat["passes_per_s_to_move"]),
            ),
            (
                "pass latency p50 / p99 (ms) vs minimal move",
                f"{_n(svc['pass']['p50'])} / {_n(svc['pass']['p99'])}",
                f"{_n(mov['move']['p50'])} / {_n(mov['move']['p99'])}",
                f"{_n(rat['move_p50'])} / {_n(rat['move_p99'])}",
            ),
            (
                "server CPU per request (ms) vs minimal move",
                _n(svc["cpu_ms_per_request"]),
                _n(mov["cpu_ms_per_request"]),
                _n(rat["cpu_ms_per_request_to_move"]),
            ),
        ]
    for kind, label in (("pass", "pass"), ("view", "public view")):
        for q in PERCENTILES:
            out.append(
                (
                    f"{label} latency p{q} (ms)",
                    _n(svc[kind][f"p{q}"]),
                    _n(flo["floor"][f"p{q}"]),
                    _n(rat[f"{kind}_p{q}"]),
                )
            )
    out.append(
        (
            "server CPU per request (ms; gunicorn + Redis)",
            _n(svc["cpu_ms_per_request"]),
            _n(flo["cpu_ms_per_request"]),
            _n(rat["cpu_ms_per_request"]),
        )
    )
    red = figures["redis"]
    un = red["uncontended"]
    out.append(
        (
            "Redis round trips per pass, uncontended (mean / max)",
            f"{_n(un['pass']['round_trips']['mean'])} / {_n(un['pass']['round_trips']['max'])}",
            "1",
            _n(un["pass"]["round_trips"]["mean"]),
        )
    )
    out.append(
        (
            "Redis commands per pass, uncontended (sent / executed incl. Lua)",
            f"{_n(un['pass']['commands_sent']['mean'])} / {_n(un['pass']['commands_executed'])}",
            "1 / 1",
            _n(un["pass"]["commands_executed"]),
        )
    )
    con = red["contended"]
    out.append(
        (
            f"Redis round trips per pass, {con['seats']} seats at once (mean / max)",
            f"{_n(con['round_trips']['mean'])} / {_n(con['round_trips']['max'])}",
            "1",
            _n(con["round_trips"]["mean"]),
        )
    )
    out.append(
        (
            f"Redis commands executed per pass, {con['seats']} seats at once (incl. Lua)",
            _n(con["commands_executed"]),
            "1",
            _n(con["commands_executed"]),
        )
    )
    out.append(
        (
            f"retries per pass, {con['seats']} seats at once (mean / max)",
            f"{_n(con['retries']['mean'])} / {_n(con['max_retries_of_one_pass'])}",
            "0",
            "–",
        )
    )
    ul = red["under_load"]
    out.append(
        (
            "under load: Redis commands executed per pass (whole mix ÷ passes)",
            _n(ul["commands_per_pass"]),
            _n(ul["floor_commands_per_request"]),
            _n(ratio(ul["commands_per_pass"], ul["floor_commands_per_request"])),
        )
    )
    out.append(
        (
            "under load: commit attempts per write (1 = no retry)",
            _n(ul["commits_per_write"]),
            "–",
            "–",
        )
    )
    mem = figures["memory"]
    played = mem["played"]
    idle = mem["idle"]
    out += [
        (
            f"memory of a 7-seat table after 1 round (B, median of {played['tables']})",
            _n(played["after_one_round"]["median"]),
            "–",
            "–",
        ),
        (
            f"memory of a 7-seat table after a 5-round match (B, median of {played['tables']})",
            _n(played["after_match"]["median"]),
            "–",
            "–",
        ),
        (
            f"memory per idle table, {idle['tables']:,} measured (B: used_memory Δ / MEMORY USAGE)",
            f"{_n(idle['used_memory_delta_per_table'])} / {_n(idle['memory_usage_per_table'])}",
            f"blob {_n(figures['state_size']['blob_bytes'])}",
            "–",
        ),
        (
            f"memory of {idle['extrapolated_tables']:,} idle tables (MB, extrapolated)",
            _n(idle["extrapolated_used_memory_bytes"] / 1e6),
            "–",
            "–",
        ),
    ]
    largest = mem.get("largest")  # runs before issue 39 did not measure it
    if largest is not None:
        out.append(
            (
                f"the largest table: {largest['records']} records of "
                f"{largest['entries_per_record']:,} entries, every one at its cap (B; "
                f"{largest['bytes_per_entry']:.1f} B an entry) / 100,000 such tables (GiB)",
                f"{_n(largest['total'])} / {largest['total'] * 100_000 / 2**30:.1f}",
                "–",
                "–",
            )
        )
    keyed = mem.get("keyed")  # runs before issue 24 did not measure it
    if keyed is not None:
        for what, one in keyed["records"].items():
            out.append(
                (
                    f"Idempotency-Key record of a {what} (B, record + index entry)",
                    _n(one["bytes"]),
                    "–",
                    "–",
                )
            )
        kt = keyed["table"]
        out.append(
            (
                f"Idempotency-Key records of a {kt['seats']}-seat May I? table, a key on every "
                f"move, after 1 round ({kt['records']} records) / all tokens at the cap (B)",
                f"{_n(kt['records_bytes'] + kt['indexes_bytes'])} / {_n(kt['at_cap_bytes'])}",
                "–",
                "–",
            )
        )
    eng = figures["engine"]
    for seats in ("4", "7"):
        e = eng[seats]
        out.append(
            (
                f"engine, {seats} seats: exchanges resolved/s (resolution step)",
                _n(e["resolutions_per_s"]),
                "–",
                "–",
            )
        )
        out.append(
            (
                f"engine, {seats} seats: exchanges/s via choose_pass (every seat)",
                _n(e["exchanges_via_choose_pass_per_s"]),
                "–",
                "–",
            )
        )
        out.append(
            (f"engine, {seats} seats: full rounds simulated/s", _n(e["rounds_per_s"]), "–", "–")
        )
    return out


def versus_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Issue 13's table: (header, rows); one column per server, rows per table size."""
    vs = figures["versus"]
    ran = vs.get("peer", {}).get("ran", False)
    names = ["service", "memory", "flatfile"]
    header = [
        f"{vs['tables']} tables at once",
        "card-referee (gunicorn + Redis)",
        PEER_LABELS["memory"],
        PEER_LABELS["flatfile"],
    ]
    errors = vs.get("peer_errors", {})
    missing = {name: "failed" if name in errors else "–" if ran else "skipped" for name in names}
    out = []
    for seats in ("7", "4"):
        cells = [vs[seats].get(name) for name in names]

        def row(label: str, show: Any, cells: list[Any] = cells, seats: str = seats) -> None:
            out.append(
                [f"{seats} seats: {label}"]
                + [show(c) if c else missing[n] for n, c in zip(names, cells, strict=True)]
            )

        row("passes/s", lambda c: _n(c["passes_per_s"]))
        row("server CPU per pass (ms)", lambda c: _n(c["cpu_ms_per_pass"]))
        row(
            "pass latency p50 / p99 (ms)",
            lambda c: f"{_n(c['latency_ms']['p50'])} / {_n(c['latency_ms']['p99'])}",
        )
        svc = cells[0]
        if "put_latency_ms" in svc:
            put = svc["put_latency_ms"]
            out.append(
                [
                    f"{seats} seats: pass answer alone p50 / p99 (ms)",
                    f"{_n(put['p50'])} / {_n(put['p99'])}",
                    "–",
                    "–",
                ]
            )
        if "requests_per_pass" in svc:
            out.append(
                [
                    f"{seats} seats: HTTP requests per pass (passes, seat reads, deals)",
                    _n(svc["requests_per_pass"]),
                    "–",
                    "–",
                ]
            )
        out.append(
            [
                f"{seats} seats: lost version races",
                f"{_n(svc['lost_races'])} in {svc['passes_whole_run']:,} passes",
                "–",
                "–",
            ]
        )
    return header, out


def _pct(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.0%}"


def versus_notes(figures: dict[str, Any]) -> list[str]:
    """What the issue 13 table measures and every asymmetry, one line each."""
    vs = figures["versus"]
    meta = figures["meta"]
    peer = vs.get("peer", {})
    lines = [
        f"card-referee: gunicorn {meta['gunicorn']}; Redis {meta['redis_settings']}. "
        "boardgame.io 0.50.2: its own Server in one node process "
        "(benchmarks/peers/boardgameio), ActivePlayers.ALL, server-only moves, "
        "ignoreStaleStateID; lost version races do not apply to it (one process, "
        "one queue per match).",
        f"Medians of {vs['runs']} alternated run(s) of {vs['duration_s']:g} s per server "
        "and table size. Every seat of a table passes at the same moment; the next exchange "
        "starts when every seat knows its new hand. Pass latency: from sending the pass to "
        "the seat knowing its new hand (boardgame.io: the pushed state arrives; card-referee: "
        "the pass answer for the seat that resolved the exchange, else its seat view read "
        "once all passes are answered). Server CPU per pass: the servers' CPU over the whole "
        "run ÷ its passes.",
    ]
    cells = [(name, cell) for seats in ("4", "7") for name, cell in vs[seats].items()]
    if cells:
        others = median([c.get("other_cpu_share", math.nan) for _, c in cells])
        ours = median([c.get("client_cpu_share", math.nan) for n, c in cells if n == "service"])
        theirs = median([c.get("client_cpu_share", math.nan) for n, c in cells if n != "service"])
        lines.append(
            f"Other processes used {_pct(others)} of the machine during these runs (median); "
            f"the load generators {_pct(ours)} of a core (service) and {_pct(theirs)} "
            "(boardgame.io)."
        )
    if not peer.get("ran"):
        lines.append(f"boardgame.io rows skipped: {peer.get('why', '?')}.")
    for name, error in vs.get("peer_errors", {}).items():
        lines.append(f"boardgame.io {name} failed and was left out: {error}")
    lines += [f"Asymmetry — {a}." for a in vs.get("asymmetries", [])]
    return lines


def markdown(figures: dict[str, Any]) -> str:
    """The figures and the targets as Markdown."""
    meta = figures["meta"]
    lines = [
        f"Run of {meta['finished']} on {meta['cores']} cores "
        f"({meta['mode']}: {meta['runs']} runs of {meta['duration_s']:g} s per app, "
        f"{meta['concurrency']} requests in flight, {meta['tables']} tables at once; "
        f"gunicorn {meta['gunicorn']}; "
        f"Redis {meta['redis_version']} with {meta['redis_settings']}). "
        f"Load average {meta['load_before']['load1']:.2f} before, "
        f"{meta['load_after']['load1']:.2f} after; other processes used "
        f"{meta['other_cpu_share']:.0%} of the machine during the load runs; the load "
        f"generator used {meta['client_cpu_share']:.0%} of a core. Medians over the runs.",
        "",
        "| figure | referee | floor | ratio |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows(figures)]
    if figures.get("versus"):
        header, table = versus_table(figures)
        lines += ["", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        lines += [""] + [f"- {note}" for note in versus_notes(figures)]
    if figures.get("games"):
        header, table = games_table(figures)
        lines += ["", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        lines += [
            "",
            "- The games' own bots play every seat (benchmarks/game_moves.py), as fast as the "
            "service answers; May I? includes asks and answers, and the seat on turn waits out "
            "a window nobody asks in (200 ms). Medians of "
            f"{figures['games']['runs']} run(s) of {figures['games']['duration_s']:g} s.",
        ]
    if figures.get("streams"):
        lines += ["", "| event streams | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in streams_table(figures)]
        period = figures["streams"]["delivery"]["period_s"]
        lines += ["", f"- {STREAMS_NOTE.format(period=period)}"]
    if figures.get("replicas"):
        from . import replicas  # it uses this module

        lines += ["", "| replica acknowledgement | as today | REDIS_WAIT_REPLICAS=1 |"]
        lines += ["|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in replicas.rows(figures)]
        lines += ["", f"- {replicas.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("clocks"):
        from . import clocks  # it uses this module

        lines += ["", "| clocks and bots (2 worker processes) | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in clocks.rows(figures)]
        lines += ["", f"- {clocks.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("failover") and "skipped" not in figures["failover"]:
        from . import failover  # it uses this module

        lines += ["", "| failovers behind Redis Sentinels | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in failover.rows(figures)]
        lines += ["", f"- {failover.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("bot_quota"):
        from . import bot_quota  # it uses this module

        lines += ["", "| bots-only tables at their creator's quotas | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in bot_quota.rows(figures)]
        lines += ["", f"- {bot_quota.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    lines += ["", "| target | measured | limit | status |", "|---|---|---|---|"]
    for t in figures["targets"]:
        cmp = "≤" if t["comparison"] == "<=" else "≥"
        why = t.get("skipped") or t["detail"]
        detail = f" ({why})" if why else ""
        measured = f"{_n(t['value'])}{t['unit']}"
        limit = f"{cmp} {_n(t['limit'])}{t['unit']}"
        lines.append(f"| {t['name']}{detail} | {measured} | {limit} | {_status(t)} |")
    return "\n".join(lines) + "\n"


def _status(t: dict[str, Any]) -> str:
    return str(t.get("status") or ("PASS" if t["met"] else "MISS"))


def console(figures: dict[str, Any]) -> str:
    """A plain-text report for the terminal."""
    table = rows(figures)
    width = max(len(r[0]) for r in table)
    out = [f"{'figure':<{width}}  {'referee':>14}  {'floor':>10}  {'ratio':>7}"]
    out += [f"{a:<{width}}  {b:>14}  {c:>10}  {d:>7}" for a, b, c, d in table]
    if figures.get("versus"):
        header, vs_rows = versus_table(figures)
        first = max(len(r[0]) for r in [header, *vs_rows])
        out += ["", f"{header[0]:<{first}}  " + "  |  ".join(header[1:])]
        out += [f"{r[0]:<{first}}  " + "  |  ".join(f"{c:>16}" for c in r[1:]) for r in vs_rows]
        out += [""] + versus_notes(figures)
    if figures.get("games"):
        header, g_rows = games_table(figures)
        first = max(len(r[0]) for r in [header, *g_rows])
        out += ["", f"{header[0]:<{first}}  " + "  |  ".join(header[1:])]
        out += [f"{r[0]:<{first}}  " + "  |  ".join(f"{c:>12}" for c in r[1:]) for r in g_rows]
    if figures.get("streams"):
        s_rows = streams_table(figures)
        first = max(len(a) for a, _ in s_rows)
        out += [""] + [f"{a:<{first}}  {b}" for a, b in s_rows]
    out.append("")
    for t in figures["targets"]:
        cmp = "<=" if t["comparison"] == "<=" else ">="
        why = t.get("skipped") or t["detail"]
        out.append(
            f"{_status(t)}  {t['name']}: {_n(t['value'])}{t['unit']} "
            f"(target {cmp} {_n(t['limit'])}{t['unit']})" + (f"  [{why}]" if why else "")
        )
    return "\n".join(out)


def plot(latencies: dict[str, list[float]], path: Path, title: str) -> None:
    """One PNG: the CDF and a histogram of each kind's latencies (ms, log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cdf, hist) = plt.subplots(1, 2, figsize=(12, 4.5))
    present = {k: sorted(v) for k, v in latencies.items() if v}
    if not present:
        plt.close(fig)
        return
    low = max(min(v[0] for v in present.values()), 0.05)
    high = max(v[-1] for v in present.values())
    bins = [low * (high / low) ** (i / 60) for i in range(61)]
    for label, values in present.items():
        n = len(values)
        cdf.plot(values, [(i + 1) / n for i in range(n)], label=f"{label} (n={n:,})")
        hist.hist(values, bins=bins, histtype="step", weights=[1 / n] * n, label=label)
    for q in (0.5, 0.95, 0.99):
        cdf.axhline(q, color="grey", lw=0.5, ls=":")
    for ax in (cdf, hist):
        ax.set_xscale("log")
        ax.set_xlabel("latency (ms, log scale)")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=8)
    cdf.set_ylabel("share of requests answered within")
    cdf.set_title("cumulative distribution")
    hist.set_ylabel("share of requests per bin")
    hist.set_title("histogram")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
