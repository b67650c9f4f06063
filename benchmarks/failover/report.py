"""The failover rows and targets of the bench's report (issue 41)."""

from __future__ import annotations

from typing import Any

from ..measures import Target

LOST_LIMIT = 0
"""Acknowledged moves a failover may lose with ``REDIS_WAIT_REPLICAS=all``."""
READY_WHILE_REFUSED_LIMIT_S = 1.0
"""How long ``/readyz`` may say 200 while moves are refused, per failover (a
look of the watch, 0.5 s, and a wait, 0.3 s, late)."""


def rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's rows: figure, value."""
    found = figures.get("failover")
    if not found:
        return []
    one = found["sequential"]
    out = [
        (
            "a pass, one at a time, REDIS_WAIT_REPLICAS 0 / 1 / all (two replicas)",
            f"{one['0']:.2f} / {one['1']:.2f} / {one['all']:.2f} ms",
        )
    ]
    for name, drilled in found.items():
        if name == "sequential":
            continue
        kind, wait = name.split("/")
        what = "SENTINEL FAILOVER" if kind == "manual" else "SIGKILL of the primary"
        out.append(
            (
                f"{len(drilled['failovers'])} x {what}, REDIS_WAIT_REPLICAS={wait}: "
                "acknowledged moves, lost",
                f"{drilled['acknowledged']}, {drilled['lost']}",
            )
        )
        for i, f in enumerate(drilled["failovers"], 1):
            out.append(
                (
                    f"… failover {i}: moves refused / /readyz 503 / /readyz 200 while refused",
                    f"{f['refused_s']:.1f} / {f['unready_s']:.1f} / "
                    f"{f['ready_while_refused_s']:.2f} s (Sentinels switched after "
                    f"{f['switched_after_s']:.1f} s)",
                )
            )
    return out


def targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 41's failover targets; none for a run without the drills."""
    found = figures.get("failover")
    if not found:
        return []
    drilled = [found[k] for k in ("manual/all", "kill/all") if k in found]
    failovers = [f for d in drilled for f in d["failovers"]]
    times = {k: len(found[k]["failovers"]) for k in ("manual/all", "kill/all") if k in found}
    return [
        Target(
            f"acknowledged moves lost over {times.get('manual/all', 0)} x SENTINEL FAILOVER "
            f"and {times.get('kill/all', 0)} x SIGKILL",
            float(sum(d["lost"] for d in drilled)),
            LOST_LIMIT,
            True,
            "",
            "REDIS_WAIT_REPLICAS=all, six tables of the three games",
        ),
        Target(
            "/readyz 200 while moves are refused, per failover (max)",
            max((f["ready_while_refused_s"] for f in failovers), default=float("nan")),
            READY_WHILE_REFUSED_LIMIT_S,
            True,
            " s",
            "REDIS_WAIT_REPLICAS=all",
        ),
    ]
