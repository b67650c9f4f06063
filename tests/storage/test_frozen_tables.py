"""Tables stored by the release before games became plug-ins still load and
play on: each fixture in ``frozen/`` is a table as that release wrote it
(state, events, auth record), put into Redis as it was kept there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import redis

from service.storage.store import events_key, table_key

from ..helpers import Table, TableClient, bearer

FROZEN = Path(__file__).parent / "frozen"


def restore(r: redis.Redis, name: str, table_id: str) -> tuple[Table, dict[str, Any]]:
    """Write a frozen table under ``table_id`` exactly as the old release kept it."""
    frozen = json.loads((FROZEN / f"{name}.json").read_text())
    r.hset(
        table_key(table_id),
        mapping={
            "v": 7,
            "n": len(frozen["events"]),
            "s": frozen["state"],
            "a": json.dumps(frozen["auth"], separators=(",", ":")),
        },
    )
    r.rpush(events_key(table_id), *frozen["events"])
    for key in (table_key(table_id), events_key(table_id)):
        r.expire(key, 3600)
    return Table(table_id, frozen["host_token"], frozen["seat_tokens"], {}), frozen


def test_a_classic_table_stored_mid_exchange_plays_on(
    redis_client: redis.Redis, tables: TableClient, client: Any
) -> None:
    t, _ = restore(redis_client, "classic_mid_exchange", "frozen-classic-000001")
    view = tables.public(t)
    assert view["game"] == "my-ship-sails"
    assert view["variant"] == "classic"
    assert view["round"]["exchange"] == 2
    assert [s["chosen"] for s in view["seats"]] == [True, False, True, False]
    before = sorted(c for s in range(4) for c in tables.hand(t, s))
    passed = {}
    for seat in (1, 3):
        passed[seat] = tables.hand(t, seat)[0]
        r = tables.pass_(t, 1, 2, seat, [passed[seat]])
        assert r.status_code == 200, r.get_json()
    after = tables.public(t)
    assert after["round"]["exchange"] == 3 and after["round"]["exchanges_resolved"] == 2
    # Its first exchange (kept in the old state) and its last are repeated alike.
    for exchange, seat, card in ((1, 1, "AS"), (1, 3, "KH"), (2, 3, passed[3])):
        r = tables.pass_(t, 1, exchange, seat, [card])
        assert r.status_code == 200 and r.get_json()["resolved"] is True, r.get_json()
    seat = client.get(f"{t.url}/seats/3", headers=bearer(t.seats[3])).get_json()
    # Passes go left: seat 3 gave to seat 0, and got seat 2's card, chosen
    # before the table was stored.
    assert seat["passed"] == [passed[3]] and seat["received"] == ["JC"]
    assert sorted(c for s in range(4) for c in tables.hand(t, s)) == before
    events = tables.events(t)
    assert [e["type"] for e in events[:3]] == ["table-created", "round-dealt", "pass-chosen"]
    assert events[-1]["type"] == "exchange-resolved" and events[-1]["seq"] == len(events)


def test_an_ochse_table_stored_after_a_round_keeps_its_chips_and_plays_on(
    redis_client: redis.Redis, tables: TableClient, client: Any
) -> None:
    t, _ = restore(redis_client, "ochse_round_two", "frozen-ochse-00000001")
    view = tables.public(t)
    assert [s["chips"] for s in view["seats"]] == [-3, -4, 10, -3]
    assert view["rounds_played"] == 1
    assert view["last_result"]["winners"] == [2]
    assert view["last_result"]["set_aside"] == []  # stored before results showed it
    # Stored with every result in its state: its rounds are listed from there.
    listed = client.get(f"{t.url}/rounds").get_json()
    assert listed["rounds"] == [view["last_result"]] and listed["last_round"] == 1
    # RULES.md 2.11: with chips, standings rank by net chips first.
    assert [s["seat"] for s in view["standings"]] == [2, 0, 3, 1]
    rnd = view["round"]
    assert rnd["number"] == 2 and rnd["status"] == "passing"
    seat = rnd["choosers"][0]
    card = tables.hand(t, seat)[0]
    r = tables.pass_(t, 2, rnd["exchange"], seat, [card])
    assert r.status_code == 200 and r.get_json()["resolved"] is True
    receiver = (seat + 1) % 4
    assert (
        card
        in client.get(f"{t.url}/seats/{receiver}", headers=bearer(t.seats[receiver])).get_json()[
            "hand"
        ]
    )
