"""The report's comparison with boardgame.io and the games' own moves (issue 13):
its table, notes and targets."""

from __future__ import annotations

import math
from typing import Any

from ..measures import Target, median, ratio
from .floor import _n

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
