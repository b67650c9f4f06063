"""Figures to targets, a Markdown table, a console report and the latency plot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..measures import Target
from .bounds import (
    MATCH_MEMORY_LIMIT,
    check_targets,
    growth_targets,
    long_round_targets,
    record_targets,
)
from .floor import _n, rows
from .peers import games_table, versus_notes, versus_table, versus_targets
from .streams import STREAMS_NOTE, scaling_table, stream_targets, streams_table

SCALING_NOTE = (
    "Per-core scaling (benchmarks/scaling.py): the same load on a fresh service for each "
    "count of gunicorn workers, on a Redis of its own (or, with --shards N, a Redis Cluster "
    "of N primaries on this machine). On 2 cores the second worker shares them with Redis "
    'and the load generator; on a many-core box run `make bench BENCH_ARGS="--workers '
    '1,2,4,8 --shards 3"` (docs/guide/performance.md).'
)

PASS_CPU_RATIO = 1.6
"""Issue 44: a pass without streams, server CPU ÷ the minimal-move floor's, at most."""


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
            "a pass without streams: server CPU per request ÷ the minimal-move floor's",
            load["ratios"].get("cpu_ms_per_request_to_move", math.nan),
            PASS_CPU_RATIO,
            True,
            "×",
            f"{_n(load['service']['cpu_ms_per_request'])} ms against "
            f"{_n(load['move']['cpu_ms_per_request'])} ms (gunicorn + Redis; the service's "
            "load also reads views)"
            if "move" in load
            else "",
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
    from .. import bot_quota

    return bot_quota.targets(figures)


def _failover_targets(figures: dict[str, Any]) -> list[Target]:
    from .. import failover

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
    from .. import clocks

    return clocks.targets(figures)


def _replica_targets(figures: dict[str, Any]) -> list[Target]:
    from .. import replicas

    return replicas.targets(figures)


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
        scaled = scaling_table(figures)
        if scaled is not None:
            header, table = scaled
            lines += ["", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
            lines += ["| " + " | ".join(r) + " |" for r in table]
            lines += ["", f"- {SCALING_NOTE}"]
    if figures.get("replicas"):
        from .. import replicas

        lines += ["", "| replica acknowledgement | as today | REDIS_WAIT_REPLICAS=1 |"]
        lines += ["|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in replicas.rows(figures)]
        lines += ["", f"- {replicas.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("clocks"):
        from .. import clocks

        lines += ["", "| clocks and bots (2 worker processes) | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in clocks.rows(figures)]
        lines += ["", f"- {clocks.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("failover") and "skipped" not in figures["failover"]:
        from .. import failover

        lines += ["", "| failovers behind Redis Sentinels | measured |", "|---|---|"]
        lines += [f"| {a} | {b} |" for a, b in failover.rows(figures)]
        lines += ["", f"- {failover.__doc__.split(chr(10) + chr(10))[1].replace(chr(10), ' ')}"]
    if figures.get("bot_quota"):
        from .. import bot_quota

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
        scaled = scaling_table(figures)
        if scaled is not None:
            out += ["", "  |  ".join(scaled[0])] + ["  |  ".join(r) for r in scaled[1]]
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
