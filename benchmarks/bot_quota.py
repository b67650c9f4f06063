"""Bots-only tables at their creator's quotas, and the lobby over stale
entries (issue 39; RULES.md 5.4, 5.6), on a Redis, a service and two
``referee worker`` processes of their own, with the service's default
quotas of table creations and referee moves (one trusted proxy names the
client addresses; the requests a second are not limited here).

- **Growth**: one address at its quotas runs issue 39's tables (four
  ``random`` bots, ``bot_delay_ms`` 0, ``max_exchanges`` 500,
  ``unattended_moves`` 10,000), as many as ``RATE_LIMIT_TABLES`` lets it
  make, each dealt at once, for ``seconds``. Redis's growth an hour is
  taken at those quotas: the tables an hour (``RATE_LIMIT_TABLES``) times
  what one holds made and dealt, plus the referee's moves an hour
  (``RATE_LIMIT_REFEREE_MOVES``) times what one adds (the ``MEMORY USAGE``
  of those tables' keys over the run, per move the workers made there).
  Also the moves a second that address got, and ``used_memory``'s growth
  over the run (the victim's table and the server's buffers in it).
- **Lateness**: another address's Sevens table of four ``basic`` bots at
  ``bot_delay_ms`` 200 plays alone (quiet), then beside that load; a bot
  move's lateness is its event's ``at_ms`` less the previous move's (its
  step opened with that commit) less the delay, by Redis's clock.
- **Lobby**: 1,000 listed tables whose match ended, their entries put
  back at the head of the index before each read (as lost updates would
  leave them: the service's own updates leave none), against a seat view;
  each timed one at a time (the median of ``reads``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from service.config import Settings

from .clocks import Workers
from .measures import Target, percentile
from .memory import tables_memory
from .processes import Gunicorn, RedisServer, gunicorn_env

GROWTH_TARGET_MIB = 20.0
"""Issue 39: Redis's growth an hour from one address at its quotas."""
LATENESS_RATIO_TARGET = 2.0
"""Issue 39: another table's bot-move lateness p99 under that load, over quiet."""
LOBBY_RATIO_TARGET = 2.0
"""Issue 39: a lobby read over 1,000 stale entries, over a seat view."""
TABLES_PER_HOUR = 600
"""``RATE_LIMIT_TABLES``' default, 10 a minute (the service's, measured at)."""
MOVES_PER_SECOND = 10
"""``RATE_LIMIT_REFEREE_MOVES``' default, 10 a second (the workers', measured at)."""
BOT_DELAY_MS = 200
ATTACKER = "198.51.100.7"
OTHER = "203.0.113.9"
BOTS_ONLY = {
    "variant": "classic",
    "players": [{"bot": "random"}] * 4,
    "first_dealer": 0,
    "options": {"bot_delay_ms": 0, "max_exchanges": 500, "unattended_moves": 10_000},
}
MOVE_EVENTS = ("card-played", "passed")


def _post(base: str, path: str, address: str, body: Any = None, token: str = "") -> Any:
    headers = {"X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    r = requests.post(f"{base}{path}", json=body, headers=headers, timeout=30)
    return r


def _made_and_dealt(base: str, address: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """A table made and dealt from ``address``; ``None`` once its quota says no."""
    r = _post(base, "/v1/tables", address, body)
    if r.status_code == 429:
        return None
    r.raise_for_status()
    created = dict(r.json())
    _post(base, f"/v1/tables/{created['table_id']}/rounds", address, token=created["host_token"])
    return created


def _events(base: str, table_id: str, after: int = 0) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        r = requests.get(f"{base}/v1/tables/{table_id}/events?after={after}&limit=500", timeout=30)
        r.raise_for_status()
        page = r.json()
        found += page["events"]
        if not page["more"]:
            return found
        after = found[-1]["seq"]


def lateness(events: list[dict[str, Any]]) -> list[float]:
    """Each bot move's lateness at a Sevens bots table, from its whole
    event log (ms; module docstring)."""
    opened = next(e["at_ms"] for e in events if e["type"] == "round-dealt")
    late = []
    for e in events:
        if e["type"] in MOVE_EVENTS:
            late.append(float(e["at_ms"] - opened - BOT_DELAY_MS))
            opened = e["at_ms"]
    return late


def _victim(base: str, seconds: float) -> list[float]:
    body = {
        "variant": "sevens",
        "players": [{"bot": "basic"}] * 4,
        "first_dealer": 0,
        "options": {"bot_delay_ms": BOT_DELAY_MS, "match": {"open": True}},
    }
    created = _made_and_dealt(base, OTHER, body)
    assert created is not None
    # Read as it plays (the service keeps only the newest EVENTS_KEPT).
    events: list[dict[str, Any]] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.5)
        after = events[-1]["seq"] if events else 0
        events += _events(base, created["table_id"], after)
    # Ended, so that its bots spend none of its address's budget after.
    _post(base, f"/v1/tables/{created['table_id']}/finish", OTHER, token=created["host_token"])
    return lateness(events)


def _bots_moves(rclient: Any, tables: list[dict[str, Any]]) -> int:
    """The moves the referee made at these tables (each round's record counts them)."""
    from service.storage.store import moves_key

    return sum(max(0, int(rclient.llen(moves_key(t["table_id"]))) - 2) for t in tables)


def growth_and_lateness(
    base: str, rclient: Any, seconds: float, quiet_seconds: float, log: Callable[[str], None]
) -> dict[str, Any]:
    """The growth and lateness figures of the module docstring."""
    log(f"bots quota: another address's bots table alone, {quiet_seconds:.0f} s…")
    quiet = _victim(base, quiet_seconds)
    log(f"bots quota: one address at its quotas, bots-only tables, {seconds:.0f} s…")
    before = int(rclient.info("memory")["used_memory"])
    tables: list[dict[str, Any]] = []
    while (made := _made_and_dealt(base, ATTACKER, BOTS_ONLY)) is not None:
        tables.append(made)
    ids = [t["table_id"] for t in tables]
    made_at = sum(tables_memory(rclient, ids).values())
    moved_at = _bots_moves(rclient, tables)
    started = time.monotonic()
    loaded = _victim(base, seconds)
    elapsed = time.monotonic() - started
    after = int(rclient.info("memory")["used_memory"])
    held = sum(tables_memory(rclient, ids).values())
    # The moves made in the window alone: those made while the tables were
    # being made (seconds on a busy machine) are before it.
    moves = _bots_moves(rclient, tables) - moved_at
    # What the keys of those tables hold (MEMORY USAGE), not used_memory,
    # which the victim's table and the server's buffers move too.
    per_table = made_at / max(1, len(tables))
    per_move = (held - made_at) / max(1, moves)
    hourly = TABLES_PER_HOUR * per_table + 3600 * MOVES_PER_SECOND * per_move
    quiet_p99 = percentile(quiet, 99) if quiet else 0.0
    loaded_p99 = percentile(loaded, 99) if loaded else 0.0
    return {
        "seconds": round(elapsed, 1),
        "tables": len(tables),
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 2),
        "bytes_per_table": round(per_table),
        "bytes_per_move": round(per_move, 1),
        "growth_mib_per_hour": round(hourly / 2**20, 2),
        "used_memory_growth_mib": round((after - before) / 2**20, 2),
        "lateness_ms": {
            "quiet_p50": percentile(quiet, 50) if quiet else 0.0,
            "quiet_p99": quiet_p99,
            "loaded_p50": percentile(loaded, 50) if loaded else 0.0,
            "loaded_p99": loaded_p99,
            "quiet_moves": len(quiet),
            "loaded_moves": len(loaded),
        },
        "lateness_ratio": round(loaded_p99 / quiet_p99, 2) if quiet_p99 > 0 else None,
    }


def lobby_read(base: str, rclient: Any, stale: int, reads: int) -> dict[str, Any]:
    """The lobby figure of the module docstring (ms, medians of ``reads``)."""
    from service.storage.lobby import lobby_key

    ended: list[str] = []
    for i in range(stale):
        address = f"192.0.2.{i % 250}:{i}"  # a counter of its own per made-up client
        r = _post(base, "/v1/tables", address, {"variant": "sevens", "listed": True,
                                                "players": ["Ann", None, None, None]})  # fmt: skip
        r.raise_for_status()
        made = r.json()
        _post(base, f"/v1/tables/{made['table_id']}/finish", address, token=made["host_token"])
        ended.append(made["table_id"])
    seat = _made_and_dealt(
        base, OTHER, {"variant": "sevens", "players": ["A", "B", "C", "D"], "first_dealer": 0}
    )
    assert seat is not None
    token = {"Authorization": f"Bearer {seat['seat_tokens'][1]['token']}"}
    now = int(time.time() * 1000)
    kept = rclient.zcard(lobby_key("sevens"))
    lobby_ms, seat_ms = [], []
    for _ in range(reads):
        rclient.zadd(lobby_key("sevens"), {t: now for t in ended})
        began = time.perf_counter()
        requests.get(
            f"{base}/v1/lobby", params={"variant": "sevens"}, timeout=30
        ).raise_for_status()
        lobby_ms.append(1000 * (time.perf_counter() - began))
        began = time.perf_counter()
        requests.get(
            f"{base}/v1/tables/{seat['table_id']}/seats/1", headers=token, timeout=30
        ).raise_for_status()
        seat_ms.append(1000 * (time.perf_counter() - began))
    lobby, view = statistics.median(lobby_ms), statistics.median(seat_ms)
    return {
        "stale_entries": stale,
        "entries_kept_by_the_service": kept,
        "lobby_read_ms": round(lobby, 2),
        "seat_view_ms": round(view, 2),
        "ratio": round(lobby / view, 2),
    }


def measure(
    folder: Path,
    log: Callable[[str], None],
    seconds: float = 60.0,
    quiet_seconds: float = 20.0,
    stale: int = 1000,
    reads: int = 30,
) -> dict[str, Any]:
    """Every figure of the module docstring, on processes of its own in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    server = RedisServer(folder / "redis").start()
    service = workers = None
    try:
        defaults = Settings()
        env = gunicorn_env(
            {
                "REDIS_URL": server.url,
                "TRUSTED_PROXIES": "1",
                # The quotas measured, at the service's defaults...
                "RATE_LIMIT_TABLES": defaults.rate_limit_tables,
                "RATE_LIMIT_REFEREE_MOVES": defaults.rate_limit_referee_moves,
                # ...and requests a second the bench's own reads never meet.
                "RATE_LIMIT_PER_TOKEN": "1000000/second",
                "RATE_LIMIT_ANONYMOUS": "1000000/second",
                "RATE_LIMIT_PER_ADDRESS": "1000000/second",
            }
        )
        service = Gunicorn("service.wsgi:app", env, folder / "service.log", "/readyz").start()
        workers = Workers(
            server.url,
            folder,
            RATE_LIMIT_REFEREE_MOVES=defaults.rate_limit_referee_moves,
        )
        workers.wait_ready()
        rclient = server.client()
        figures = growth_and_lateness(service.base, rclient, seconds, quiet_seconds, log)
        log(f"lobby: a read over {stale} stale entries against a seat view…")
        figures["lobby"] = lobby_read(service.base, rclient, stale, reads)
        return figures
    finally:
        if workers is not None:
            workers.stop()
        if service is not None:
            service.stop()
        server.stop()


def rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's rows: figure, value."""
    found = figures.get("bot_quota")
    if not found:
        return []
    late, lobby = found["lateness_ms"], found["lobby"]
    return [
        ("bots-only tables made, dealt", f"{found['tables']} in {found['seconds']} s"),
        ("referee moves a second that address got", f"{found['moves_per_s']}"),
        ("Redis per table made and dealt", f"{found['bytes_per_table']:,} B"),
        ("Redis per referee move", f"{found['bytes_per_move']} B"),
        ("Redis growth an hour at the quotas", f"{found['growth_mib_per_hour']} MiB"),
        (
            "another table's bot lateness p50 quiet / loaded",
            f"{late['quiet_p50']:.0f} / {late['loaded_p50']:.0f} ms",
        ),  # fmt: skip
        (
            "another table's bot lateness p99 quiet / loaded",
            f"{late['quiet_p99']:.0f} / {late['loaded_p99']:.0f} ms",
        ),  # fmt: skip
        (
            "lobby read over stale entries / seat view",
            f"{lobby['lobby_read_ms']} / {lobby['seat_view_ms']} ms ({lobby['stale_entries']} "
            f"stale, {lobby['entries_kept_by_the_service']} kept by the service)",
        ),  # fmt: skip
    ]


def targets(figures: dict[str, Any]) -> list[Target]:
    """Issue 39's targets of this part; none for a run without it."""
    found = figures.get("bot_quota")
    if not found:
        return []
    ratio = found["lateness_ratio"]
    return [
        Target(
            "Redis growth an hour, one address at its quotas running bots-only tables",
            found["growth_mib_per_hour"],
            GROWTH_TARGET_MIB,
            True,
            " MiB",
            f"{found['bytes_per_move']} B a referee move, {found['bytes_per_table']:,} B a table",
        ),
        Target(
            "another table's bot-move lateness p99 under that load ÷ quiet",
            float("nan") if ratio is None else ratio,
            LATENESS_RATIO_TARGET,
            True,
            "×",
            f"{found['lateness_ms']['loaded_p99']:.0f} against "
            f"{found['lateness_ms']['quiet_p99']:.0f} ms",
        ),
        Target(
            "a lobby read over 1,000 stale entries ÷ a seat view",
            found["lobby"]["ratio"],
            LOBBY_RATIO_TARGET,
            True,
            "×",
            f"{found['lobby']['lobby_read_ms']} against {found['lobby']['seat_view_ms']} ms",
        ),
    ]


def main() -> None:  # pragma: no cover - a person's run
    """``python -m benchmarks.bot_quota [seconds]``: this part alone; prints the figures."""
    import json
    import sys
    import tempfile

    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    with tempfile.TemporaryDirectory(prefix="referee-bot-quota-") as tmp:
        found = measure(Path(tmp), print, seconds=seconds, quiet_seconds=seconds / 3)
    print(json.dumps(found, indent=2))


if __name__ == "__main__":  # pragma: no cover
    main()
