"""Figures to targets, a Markdown table, a console report and the latency plot."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PERCENTILES = (50, 95, 99)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linearly interpolated."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_summary(values: Sequence[float]) -> dict[str, float]:
    """p50, p95, p99 (ms) and the count."""
    out: dict[str, float] = {f"p{q}": percentile(values, q) for q in PERCENTILES}
    out["n"] = len(values)
    return out


def median(values: Sequence[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return statistics.median(clean) if clean else math.nan


def ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


@dataclass(frozen=True)
class Target:
    """One target of issue 6: ``value`` compared with ``limit``."""

    name: str
    value: float
    limit: float
    at_most: bool  # True: value <= limit; False: value >= limit
    unit: str
    detail: str = ""

    @property
    def met(self) -> bool:
        if math.isnan(self.value):
            return False
        return self.value <= self.limit if self.at_most else self.value >= self.limit

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "limit": self.limit,
            "comparison": "<=" if self.at_most else ">=",
            "unit": self.unit,
            "met": self.met,
            "detail": self.detail,
        }


def targets(figures: dict[str, Any]) -> list[Target]:
    """The targets of issue 6, from the figures of a run."""
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
            3.0,
            True,
            "×",
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
            4096,
            True,
            "B",
            f"{played['tables']} tables; largest {played['after_match']['max']:,.0f} B; "
            f"median {played['match_exchanges']['median']:g} exchanges, "
            f"{played['events']['median']:g} events, "
            f"{played['events_kept']['median']:g} kept",
        )
    )
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
            50_000,
            False,
            "/s",
        )
    )
    return out


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
    lines += ["", "| target | measured | limit | status |", "|---|---|---|---|"]
    for t in figures["targets"]:
        cmp = "≤" if t["comparison"] == "<=" else "≥"
        detail = f" ({t['detail']})" if t["detail"] else ""
        measured = f"{_n(t['value'])}{t['unit']}"
        limit = f"{cmp} {_n(t['limit'])}{t['unit']}"
        status = "PASS" if t["met"] else "MISS"
        lines.append(f"| {t['name']}{detail} | {measured} | {limit} | {status} |")
    return "\n".join(lines) + "\n"


def console(figures: dict[str, Any]) -> str:
    """A plain-text report for the terminal."""
    table = rows(figures)
    width = max(len(r[0]) for r in table)
    out = [f"{'figure':<{width}}  {'referee':>14}  {'floor':>10}  {'ratio':>7}"]
    out += [f"{a:<{width}}  {b:>14}  {c:>10}  {d:>7}" for a, b, c, d in table]
    out.append("")
    for t in figures["targets"]:
        cmp = "<=" if t["comparison"] == "<=" else ">="
        out.append(
            f"{'PASS' if t['met'] else 'MISS'}  {t['name']}: {_n(t['value'])}{t['unit']} "
            f"(target {cmp} {_n(t['limit'])}{t['unit']})"
            + (f"  [{t['detail']}]" if t["detail"] else "")
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
