"""Redis memory per table, and what an expired table leaves behind.

A table's memory is ``MEMORY USAGE key SAMPLES 0`` (every element counted)
summed over every key carrying the table's hash tag (``SCAN MATCH
'referee:{<id>}*'``), so keys added later (e.g. a compacted event log) are
counted without changing this file. The keys shared by all tables (the
active-tables HyperLogLogs of service/metrics.py, a fixed 16 shards × 15
minutes whatever the number of tables) are not a table's and not counted.

*Idle tables*: created (7 seats) and one round dealt, no pass. They are
written through the store exactly as the API's create and deal views do
(``engine.create_table``, ``TableStore.create`` with the auth record,
``TableStore.apply(start_round)``), skipping HTTP only to fit the run's time
budget; a few tables made through the HTTP API are measured beside them as
a check that the two agree.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import redis

from service.resources.proofs import endpoints as proofs
from service.storage.store import moves_key, records_key

from .redis_cost import HttpTable, in_process_app


def table_keys(client: redis.Redis, table_id: str) -> list[bytes]:
    """Every key carrying ``table_id``'s hash tag."""
    return list(client.scan_iter(match=f"referee:{{{table_id}}}*", count=1000))


def table_memory(client: redis.Redis, table_id: str) -> dict[str, int]:
    """Bytes per key of the table (``MEMORY USAGE … SAMPLES 0``) and the total."""
    sizes = {}
    for key in table_keys(client, table_id):
        used = client.memory_usage(key, samples=0)
        sizes[key.decode()] = int(used or 0)
    return {"total": sum(sizes.values()), **sizes}


def tables_memory(client: redis.Redis, table_ids: list[str]) -> dict[str, int]:
    """Each table's total of :func:`table_memory`, from one ``SCAN`` of the
    keyspace (a ``SCAN`` per table reads the whole keyspace each time: for
    10,000 tables, minutes) and pipelined ``MEMORY USAGE`` calls."""
    keys_of: dict[str, list[bytes]] = {table_id: [] for table_id in table_ids}
    for key in client.scan_iter(match="referee:{*}*", count=1000):
        tag = key[key.index(b"{") + 1 : key.index(b"}")].decode()
        if tag in keys_of:
            keys_of[tag].append(key)
    totals = dict.fromkeys(table_ids, 0)
    pairs = [(table_id, key) for table_id, keys in keys_of.items() for key in keys]
    for start in range(0, len(pairs), 1000):
        chunk = pairs[start : start + 1000]
        pipe = client.pipeline(transaction=False)
        for _, key in chunk:
            pipe.memory_usage(key, samples=0)
        for (table_id, _), used in zip(chunk, pipe.execute(), strict=True):
            totals[table_id] += int(used or 0)
    return totals


def record_figures(client: redis.Redis, table_id: str) -> dict[str, int]:
    """The record keys' bytes (``MEMORY USAGE``) and the entries they hold."""
    entries = 0
    folded: list[bytes] = client.hvals(records_key(table_id))  # type: ignore[assignment]
    for text in folded:
        entries += len([line for line in text.split(b"\n")[1:] if line.startswith(b"[")])
    items: list[bytes] = client.lrange(moves_key(table_id), 2, -1)  # type: ignore[assignment]
    entries += len([t for t in items if t.startswith(b"[")])
    used = 0
    for key in (moves_key(table_id), records_key(table_id)):
        used += int(client.memory_usage(key, samples=0) or 0)
    return {"record_bytes": used, "record_entries": entries}


def played_table(url: str, seats: int = 7, rounds: int = 5) -> dict[str, Any]:
    """A ``seats``-seat table through the HTTP API (in-process): its memory
    after one round and after a ``rounds``-deal match."""
    app = in_process_app(url)
    client = redis.Redis.from_url(url)
    table = HttpTable(app.test_client(), seats, rounds=rounds)
    table.play_round()
    after_one = table_memory(client, table.id)
    for _ in range(rounds - 1):
        table.play_round()
    view = table.view()
    assert view["match"]["status"] != "in-progress", view["match"]
    listed = table.client.get(f"/v1/tables/{table.id}/rounds").get_json()["rounds"]
    after_match = table_memory(client, table.id)
    record = record_figures(client, table.id)
    stored = client.hget(f"referee:{{{table.id}}}:table", "s") or b""
    written = int(client.hget(f"referee:{{{table.id}}}:table", "n") or 0)
    return {
        "seats": seats,
        "after_one_round": after_one,
        "after_match": after_match,
        "match_rounds": view["rounds_played"],
        "match_exchanges": sum(r["exchanges"] for r in listed),
        "events": written,
        "events_kept": int(client.llen(f"referee:{{{table.id}}}:events")),
        "state_bytes_after_match": len(stored),
        "record": record,
    }


def played_tables(url: str, tables: int = 5, seats: int = 7, rounds: int = 5) -> dict[str, Any]:
    """:func:`played_table` for ``tables`` tables (deals are random, and a void
    round plays 50 exchanges, so a match's length varies): the median and the
    largest of each figure, and every table's."""
    each = [played_table(url, seats, rounds) for _ in range(tables)]

    def spread(pick: Any) -> dict[str, float]:
        values = [pick(t) for t in each]
        return {"median": statistics.median(values), "max": max(values)}

    return {
        "seats": seats,
        "tables": tables,
        "after_one_round": spread(lambda t: t["after_one_round"]["total"]),
        "after_match": spread(lambda t: t["after_match"]["total"]),
        "match_exchanges": spread(lambda t: t["match_exchanges"]),
        "events": spread(lambda t: t["events"]),
        "events_kept": spread(lambda t: t["events_kept"]),
        "each": each,
    }


def _store_and_tools(url: str) -> tuple[Any, Any, Any, Any]:
    from service.config import Settings
    from service.edge import auth
    from service.games import codec
    from service.games.ship import engine
    from service.storage.store import TableStore

    client = redis.Redis.from_url(url)
    kept = Settings.from_env().events_kept  # as the in-process app (in_process_app)
    return TableStore(client, codec, 3600, events_kept=kept), engine, auth, client


def idle_tables(
    url: str, count: int, seats: int = 7, extrapolate_to: int = 100_000
) -> dict[str, Any]:
    """``count`` idle tables (see the module docstring): ``used_memory``
    delta and the ``MEMORY USAGE`` sum, per table and for ``extrapolate_to``."""
    store, engine, auth, client = _store_and_tools(url)
    rng = random.SystemRandom()
    names = [f"P{i}" for i in range(seats)]
    overrides = {"match": {"deals": 5}, "max_exchanges": 50, "claim_window_ms": 0}

    # The deal's proof and the round's record are written as the API writes
    # them (service.resources.proofs.endpoints), which needs the app's context.
    app = in_process_app(url)

    client.execute_command("MEMORY", "PURGE")
    before = int(client.info("memory")["used_memory"])
    started = time.perf_counter()
    ids = []
    with app.app_context():
        for _ in range(count):
            table_id = auth.new_table_id()
            created = engine.create_table("classic", overrides, names, 0, rng)
            created = proofs.journaled(created, proofs.creation_journal(len(names)))
            tokens = [auth.new_token() for _ in names]
            store.create(table_id, created, auth.auth_record(auth.new_token(), tokens))
            store.apply(table_id, lambda loaded, t=table_id: proofs.deal_round(t, loaded, {}))
            ids.append(table_id)
    elapsed = time.perf_counter() - started
    client.execute_command("MEMORY", "PURGE")
    after = int(client.info("memory")["used_memory"])
    usage = sum(tables_memory(client, ids).values())
    # The same idle table through the HTTP API, to check the shortcut.
    http = []
    for _ in range(20):
        table = HttpTable(app.test_client(), seats)
        table.deal()
        http.append(table_memory(client, table.id)["total"])
    per_table_delta = (after - before) / count
    per_table_usage = usage / count
    factor = extrapolate_to / count
    return {
        "tables": count,
        "seats": seats,
        "idle": "created, one round dealt, no pass",
        "seconds_to_write": elapsed,
        "used_memory_delta_per_table": per_table_delta,
        "memory_usage_per_table": per_table_usage,
        "memory_usage_per_table_via_http": statistics.fmean(http),
        "extrapolated_tables": extrapolate_to,
        "extrapolated_used_memory_bytes": (after - before) * factor,
        "extrapolated_memory_usage_bytes": usage * factor,
    }


def expiry(url: str, tables: int = 5, ttl_seconds: int = 1) -> dict[str, Any]:
    """Tables on an app with ``TABLE_TTL_SECONDS=ttl_seconds``, each dealt and
    passed once: the keys with their tags that remain after the TTL."""
    app = in_process_app(url, ttl_seconds=ttl_seconds)
    client = redis.Redis.from_url(url)
    ids = []
    keys_before = 0
    without_expiry = 0
    for _ in range(tables):
        table = HttpTable(app.test_client(), 4)
        table.deal()
        table.read_hands()
        table.pass_(0, table.choices()[0])
        ids.append(table.id)
        keys = table_keys(client, table.id)
        keys_before += len(keys)
        without_expiry += sum(1 for k in keys if client.ttl(k) < 0)
    deadline = time.monotonic() + ttl_seconds + 5
    left = keys_before
    waited_from = time.monotonic()
    time.sleep(ttl_seconds + 0.2)
    while time.monotonic() < deadline:
        left = sum(len(table_keys(client, t)) for t in ids)
        if left == 0:
            break
        time.sleep(0.2)
    return {
        "tables": tables,
        "ttl_seconds": ttl_seconds,
        "keys_before": keys_before,
        "keys_without_expiry": without_expiry,
        "keys_left": left,
        "seconds_until_gone": time.monotonic() - waited_from,
    }
