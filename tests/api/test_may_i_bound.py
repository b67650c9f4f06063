"""A May I? round nobody lays down in never ends (the stock is rebuilt from
the pile), so its stored state must not grow with it: over HTTP on a real
Redis, the state keeps only the last move, the history the newest 100, a
repeat of a kept move answers as the first time and an older one is 409
``repeat-not-kept``; neither changes anything."""

from __future__ import annotations

import time
from typing import Any

import redis

from service.storage.store import HISTORY_KEPT, history_key, table_key

from ..helpers import Table, TableClient, bearer, snapshot
from ..may_i.common import full_deal
from .test_may_i import ask, move


def _state_bytes(r: redis.Redis, t: Table) -> int:
    return len(r.hget(table_key(t.table_id), "s") or b"")


def _turn(tables: TableClient, t: Table, seat: int, number: int) -> list[Any]:
    """Decline, draw once the 1 ms window lapsed, discard the highest card:
    the three moves' bodies and answers."""
    made = []
    declined = move(tables, t, seat, number, decline=True)
    assert declined.status_code == 200, declined.get_json()
    made.append(({"decline": True}, declined.get_json()))
    while (drawn := move(tables, t, seat, number + 1, draw=True)).status_code == 409:
        assert drawn.get_json()["code"] == "may-i-open"
        time.sleep(0.002)
    assert drawn.status_code == 200, drawn.get_json()
    made.append(({"draw": True}, drawn.get_json()))
    card = drawn.get_json()["hand"][-1]
    discarded = move(tables, t, seat, number + 2, discard=card)
    assert discarded.status_code == 200, discarded.get_json()
    made.append(({"discard": card}, discarded.get_json()))
    return made


def test_a_round_nobody_lays_down_in_keeps_a_bounded_state(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=1)
    deal = full_deal("may-i", 4, {}, discard="2C")
    assert tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host)).status_code
    made: list[Any] = []
    sizes = {}
    while len(made) < 3 * 120:
        seat = (1 + len(made) // 3) % 4
        made += _turn(tables, t, seat, len(made) + 1)
        sizes[len(made)] = _state_bytes(redis_client, t)
    assert tables.public(t)["round"]["moves_taken"] == 360
    # Hands and the pile change a little; the moves, notes and offers do not pile up.
    assert max(sizes.values()) < min(sizes.values()) + 400, sizes
    assert redis_client.llen(history_key(t.table_id)) == HISTORY_KEPT

    before = snapshot(redis_client, t)
    for number in (360, 359, 360 - HISTORY_KEPT):
        body, first = made[number - 1]
        seat = first["seat"]
        again = move(tables, t, seat, number, **body)
        assert again.status_code == 200 and again.get_json() == first, number
    for number in (1, 359 - HISTORY_KEPT):
        body, first = made[number - 1]
        old = move(tables, t, first["seat"], number, **body)
        assert old.status_code == 409 and old.get_json()["code"] == "repeat-not-kept", number
        assert old.get_json()["current_move"] == 361
    # Offer 1 (the first decline's, which lapsed) is no longer kept either.
    old = ask(tables.client, t, 2, 1)
    assert old.status_code == 409 and old.get_json()["code"] == "repeat-not-kept"
    assert snapshot(redis_client, t) == before
