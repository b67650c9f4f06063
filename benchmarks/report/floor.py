"""The report's first table: the service against the Flask+Redis floor (passes,
views, moves, Redis commands and CPU per request), and the numbers' format."""

from __future__ import annotations

import math
from typing import Any

from ..measures import PERCENTILES, ratio


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
