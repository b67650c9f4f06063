"""A request's table read rides on its rate limiter's round trip (service.edge.prefetch).

Round trips are counted on the wire (the benchmark's counting connection);
the limits stay on, so each count includes the limiter's counter.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis

from benchmarks.redis_cost import counting, counting_client
from service import create_app
from service.games.errors import RuleViolation
from service.games.ship import engine

from ..conftest import RedisProcess, settings_for
from ..helpers import TableClient, bearer, snapshot
from .test_limits import assert_429, client_at


def counted_app(redis_server: RedisProcess, **limits: str) -> Any:
    return create_app(settings_for(redis_server.url, **limits), counting_client(redis_server.url))


def test_a_pass_costs_two_round_trips_and_a_view_one(redis_server: RedisProcess) -> None:
    app = counted_app(redis_server)
    tables = TableClient(app.test_client())
    t = tables.create(4, "classic")
    tables.deal(t)
    assert tables.pass_(t, 1, 1, 1, [tables.hand(t, 1)[0]]).status_code == 200  # loads the script
    card = tables.hand(t, 0)[0]
    with counting() as passed:
        r = tables.pass_(t, 1, 1, 0, [card])
    assert r.status_code == 200
    # The limiter's counters (the token's, the address's), the table and the
    # clock; then the commit.
    assert passed.round_trips == 2
    assert passed.commands == {"EVALSHA": 3, "HMGET": 1, "HGETALL": 2, "TIME": 1}
    with counting() as viewed:
        view = tables.public(t)
    assert viewed.round_trips == 1
    assert viewed.commands == {"EVALSHA": 2, "HMGET": 1, "HGETALL": 2, "TIME": 1}
    assert view["awaiting"]["seats"] == [2, 3]
    assert tables.pass_(t, 1, 1, 2, [tables.hand(t, 2)[0]]).status_code == 200
    card = tables.hand(t, 3)[0]
    with counting() as completed:
        r = tables.pass_(t, 1, 1, 3, [card])
    # The last choice and the exchange's resolution are one commit.
    assert r.status_code == 200 and r.get_json()["resolved"] is True
    assert completed.round_trips == 2
    assert completed.commands == {"EVALSHA": 3, "HMGET": 1, "HGETALL": 2, "TIME": 1}


def test_the_limit_still_holds_and_a_refused_request_writes_no_table(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    app = counted_app(redis_server, rate_limit_per_token="2/minute")
    tables = TableClient(client_at(app, "10.9.8.7"))
    t = tables.create(4, "classic")
    tables.deal(t)  # the host's token
    hand = tables.hand(t, 0)  # seat 0's token: 1 of 2
    assert tables.pass_(t, 1, 1, 0, [hand[0]]).status_code == 200  # 2 of 2
    before = snapshot(redis_client, t)
    assert_429(tables.pass_(t, 1, 1, 0, [hand[1]]), at_most=60)
    assert snapshot(redis_client, t) == before


def test_a_read_made_stale_by_another_process_is_read_again(redis_server: RedisProcess) -> None:
    # Two apps stand for two gunicorn workers: the second commits between
    # the first's prefetched read and its commit. Another seat's pass does
    # not make a pass stale (choices commute); the end of the match does, and
    # the version check catches it.
    first = create_app(settings_for(redis_server.url))
    second = create_app(settings_for(redis_server.url))
    tables = TableClient(first.test_client())
    t = tables.create(4, "classic")
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    store = first.extensions["referee"].store
    other = TableClient(second.test_client())
    lost: list[int] = []
    store.on_conflict = lambda: lost.append(1)

    def move(seat: int) -> Any:
        return lambda loaded: engine.choose_pass(
            loaded.table, 1, 1, seat, [hands[seat][0]], loaded.now_ms
        )

    pipe = store.client.pipeline(transaction=False)
    stale = store.queue_load(pipe, t.table_id)(pipe.execute())
    assert other.pass_(t, 1, 1, 1, [hands[1][0]]).status_code == 200
    store.apply(t.table_id, move(0), prefetched=stale)
    assert lost == []
    assert tables.public(t)["awaiting"]["seats"] == [2, 3]
    pipe = store.client.pipeline(transaction=False)
    stale = store.queue_load(pipe, t.table_id)(pipe.execute())
    assert other.client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200
    with pytest.raises(RuleViolation) as refused:
        store.apply(t.table_id, move(2), prefetched=stale)
    assert refused.value.code == "round-over"
    assert lost == [1]  # the stale read lost the race once, then ran on the new state


def test_a_flushed_script_cache_is_loaded_again(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    app = counted_app(redis_server)
    tables = TableClient(app.test_client())
    t = tables.create(4, "classic")
    redis_client.script_flush()
    r = tables.deal(t)
    assert r.status_code == 201, r.get_json()
    seat = app.test_client().get(f"{t.url}/seats/0", headers=bearer(t.seats[0]))
    assert seat.status_code == 200 and len(seat.get_json()["hand"]) == 7


def test_an_id_that_cannot_be_a_table_is_not_read(redis_server: RedisProcess) -> None:
    app = counted_app(redis_server)
    client = app.test_client()
    for path in ("/v1/tables/aaaaaaaaaaaaaaaa%0A", "/v1/tables/short", "/v1/tables/" + "a" * 65):
        with counting() as tally:
            r = client.get(path)
        assert r.status_code == 404 and r.get_json()["code"] == "table-not-found"
        assert tally.commands == {"EVALSHA": 2}  # the rate limits' counters only


def test_a_claim_reads_its_refused_claims_counter_on_the_same_round_trip(
    redis_server: RedisProcess,
) -> None:
    app = counted_app(redis_server)
    tables = TableClient(app.test_client())
    t = tables.create(4, "classic")
    tables.deal(t)
    with counting() as claimed:
        r = tables.claim(t, 1, 0)
    assert r.status_code == 422
    # Counter, refused-claims count, table and clock; the refusal's commit;
    # then the refused-claims counter.
    assert claimed.round_trips == 3
    assert claimed.commands == {"EVALSHA": 4, "GET": 1, "HMGET": 1, "HGETALL": 2, "TIME": 1}


def test_a_bearer_value_that_is_no_token_of_the_table_costs_one_more_round_trip(
    redis_server: RedisProcess,
) -> None:
    app = counted_app(redis_server)
    client = app.test_client()
    t = TableClient(client).create(4, "classic")
    with counting() as junk:
        r = client.get(t.url, headers=bearer("not-a-token"))
    assert r.status_code == 200
    # The token's counter with the read; then the address's counter.
    assert junk.round_trips == 2
    assert junk.commands == {"EVALSHA": 3, "HMGET": 1, "HGETALL": 2, "TIME": 1}
    assert client.get(f"{t.url}/events").status_code == 200  # loads the page's script
    with counting() as events:
        r = client.get(f"{t.url}/events", headers=bearer(t.host))
    assert r.status_code == 200
    # The events do not read the table: the limiter reads its auth record alone.
    assert events.round_trips == 2 and events.commands == {"EVALSHA": 3, "HGET": 1}
