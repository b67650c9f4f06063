"""A May I? round nobody lays down in: what a table stores, and what a move
costs the server, after 1, 100 and 4,000 moves (issue 24).

Such a round is legal and never ends (the stock is rebuilt from the pile),
so neither may grow with it. The round is built with the pure engine (4
seats, the preset's 5,000 ms window; every turn declines the discard, lets
its offer lapse, draws and discards its highest card), with the history
the store would hold (the newest ``HISTORY_KEPT`` texts of the moves'
``archive``). At each checkpoint its state and history are written into a
table made through the in-process app (HTTP, real Redis), and the next move
(the draw after the lapsed window) is timed through the app, the state
written back before each try: *a move's server time* is the WSGI call's
wall time, Redis round trips included. *Stored bytes* are the state (what
every move reads and decodes) and every key of the table (``MEMORY
USAGE``: state, events, history).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import redis

from service.games.may_i import codec, engine
from service.games.may_i.state import Step, Table
from service.storage.store import HISTORY_KEPT, history_key, table_key

from .memory import table_memory
from .redis_cost import in_process_app

CHECKPOINTS = (1, 100, 4000)
SEATS = 4
T0 = 1_000_000_000_000
"""The engine's clock for the built round (2001): every window it opened has
long lapsed by the Redis clock that times the move."""


def _move(table: Table, now: int, history: list[str]) -> tuple[Table, int]:
    """The round's next move as this benchmark plays it (see the module)."""
    rnd = table.round
    assert rnd is not None
    if rnd.step is Step.MAY_I:
        assert rnd.offer is not None
        now = rnd.offer.until_ms
        action, arg = "draw", None
    elif rnd.step is Step.DRAW:
        action, arg = "decline", None
    elif rnd.step is Step.STOCK:
        action, arg = "draw", None
    else:
        action, arg = "discard", rnd.hands[rnd.on_turn][-1]
    done = engine.turn(table, rnd.number, rnd.move, rnd.on_turn, action, arg, now)
    history[:] = [*history, *done.archive][-HISTORY_KEPT:]
    return done.table, now + 1


def build(checkpoints: Sequence[int] = CHECKPOINTS) -> dict[int, tuple[Table, list[str]]]:
    """The round's table and history after each number of moves in ``checkpoints``."""
    rng = random.Random(24)
    names = [f"P{i}" for i in range(SEATS)]
    table = engine.create_table("may-i", {}, names, 0, rng).table
    table = engine.start_round(table, rng, T0, {}).table
    history: list[str] = []
    now, built = T0, {}
    for _ in range(max(checkpoints)):
        table, now = _move(table, now, history)
        assert table.round is not None and table.round.playing, "the round ended"
        if table.round.taken in checkpoints:
            built[table.round.taken] = (table, list(history))
    return built


def _put(r: redis.Redis, table_id: str, table: Table, history: list[str]) -> None:
    """Write ``table`` and ``history`` as the store keeps them (no step: no request is open)."""
    pipe = r.pipeline(transaction=True)
    pipe.hset(table_key(table_id), mapping={"s": codec.encode(table), "k": ""})
    pipe.delete(history_key(table_id))
    if history:
        pipe.rpush(history_key(table_id), *history)
        pipe.expire(history_key(table_id), 3600)
    pipe.execute()


def measure(
    url: str, checkpoints: Sequence[int] = CHECKPOINTS, repeats: int = 30
) -> dict[str, Any]:
    """Per checkpoint (moves taken): the state's bytes, the table's memory,
    the history's texts and bytes, and the median server time of the next
    move over ``repeats`` tries (ms; the checkpoints take turns); ``ratio_*``: the last checkpoint's
    figure over the one before it."""
    built = build(checkpoints)
    app = in_process_app(url)
    client = app.test_client()
    r = redis.Redis.from_url(url)
    body = {"variant": "may-i", "players": [f"P{i}" for i in range(SEATS)], "first_dealer": 0}
    created = client.post("/v1/tables", json=body).get_json()
    table_id, host = created["table_id"], created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    dealt = client.post(
        f"/v1/tables/{table_id}/rounds", headers={"Authorization": f"Bearer {host}"}
    )
    assert dealt.status_code == 201, dealt.get_json()
    times: dict[int, list[float]] = {taken: [] for taken in checkpoints}
    # Checkpoints take turns, so that the machine's drift hits all alike.
    for _ in range(repeats):
        for taken in checkpoints:
            table, history = built[taken]
            rnd = table.round
            assert rnd is not None
            path = f"/v1/tables/{table_id}/rounds/1/moves/{taken + 1}"
            headers = {"Authorization": f"Bearer {tokens[rnd.on_turn]}"}
            _put(r, table_id, table, history)
            started = time.perf_counter()
            done = client.put(path, json={"draw": True}, headers=headers)
            times[taken].append(1000 * (time.perf_counter() - started))
            assert done.status_code == 200, done.get_json()
    found: dict[str, Any] = {}
    for taken in checkpoints:
        table, history = built[taken]
        _put(r, table_id, table, history)
        found[str(taken)] = {
            "state_bytes": len(codec.encode(table)),
            "table_memory_bytes": table_memory(r, table_id)["total"],
            "history_texts": len(history),
            "history_bytes": sum(len(t) for t in history),
            "move_ms": statistics.median(times[taken]),
        }
    client.delete(f"/v1/tables/{table_id}", headers={"Authorization": f"Bearer {host}"})
    last, before = (found[str(c)] for c in (checkpoints[-1], checkpoints[-2]))
    return {
        "checkpoints": found,
        "repeats": repeats,
        "ratio_state_bytes": last["state_bytes"] / before["state_bytes"],
        "ratio_move_ms": last["move_ms"] / before["move_ms"],
    }
