"""May I? in the suites every game has: who may call which May I?
endpoint (the authorization matrix), the rate limits on its requests, its
event log's pages and 410 for a cursor too old, and ETag / If-None-Match on
its views, also when a May I? window closes by itself."""

from __future__ import annotations

import time
from typing import Any

import redis

from service import create_app

from ..conftest import RedisProcess, settings_for
from ..helpers import TableClient, bearer, snapshot
from .test_limits import assert_429, limited_client
from .test_may_i import answer, ask, move, new


def test_may_i_authorization_matrix(tables: TableClient, redis_client: redis.Redis) -> None:
    t = new(tables, may_i_window_ms=60_000)
    other = new(tables)
    c = tables.client
    moves, asks = f"{t.url}/rounds/1/moves/1", f"{t.url}/rounds/1/may-i"
    decline = {"json": {"decline": True}}
    before = snapshot(redis_client, t)
    cases = [
        # A move: the seat on turn only.
        (c.put(moves, **decline), 401, "token-missing"),
        (c.put(moves, headers={"Authorization": "Basic abc"}, **decline), 401, "token-malformed"),
        (c.put(moves, headers=bearer(other.seats[1]), **decline), 401, "token-unknown"),
        (c.put(moves, headers=bearer(t.host), **decline), 403, "seat-only"),
        (c.put(moves, headers=bearer(t.seats[2]), **decline), 409, "not-your-turn"),
        # A May I? request: a seat, not the host; before the decline it is not open.
        (c.post(asks, json={"offer": 1}), 401, "token-missing"),
        (c.post(asks, json={"offer": 1}, headers=bearer(t.host)), 403, "seat-only"),
        (ask(c, t, 3, 1), 409, "may-i-not-open"),
        # The host deals and finishes; seats do not.
        (c.post(f"{t.url}/rounds", headers=bearer(t.seats[1])), 403, "host-only"),
        (c.post(f"{t.url}/finish", headers=bearer(t.seats[1])), 403, "host-only"),
        # A seat's view: that seat's token only.
        (c.get(f"{t.url}/seats/1", headers=bearer(t.seats[2])), 403, "wrong-seat"),
        (c.get(f"{t.url}/seats/1", headers=bearer(t.host)), 403, "seat-only"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert snapshot(redis_client, t) == before  # every refusal changed nothing

    assert c.put(moves, headers=bearer(t.seats[1]), **decline).status_code == 200
    answers = f"{t.url}/rounds/1/may-i/1/answers/2"
    cases = [
        (ask(c, t, 1, 1), 422, "may-i-not-yours"),  # the seat on turn never asks
        (c.put(answers, json={"allow": False}), 401, "token-missing"),
        (c.put(answers, json={"allow": False}, headers=bearer(t.host)), 403, "seat-only"),
        (answer(c, t, 2, 1, False), 409, "may-i-not-asked"),  # nobody has asked yet
    ]
    for response, status, code in cases:
        assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert ask(c, t, 3, 1).status_code == 200
    cases = [
        # An answer is the seat's own: another seat's token may not give it.
        (c.put(answers, json={"allow": False}, headers=bearer(t.seats[0])), 403, "wrong-seat"),
        (c.put(answers, json={"allow": False}, headers=bearer(t.seats[3])), 403, "wrong-seat"),
        (answer(c, t, 3, 1, False), 422, "may-i-not-yours"),  # the asker does not answer
        (answer(c, t, 1, 1, False), 422, "may-i-not-yours"),  # nor the seat on turn
        (ask(c, t, 0, 1), 409, "may-i-taken"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert answer(c, t, 2, 1, False).status_code == 200
    # The checks need no token.
    r = c.post("/v1/checks/may-i/lay-down", json={"round": 1, "melds": [["5H", "5S", "5C"]]})
    assert r.status_code == 200 and r.get_json()["valid"] is False


def test_may_i_requests_count_on_the_seat_token(redis_server: RedisProcess) -> None:
    c = limited_client(redis_server, rate_limit_per_token="4/minute")
    tables = TableClient(c)
    t = new(tables, may_i_window_ms=60_000)
    seat1, seat3 = bearer(t.seats[1]), bearer(t.seats[3])
    assert [c.get(f"{t.url}/seats/1", headers=seat1).status_code for _ in range(3)] == [200] * 3
    assert move(tables, t, 1, 1, decline=True).status_code == 200  # seat 1's 4th request
    assert_429(move(tables, t, 1, 2, draw=True), 60)
    assert_429(c.get(t.url, headers=seat1), 60)  # every route counts on the token
    # Other seats have their own counters: a May I? request and its answers go on.
    assert ask(c, t, 3, 1).status_code == 200
    assert answer(c, t, 2, 1, True).status_code == 200
    assert answer(c, t, 0, 1, True).status_code == 200
    assert [c.get(f"{t.url}/seats/3", headers=seat3).status_code for _ in range(3)] == [200] * 3
    assert_429(ask(c, t, 3, 1), 60)  # a repeat is a request too


def test_refused_may_i_requests_are_not_refused_claims(redis_server: RedisProcess) -> None:
    # The refused-claims limit is for claims (My Ship Sails); a May I? that
    # is refused (taken, closed) is an ordinary request.
    c = limited_client(redis_server, rate_limit_failed_claims="1/minute")
    tables = TableClient(c)
    t = new(tables, may_i_window_ms=60_000)
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    assert ask(c, t, 3, 1).status_code == 200
    codes = [ask(c, t, 0, 1).get_json()["code"] for _ in range(3)]
    assert codes == ["may-i-taken"] * 3


def test_may_i_events_page_and_410_for_a_cursor_too_old(redis_server: RedisProcess) -> None:
    tables = TableClient(create_app(settings_for(redis_server.url, events_kept=4)).test_client())
    t = new(tables, may_i_window_ms=60_000)
    c = tables.client
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    assert ask(c, t, 3, 1).status_code == 200
    assert answer(c, t, 2, 1, False).status_code == 200
    assert answer(c, t, 0, 1, True).status_code == 200
    # created, dealt, declined, offered, asked, answered, answered, given: 8
    last = tables.public(t)["last_event"]
    assert last == 8
    r = c.get(f"{t.url}/events?after=0")
    assert r.status_code == 410 and r.get_json()["code"] == "events-gone"
    assert (r.get_json()["oldest_seq"], r.get_json()["last_event"]) == (5, 8)
    # The kept window, two at a time from the oldest kept.
    after, pages = 4, []
    while True:
        page = c.get(f"{t.url}/events?after={after}&limit=2").get_json()
        pages.append([(e["seq"], e["type"]) for e in page["events"]])
        if not page["events"] or page["next_after"] == after:
            break
        after = page["next_after"]
        if after == last:
            break
    assert pages == [
        [(5, "may-i-asked"), (6, "may-i-answered")],
        [(7, "may-i-answered"), (8, "may-i-given")],
    ]
    given = c.get(f"{t.url}/events?after=7").get_json()["events"][0]
    assert (given["seat"], given["card"], given["stock_cards"]) == (2, "2C", 1)
    # A move now trims the log again: the cursor that was fine is now too old.
    assert move(tables, t, 1, 2, draw=True).status_code == 200
    assert c.get(f"{t.url}/events?after=4").status_code == 410
    assert c.get(f"{t.url}/events?after=5").status_code == 200


def etag(r: Any) -> str:
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-cache"
    return str(r.headers["ETag"])


def test_may_i_views_answer_304_until_they_change_also_on_time(tables: TableClient) -> None:
    t = new(tables, may_i_window_ms=1_000)
    c = tables.client
    table_tag = etag(c.get(t.url))
    r = c.get(t.url, headers={"If-None-Match": table_tag})
    assert r.status_code == 304 and r.headers["ETag"] == table_tag and not r.get_data()
    # A seat's view is private: no cache may keep it, and it carries no tag.
    r = c.get(f"{t.url}/seats/3", headers={**bearer(t.seats[3]), "If-None-Match": table_tag})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert "ETag" not in r.headers

    assert move(tables, t, 1, 1, decline=True).status_code == 200
    offered = etag(c.get(t.url, headers={"If-None-Match": table_tag}))
    assert ask(c, t, 3, 1).status_code == 200
    asked = etag(c.get(t.url, headers={"If-None-Match": offered}))
    assert len({table_tag, offered, asked}) == 3
    assert c.get(t.url, headers={"If-None-Match": f'"x", W/{asked}'}).status_code == 304
    # Nobody answers: the window closes by itself and the card goes to seat 3.
    # Nothing was written, yet the view changes on time, and so does its tag.
    time.sleep(1.2)
    r = c.get(t.url, headers={"If-None-Match": asked})
    assert r.status_code == 200 and r.headers["ETag"] != asked
    assert r.get_json()["round"]["step"] == "stock"
    assert [s["cards"] for s in r.get_json()["seats"]] == [10, 10, 10, 12]
    assert c.get(t.url, headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
