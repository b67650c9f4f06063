"""What round records cost Redis (issue 39): bytes per recorded move, and
the largest table a table's caps allow.

*Bytes per recorded move*: for each table :func:`.memory.played_table`
measured (7 seats, a 5-round match played through the HTTP API), the
``MEMORY USAGE`` of its record keys (the open record's list and the hash of
finished ones: headers included) over the entries they hold (every move,
rebuilt stock and referee entry).

*The largest table*: a May I? round nobody lays down in, built with the
pure engine (:mod:`.long_round`'s moves, one every 600 ms), recorded as the
store records it (:func:`service.games.codec.record_item`) up to a record's
cap (:data:`~service.storage.store.MOVES_KEPT` entries), written as every
record a table keeps (:data:`~service.storage.store.RECORDS_KEPT` finished
ones and the open one) into a table made through the in-process app; the
``MEMORY USAGE`` of all its keys. The record's cap and the number kept bound
a table; nothing else it keeps grows with the moves.
"""

from __future__ import annotations

import random
from typing import Any

import redis

from service.games import codec
from service.games.may_i import engine
from service.storage.store import MOVES_KEPT, RECORDS_KEPT, moves_key, records_key

from .long_round import SEATS, T0
from .memory import record_figures, table_memory
from .redis_cost import HttpTable, in_process_app


def per_move(played: dict[str, Any]) -> dict[str, float]:
    """Bytes per recorded move over the tables :func:`.memory.played_tables`
    measured: the median table's and the largest."""
    each = [
        t["record"]["record_bytes"] / max(1, t["record"]["record_entries"])
        for t in played["each"]
        if "record" in t
    ]
    each.sort()
    return {"median": each[len(each) // 2], "max": each[-1], "tables": len(each)}


def _capped_record(header: str) -> list[str]:
    """A full record's texts: its header and :data:`MOVES_KEPT` entries of a
    May I? round nobody lays down in (the move's own arguments, a draw's
    rebuilt stocks included)."""
    rng = random.Random(39)
    names = [f"P{i}" for i in range(SEATS)]
    table = engine.create_table("may-i", {}, names, 0, rng).table
    table = engine.start_round(table, rng, T0, {}).table
    base, now = T0, T0
    texts = [header]
    while len(texts) <= MOVES_KEPT:
        rnd = table.round
        assert rnd is not None
        now += 600
        if rnd.step.value == "may-i":
            assert rnd.offer is not None
            now = max(now, rnd.offer.until_ms)
            action, arg = "draw", None
        elif rnd.step.value == "draw":
            action, arg = "decline", None
        elif rnd.step.value == "stock":
            action, arg = "draw", None
        else:
            action, arg = "discard", rnd.hands[rnd.on_turn][-1]
        move = {
            "seat": rnd.on_turn,
            "by": "bot",
            "move": "turn",
            "round": 1,
            "number": rnd.move,
            "action": action,
            "arg": arg,
        }
        done = engine.turn(table, rnd.number, rnd.move, rnd.on_turn, action, arg, now)
        for shuffle in done.shuffles:
            entry = {"at_ms": now, "by": "referee", "move": "reshuffle", **shuffle}
            texts.append(codec.record_item(table, entry, 1, base))
            base = now
        texts.append(codec.record_item(table, {"at_ms": now, **move}, 1, base))
        base = now
        table = done.table
    return texts[: MOVES_KEPT + 1]


def largest_table(url: str) -> dict[str, Any]:
    """The Redis memory of a table whose every record is at its cap (see
    the module), with the record bytes per entry there."""
    app = in_process_app(url)
    client = redis.Redis.from_url(url)
    table = HttpTable(app.test_client(), 4)
    table.deal()
    header = client.lindex(moves_key(table.id), 1)
    assert isinstance(header, bytes)
    texts = _capped_record(header.decode())
    number = RECORDS_KEPT + 1
    pipe = client.pipeline(transaction=True)
    for kept in range(1, number):
        pipe.hset(records_key(table.id), str(kept), "\n".join(texts))
    pipe.delete(moves_key(table.id))
    pipe.rpush(moves_key(table.id), str(number), *texts)
    pipe.execute()
    used = table_memory(client, table.id)
    records = record_figures(client, table.id)
    return {
        "records": RECORDS_KEPT + 1,
        "entries_per_record": MOVES_KEPT,
        "total": used["total"],
        "record_bytes": records["record_bytes"],
        "bytes_per_entry": records["record_bytes"] / max(1, records["record_entries"]),
        "entry_text_bytes": sum(len(t) for t in texts[1:]) / MOVES_KEPT,
        "header_bytes": len(texts[0]),
    }
