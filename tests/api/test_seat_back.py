"""An away seat that moves itself is back (RULES.md 5.3): the view's
``away`` clears and one ``seat-back`` event says so on the log (and so on
the streams), after the move's own events, also when its move is a choice
that completes an exchange. The seat is made away as the worker does it
(its default move at the deadline, ``service.worker.moves``), in process."""

from __future__ import annotations

import time
from typing import Any

from service.worker.moves import deadline_move

from ..helpers import Table, TableClient, bearer


def time_out(app: Any, tables: TableClient, t: Table, seat: int) -> None:
    """``seat``'s deadline passed: its default move, as the worker makes it."""
    view = tables.public(t)
    until = view["seats"][seat]["until_ms"]
    assert until is not None, view["seats"]
    time.sleep(max(0.0, until / 1000 - time.time()) + 0.05)
    store = app.extensions["referee"].store
    key = store.load(t.table_id)
    from service import clock

    step, _ = clock.deadlines(key.table, key.control)
    store.apply(t.table_id, lambda loaded: deadline_move(loaded, step, seat))
    assert tables.public(t)["seats"][seat]["away"] is True


def backs(tables: TableClient, t: Table) -> list[int]:
    return [e["seat"] for e in tables.events(t) if e["type"] == "seat-back"]


def test_an_away_seat_that_plays_itself_is_back_once(app: Any, tables: TableClient) -> None:
    t = tables.create(3, variant="sevens", turn_timeout_ms=100, away_timeout_ms=60_000)
    assert tables.deal(t).status_code == 201
    on_turn = tables.public(t)["awaiting"]["seats"][0]
    time_out(app, tables, t, on_turn)
    assert backs(tables, t) == []
    # Round the table to the away seat, each seat playing itself.
    for _ in range(10):
        view = tables.public(t)
        seat = view["awaiting"]["seats"][0]
        turn = view["round"]["turn"]
        playable = tables.client.get(
            f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat])
        ).get_json()["playable"]
        body = {"play": playable[0]} if playable else {"pass": True}
        moved = tables.client.put(
            f"{t.url}/rounds/1/turns/{turn}", json=body, headers=bearer(t.seats[seat])
        )
        assert moved.status_code == 200, moved.get_json()
        if seat == on_turn:
            break
    else:
        raise AssertionError("the away seat's turn did not come")
    view = tables.public(t)
    assert view["seats"][on_turn]["away"] is False
    assert backs(tables, t) == [on_turn]
    events = tables.events(t)
    assert events[-1]["type"] == "seat-back" and events[-2]["seat"] == on_turn


def test_an_away_seat_that_passes_itself_is_back_once_first_or_last(
    app: Any, tables: TableClient
) -> None:
    t = tables.create(4, turn_timeout_ms=100, away_timeout_ms=60_000, max_exchanges=5)
    assert tables.deal(t).status_code == 201
    for seat in (1, 2, 3):
        assert tables.pass_(t, 1, 1, seat, tables.hand(t, seat)[:1]).status_code == 200
    time_out(app, tables, t, 0)  # seat 0's default pass resolves exchange 1
    assert tables.public(t)["round"]["exchange"] == 2
    # Its own pass first in exchange 2: a choice that leaves the step open.
    assert tables.pass_(t, 1, 2, 0, tables.hand(t, 0)[:1]).status_code == 200
    assert tables.public(t)["seats"][0]["away"] is False
    assert backs(tables, t) == [0]
    for seat in (1, 2, 3):
        assert tables.pass_(t, 1, 2, seat, tables.hand(t, seat)[:1]).status_code == 200
    assert backs(tables, t) == [0]
    # Away again in exchange 3; back in exchange 4 by the pass that completes it.
    time_out(app, tables, t, 0)
    for seat in (1, 2, 3):
        assert tables.pass_(t, 1, 3, seat, tables.hand(t, seat)[:1]).status_code == 200
    for seat in (1, 2, 3):
        assert tables.pass_(t, 1, 4, seat, tables.hand(t, seat)[:1]).status_code == 200
    assert backs(tables, t) == [0]
    assert tables.pass_(t, 1, 4, 0, tables.hand(t, 0)[:1]).status_code == 200
    view = tables.public(t)
    assert view["round"]["exchange"] == 5 and view["seats"][0]["away"] is False
    assert backs(tables, t) == [0, 0]
