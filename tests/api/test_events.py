"""The event log over HTTP: only the newest ``EVENTS_KEPT`` events are kept,
410 ``events-gone`` for a cursor older than those, ``last_event`` in the views,
and tables stored in the previous layout still read and played."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from service import create_app
from service.games import codec
from service.storage.store import TableStore, events_key, table_key

from ..conftest import RedisProcess, settings_for
from ..helpers import Table, TableClient, bearer, snapshot
from ..storage import layout_v1

KEPT = 10


@pytest.fixture()
def short(redis_server: RedisProcess) -> TableClient:
    """Tables on an app that keeps only the newest ``KEPT`` events."""
    return TableClient(create_app(settings_for(redis_server.url, events_kept=KEPT)).test_client())


def play_exchanges(tables: TableClient, t: Table, first: int, last: int) -> None:
    """Exchanges ``first..last`` of round 1 of a 4-seat table (each seat passes
    its first card): 5 events each."""
    for exchange in range(first, last + 1):
        for seat in range(4):
            r = tables.pass_(t, 1, exchange, seat, tables.hand(t, seat)[:1])
            assert r.status_code == 200, r.get_json()


def seqs(page: dict[str, Any]) -> list[int]:
    return [e["seq"] for e in page["events"]]


@pytest.fixture()
def long_table(short: TableClient) -> Table:
    """A 4-seat table with 17 events: created, dealt, three exchanges."""
    t = short.create(4, "classic", max_exchanges=50)
    assert short.deal(t).status_code == 201
    play_exchanges(short, t, 1, 3)
    return t


def test_the_list_keeps_the_newest_events_and_the_hash_counts_them_all(
    short: TableClient, long_table: Table, redis_client: redis.Redis
) -> None:
    t = long_table
    assert short.public(t)["last_event"] == 17
    assert redis_client.hget(table_key(t.table_id), "n") == b"17"
    assert redis_client.llen(events_key(t.table_id)) == KEPT
    kept = short.client.get(f"{t.url}/events?after=7").get_json()
    assert seqs(kept) == list(range(8, 18)) and kept["more"] is False
    assert (kept["next_after"], kept["last_event"], kept["oldest_seq"]) == (17, 17, 8)
    # The last exchange: four passes, then its resolution.
    assert [(e["type"], e.get("seat")) for e in kept["events"][-5:]] == [
        ("pass-chosen", 0),
        ("pass-chosen", 1),
        ("pass-chosen", 2),
        ("pass-chosen", 3),
        ("exchange-resolved", None),
    ]
    assert kept["events"][-1] == {
        "seq": 17,
        "at_ms": kept["events"][-1]["at_ms"],
        "type": "exchange-resolved",
        "round": 1,
        "exchange": 3,
    }


@pytest.mark.parametrize("after", [0, 1, 6])
def test_a_cursor_older_than_the_log_is_410_events_gone(
    short: TableClient, long_table: Table, after: int
) -> None:
    r = short.client.get(f"{long_table.url}/events?after={after}")
    assert r.status_code == 410
    assert r.content_type == "application/problem+json"
    body = r.get_json()
    last = short.public(long_table)["last_event"]
    assert body["code"] == "events-gone" and body["oldest_seq"] == 8
    assert body["last_event"] == last
    assert "last_event" in body["detail"] and "Re-read the table" in body["detail"]


def test_reading_from_last_event_minus_3_gets_the_last_3(
    short: TableClient, long_table: Table
) -> None:
    last = short.public(long_table)["last_event"]
    page = short.client.get(f"{long_table.url}/events?after={last - 3}").get_json()
    assert seqs(page) == [last - 2, last - 1, last]
    assert [e["type"] for e in page["events"]] == ["pass-chosen"] * 2 + ["exchange-resolved"]
    assert page == {
        "events": page["events"],
        "next_after": last,
        "more": False,
        "last_event": last,
        "oldest_seq": 8,
    }
    # Nothing after the last event, as before.
    empty = short.client.get(f"{long_table.url}/events?after={last}").get_json()
    assert empty == {
        "events": [],
        "next_after": last,
        "more": False,
        "last_event": last,
        "oldest_seq": 8,
    }


@pytest.mark.parametrize("ahead", [1, 100])
def test_a_cursor_past_the_last_event_is_410_too(
    short: TableClient, long_table: Table, ahead: int
) -> None:
    # Only a reset log (Redis lost its newest writes) or another table's
    # cursor gets here; its seqs will be reused, so the follower must re-read.
    last = short.public(long_table)["last_event"]
    r = short.client.get(f"{long_table.url}/events?after={last + ahead}")
    assert r.status_code == 410
    body = r.get_json()
    assert body["code"] == "events-gone"
    assert (body["oldest_seq"], body["last_event"]) == (8, last)
    assert f"has no event {last + ahead}: its last is {last}" in body["detail"]


def test_paging_across_the_kept_window(short: TableClient, long_table: Table) -> None:
    whole = short.client.get(f"{long_table.url}/events?after=7").get_json()["events"]
    pages, events, after, more = [], [], 7, True
    while more:
        page = short.client.get(f"{long_table.url}/events?after={after}&limit=3").get_json()
        pages.append(seqs(page))
        events.extend(page["events"])
        after, more = page["next_after"], page["more"]
    assert pages == [[8, 9, 10], [11, 12, 13], [14, 15, 16], [17]]
    assert events == whole


def test_a_client_follows_the_view_and_the_log_across_trimming(short: TableClient) -> None:
    """Read the view, follow ``/events?after=last_event``; when the log has moved
    on past the cursor, 410, re-read the view and go on from its ``last_event``."""
    t = short.create(4, "classic", max_exchanges=50)
    created_last = t.created["table"]["last_event"]
    assert created_last == 1  # table-created (the first dealer was given)
    dealt = short.deal(t).get_json()
    assert dealt["table"]["last_event"] == 2
    cursor = short.public(t)["last_event"]
    play_exchanges(short, t, 1, 1)
    page = short.client.get(f"{t.url}/events?after={cursor}").get_json()
    assert seqs(page) == [3, 4, 5, 6, 7]
    cursor = page["next_after"]
    play_exchanges(short, t, 2, 3)  # 10 more: exactly what is kept
    assert seqs(short.client.get(f"{t.url}/events?after={cursor}").get_json())[0] == 8
    play_exchanges(short, t, 4, 4)  # 5 more: the cursor's successor is gone
    assert short.client.get(f"{t.url}/events?after={cursor}").status_code == 410
    view = short.public(t)
    assert view["last_event"] == 22
    seat = short.client.get(f"{t.url}/seats/1", headers=bearer(t.seats[1])).get_json()
    assert seat["last_event"] == 22
    finished = short.client.post(f"{t.url}/finish", headers=bearer(t.host)).get_json()
    assert finished["last_event"] == 24  # round-abandoned, match-abandoned
    page = short.client.get(f"{t.url}/events?after={view['last_event']}").get_json()
    assert [e["type"] for e in page["events"]] == ["round-abandoned", "match-abandoned"]


def test_refusals_on_a_trimmed_log_leave_redis_byte_for_byte(
    short: TableClient, long_table: Table, redis_client: redis.Redis
) -> None:
    t = long_table
    before = snapshot(redis_client, t)
    hand = short.hand(t, 0)
    assert short.pass_(t, 1, 4, 0, hand[:1], token=t.seats[1]).status_code == 403
    assert short.pass_(t, 1, 3, 0, hand[:1]).status_code == 409  # stale exchange
    assert short.pass_(t, 1, 4, 0, ["ZZ"]).status_code == 422
    assert short.client.get(f"{t.url}/events?after=0").status_code == 410
    assert short.client.post(f"{t.url}/rounds", headers=bearer(t.host)).status_code == 409
    assert snapshot(redis_client, t) == before


def test_a_logged_refusal_is_trimmed_in_like_any_event(
    short: TableClient, long_table: Table, redis_client: redis.Redis
) -> None:
    t = long_table
    r = short.claim(t, 1, 0)
    assert r.status_code == 422 and r.get_json()["code"] == "claim-not-winning"
    assert redis_client.llen(events_key(t.table_id)) == KEPT
    page = short.client.get(f"{t.url}/events?after=8").get_json()
    assert seqs(page) == list(range(9, 19))
    assert page["events"][-1]["type"] == "claim-rejected"
    assert short.client.get(f"{t.url}/events?after=7").get_json()["code"] == "events-gone"


def test_events_of_a_missing_table_are_404(short: TableClient) -> None:
    r = short.client.get("/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/events")
    assert r.status_code == 404 and r.get_json()["code"] == "table-not-found"


def test_a_store_keeps_at_least_one_event(redis_client: redis.Redis) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TableStore(redis_client, codec, 60, events_kept=0)


def test_a_table_stored_in_the_previous_layout_is_read_and_played(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    """fmt 1 state, hex token digests, events with their seq: as the service
    wrote them before; tables live for days, across deploys."""
    t = tables.create(4, "circle", claim_window_ms=0)
    assert tables.deal(t).status_code == 201
    play_exchanges(tables, t, 1, 1)
    view, events = tables.public(t), tables.events(t)
    key, log = table_key(t.table_id), events_key(t.table_id)
    state = codec.decode(redis_client.hget(key, "s") or b"")
    redis_client.hset(key, "s", layout_v1.encode(state, [state.round.last_passes]))
    redis_client.hset(key, "a", layout_v1.auth_record(t.host, t.seats))
    old = [layout_v1.event(e["seq"], e["at_ms"], strip(e)) for e in events]
    redis_client.delete(log)
    redis_client.rpush(log, *old)
    assert json.loads(redis_client.hget(key, "s") or b"")["fmt"] == 1

    assert tables.public(t) == view
    assert tables.events(t) == events
    assert tables.hand(t, 0)  # the seat's hex digest still matches its token
    play_exchanges(tables, t, 2, 2)
    after = tables.events(t)
    assert after[: len(events)] == events
    assert [e["seq"] for e in after] == list(range(1, len(events) + 6))
    assert [e["type"] for e in after[len(events) :]] == ["pass-chosen"] * 4 + ["exchange-resolved"]
    assert json.loads(redis_client.hget(key, "s") or b"")["fmt"] == 4
    assert tables.client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200


def strip(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("seq", "at_ms")}
