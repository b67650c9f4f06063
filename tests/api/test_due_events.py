"""Events whose time has come (a May I? window that lapsed, a request that
silence allowed, a claim window that closed) are in the views, the event log,
``last_event`` and the ETag from that instant on, before anyone writes; the
first accepted write stores them with the same seqs and the same content, and
a refused request stores nothing (issue 24, item 4)."""

from __future__ import annotations

import time
from typing import Any

import redis

from ..helpers import TableClient, bearer, snapshot
from ..may_i.common import full_deal
from .test_errors_and_auth import WINNING_AT_DEAL

HAND1 = ["5H", "5S", "5C", "9D", "TD", "JD", "QD", "KD", "3C", "8H"]


def _wait_until(ms: int) -> None:
    """Sleep until the wall clock (Redis's, on this machine) is past ``ms``."""
    time.sleep(max(0.0, ms / 1000 - time.time()) + 0.15)


def test_a_lapsed_may_i_window_is_logged_before_anyone_writes(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=1500)
    deal = full_deal("may-i", 4, {1: HAND1}, discard="KH")
    assert tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host)).status_code
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"decline": True}, headers=bearer(t.seats[1])
    )
    assert r.status_code == 200, r.get_json()
    offered = tables.client.get(t.url)
    offer = offered.get_json()["round"]["may_i"]
    assert offer["card"] == "KH" and offer["asker"] is None
    assert offered.get_json()["last_event"] == 4
    _wait_until(offer["until_ms"])

    view = tables.client.get(t.url)
    assert view.get_json()["round"]["step"] == "stock"
    assert view.get_json()["round"]["may_i"] is None
    # table-created, round-dealt, discard-declined, may-i-offered: then the lapse.
    assert view.get_json()["last_event"] == 5
    log = tables.client.get(f"{t.url}/events?after=0").get_json()
    assert log["last_event"] == 5
    assert log["events"][-1] == {
        "seq": 5,
        "at_ms": offer["until_ms"],
        "type": "may-i-lapsed",
        "round": 1,
        "offer": 1,
    }
    seat_view = tables.client.get(f"{t.url}/seats/2", headers=bearer(t.seats[2]))
    assert seat_view.get_json()["last_event"] == 5
    view = tables.client.get(t.url)  # seat 2 is connected now (RULES.md 5.5)
    assert [s["connected"] for s in view.get_json()["seats"]] == [False, True, True, False]
    etag = view.headers["ETag"]
    assert etag != offered.headers["ETag"]

    before = snapshot(redis_client, t)
    r = tables.client.post(f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=bearer(t.seats[3]))
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-closed"
    assert snapshot(redis_client, t) == before
    again = tables.client.get(t.url)
    assert again.headers["ETag"] == etag and again.get_json() == view.get_json()
    assert tables.client.get(f"{t.url}/events?after=0").get_json() == log

    # The first accepted write stores the lapse as it was shown, then its own events.
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/2", json={"draw": True}, headers=bearer(t.seats[1])
    )
    assert r.status_code == 200, r.get_json()
    stored = tables.client.get(f"{t.url}/events?after=0").get_json()
    assert stored["events"][:5] == log["events"]
    assert stored["events"][5]["type"] == "stock-drawn"
    assert stored["last_event"] == 6 == tables.public(t)["last_event"]
    assert redis_client.llen(f"referee:{{{t.table_id}}}:events") == 6


def test_a_request_that_silence_allows_is_logged_at_its_window(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=1_000)
    deal = full_deal("may-i", 4, {1: HAND1}, discard="KH")
    tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
    tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"decline": True}, headers=bearer(t.seats[1])
    )
    r = tables.client.post(f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=bearer(t.seats[3]))
    assert r.status_code == 200, r.get_json()
    until = tables.public(t)["round"]["may_i"]["until_ms"]
    _wait_until(until)
    log = tables.client.get(f"{t.url}/events?after=5").get_json()
    given = log["events"][0]
    assert (given["seq"], given["type"], given["seat"], given["at_ms"]) == (
        6,
        "may-i-given",
        3,
        until,
    )
    assert tables.public(t)["last_event"] == log["last_event"] == 5 + len(log["events"])
    before = snapshot(redis_client, t)
    r = tables.client.put(
        f"{t.url}/rounds/1/may-i/1/answers/0", json={"allow": False}, headers=bearer(t.seats[0])
    )
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-closed"
    assert snapshot(redis_client, t) == before


def _claim_window_table(tables: TableClient) -> Any:
    t = tables.create(4, claim_window_ms=1_000)
    assert tables.deal(t, WINNING_AT_DEAL).status_code == 201
    r = tables.claim(t, 1, 0)
    assert r.status_code == 200, r.get_json()
    return t, r.get_json()["window_closes_at_ms"]


def test_a_closed_claim_window_is_logged_before_anyone_writes(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t, closes = _claim_window_table(tables)
    # The claim's event is the last one written (a read may come after the close).
    last = [e for e in tables.events(t) if e["type"] == "claim-accepted"][0]["seq"]
    _wait_until(closes)
    view = tables.public(t)
    assert view["round"]["status"] == "over"
    log = tables.client.get(f"{t.url}/events?after={last}").get_json()
    won = log["events"][0]
    assert (won["seq"], won["type"], won["at_ms"]) == (last + 1, "round-won", closes + 1)
    assert view["last_event"] == log["last_event"] == last + len(log["events"])
    before = snapshot(redis_client, t)
    r = tables.claim(t, 1, 1)
    assert r.status_code == 409 and r.get_json()["code"] == "claim-window-closed"
    assert snapshot(redis_client, t) == before
    # The next deal stores the settlement as shown.
    assert tables.deal(t).status_code == 201
    stored = tables.client.get(f"{t.url}/events?after={last}").get_json()["events"]
    assert stored[: len(log["events"])] == log["events"]


def test_a_move_read_before_the_window_closed_is_not_stored_after_it(
    app: Any, tables: TableClient, redis_client: redis.Redis
) -> None:
    # A request that read the table while the window was open but commits
    # after it closed (a slow worker) would store an ask against a lapse a
    # read has already shown: its commit is refused and the move runs again.
    from service.edge.common import referee
    from service.games.errors import RuleViolation
    from service.games.may_i import engine

    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=1_000)
    deal = full_deal("may-i", 4, {1: HAND1}, discard="KH")
    tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
    tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"decline": True}, headers=bearer(t.seats[1])
    )
    until = tables.public(t)["round"]["may_i"]["until_ms"]
    runs: list[int] = []

    def slow_ask(loaded: Any) -> Any:
        runs.append(loaded.now_ms)
        transition = engine.ask(loaded.table, 1, 1, 3, loaded.now_ms)
        if len(runs) == 1:
            _wait_until(until)  # the window closes while this move is computed
            assert tables.public(t)["last_event"] == 5  # and a read shows the lapse
        return transition

    with app.app_context():
        store = referee().store
        try:
            store.apply(t.table_id, slow_ask)
        except RuleViolation as refused:
            assert refused.code == "may-i-closed"
        else:
            raise AssertionError("the ask was stored after the window closed")
    assert len(runs) == 2 and runs[0] < until <= runs[1]
    log = tables.client.get(f"{t.url}/events?after=4").get_json()["events"]
    assert [e["type"] for e in log] == ["may-i-lapsed"]
    assert redis_client.llen(f"referee:{{{t.table_id}}}:events") == 4  # nothing stored


def test_an_answer_read_before_the_window_closed_is_not_stored_after_it(
    app: Any, tables: TableClient, redis_client: redis.Redis
) -> None:
    # The same for an answer (a choice, choose.lua): a read has shown the
    # card given to the asker by silence; a late deny must not take it.
    from service.edge.common import referee
    from service.games.errors import RuleViolation
    from service.games.may_i import engine

    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=1_000)
    deal = full_deal("may-i", 4, {1: HAND1}, discard="KH")
    tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
    tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"decline": True}, headers=bearer(t.seats[1])
    )
    r = tables.client.post(f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=bearer(t.seats[3]))
    assert r.status_code == 200, r.get_json()
    until = tables.public(t)["round"]["may_i"]["until_ms"]
    runs: list[int] = []

    def slow_deny(loaded: Any) -> Any:
        runs.append(loaded.now_ms)
        transition = engine.answer(loaded.table, 1, 1, 2, False, loaded.now_ms)
        if len(runs) == 1:
            _wait_until(until)
            assert [s["cards"] for s in tables.public(t)["seats"]] == [10, 10, 10, 12]
        return transition

    with app.app_context():
        try:
            referee().store.apply(t.table_id, slow_deny)
        except RuleViolation as refused:
            assert refused.code == "may-i-closed"
        else:
            raise AssertionError("the deny was stored after the window closed")
    assert [s["cards"] for s in tables.public(t)["seats"]] == [10, 10, 10, 12]
    assert not redis_client.exists(f"referee:{{{t.table_id}}}:choices")
