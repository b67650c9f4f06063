"""The report's bounds on growth: a match's and a round record's Redis memory,
long rounds, growth over a match, and the heavy checks."""

from __future__ import annotations

from typing import Any

from ..measures import Target

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
    from ..growth import FLAT

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
    ] + _record_targets(checks)


def _record_targets(checks: dict[str, Any]) -> list[Target]:
    """A finished record's revalidation and kept read against a pass
    (issue 39 M4; benchmarks/heavy_checks.py); none for runs without them."""
    found = checks.get("records")
    if not found:
        return []
    pass_ms = checks["pass_ms"]
    note = f"against {pass_ms:.1f} ms (a seat view: {found['seat_view_ms']:.1f} ms)"
    return [
        Target(
            f"a {found['entries']:,}-entry record revalidated (304) ÷ a pass",
            found["revalidated_ms"] / pass_ms,
            HEAVY_CHECK_LIMIT,
            True,
            "×",
            f"{found['revalidated_ms']:.1f} ms {note}",
        ),
        Target(
            f"a {found['entries']:,}-entry record read whole from the cache ÷ a pass",
            found["kept_ms"] / pass_ms,
            HEAVY_CHECK_LIMIT,
            True,
            "×",
            f"{found['kept_ms']:.1f} ms ({found['bytes']:,} B) {note}",
        ),
    ]
