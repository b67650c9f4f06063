"""Streams as a cheating player would try them, over real HTTP: a ticket
shown at another seat, cursors of every odd shape, more streams than an
instance may hold."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from service import create_app
from service.edge.auth import stored_digest
from service.resources.streams import endpoints as streams
from service.storage.store import table_key

from ..conftest import RedisProcess, Served, settings_for
from ..helpers import WORKED_HANDS, TableClient, bearer, snapshot
from .sse import AppReader, HttpClient, Reader


@pytest.fixture(scope="module")
def attacked(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("attacked"),
        WEB_CONCURRENCY="1",
        STREAM_MAX_OPEN="3",
        STREAM_HEARTBEAT_SECONDS="1",
        STREAM_LIFETIME_SECONDS="5",
    )
    yield service
    service.stop()


def open_when_room(url: str, **headers: str) -> Reader:
    """A stream, once the streams an earlier test cut have ended on the
    server too (it finds out at its next heartbeat)."""
    deadline = time.monotonic() + 10
    while True:
        reader = Reader(url, **headers)
        if reader.status == 200 or time.monotonic() > deadline:
            assert reader.status == 200
            return reader
        reader.close()
        time.sleep(0.2)


def test_a_ticket_shown_at_another_seat_opens_nothing_and_is_kept(
    attacked: Served, redis_server: RedisProcess
) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    tables.deal(t, WORKED_HANDS)
    got = requests.post(f"{attacked.base}{t.url}/seats/1/tickets", headers=bearer(t.seats[1]))
    assert got.status_code == 200
    assert got.headers["Cache-Control"] == "no-store"  # a secret, as a token is
    ticket = got.json()["ticket"]
    r = redis.Redis.from_url(redis_server.url)
    before = snapshot(r, t)
    wrong = requests.get(f"{attacked.base}{t.url}/seats/2/stream?ticket={ticket}", timeout=5)
    assert (wrong.status_code, wrong.json()["code"]) == (401, "ticket-invalid")
    assert snapshot(r, t) == before  # a refused request changes nothing
    # ... so the ticket still opens its own seat's stream, once.
    reader = Reader(f"{attacked.base}{t.url}/seats/1/stream?ticket={ticket}")
    assert reader.status == 200
    seat = reader.until("seat")[-1]
    reader.close()
    assert seat.data["seat"] == 1


@pytest.mark.parametrize(
    "cursor",
    ["9999999999999999", "9999999999999999.00000000", "0.00000000", "1.deadbeef", "3"],
)
def test_a_cursor_past_or_beside_the_log_is_a_200_never_a_500(
    attacked: Served, cursor: str
) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    for how in ({"Last-Event-ID": cursor}, {}):
        url = f"{attacked.base}{t.url}/stream" + ("" if how else f"?after={cursor}")
        reader = open_when_room(url, **how)
        assert reader.status == 200
        frames = reader.until("heartbeat")
        reader.close()
        assert all(f.event in ("message", "events-gone", "heartbeat") for f in frames)


@pytest.mark.parametrize(
    "cursor",
    ["-1", "1.DEADBEEF", "12345678901234567", "1.", "\u00b2", "1e3", "0x10", "1.deadbeef0"],
)
def test_a_garbage_cursor_is_422(attacked: Served, cursor: str) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    got = requests.get(
        f"{attacked.base}{t.url}/stream", headers={"Last-Event-ID": cursor}, timeout=5
    )
    assert (got.status_code, got.json()["code"]) == (422, "cursor-invalid")


def test_no_more_streams_open_than_stream_max_open_even_all_at_once(attacked: Served) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    start = threading.Barrier(12)
    readers: list[Reader] = []
    lock = threading.Lock()

    def opener() -> None:
        start.wait()
        reader = Reader(f"{attacked.base}{t.url}/stream")
        with lock:
            readers.append(reader)

    threads = [threading.Thread(target=opener) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(r.status for r in readers)
    for reader in readers:
        reader.close()
    assert statuses.count(200) <= 3, statuses
    assert statuses.count(503) >= 9, statuses


def test_a_refused_stream_gives_its_place_back(attacked: Served) -> None:
    """Each refusal after the place was taken (a wrong token, a spent ticket,
    a table that is not there) gives it back: three of each, and the
    instance's three places are still free."""
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    seat = f"{attacked.base}{t.url}/seats/1/stream"

    def refusal(url: str, **headers: str) -> Reader:
        # 503 while earlier tests' streams still hold the places (they end
        # on the server at their next heartbeat); never again once given back.
        deadline = time.monotonic() + 10
        while True:
            reader = Reader(url, **headers)
            if reader.status != 503 or time.monotonic() > deadline:
                return reader
            time.sleep(0.2)

    refused = [
        reader
        for _ in range(3)
        for reader in (
            refusal(seat, Authorization=f"Bearer {t.seats[0]}"),
            refusal(f"{seat}?ticket={'x' * 43}"),
            refusal(f"{attacked.base}/v1/tables/{'A' * 24}/stream"),
        )
    ]
    assert [r.status for r in refused] == [403, 401, 404] * 3
    # Once earlier tests' streams have ended on the server too, all three
    # open: a place kept by a refusal would never come back.
    readers = [open_when_room(f"{attacked.base}{t.url}/stream") for _ in range(3)]
    try:
        assert [r.status for r in readers] == [200, 200, 200]
    finally:
        for reader in readers:
            reader.close()


def test_a_token_reissued_while_its_stream_opens_closes_that_stream(
    redis_server: RedisProcess, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream holds the digest its request was authorised with: a
    reissue between the check and the stream's first read must not hand
    the old token's holder the new holder's view."""
    app = create_app(settings_for(redis_server.url, stream_lifetime_seconds=3))
    tables = TableClient(app.test_client())
    t = tables.create(variant="mein-schiff")
    tables.deal(t, WORKED_HANDS)
    real_load = streams.load

    def load_then_reissue(table_id: str, **kwargs: Any) -> Any:
        loaded = real_load(table_id, **kwargs)
        record = json.loads(redis_client.hget(table_key(table_id), "a"))
        record["s"][1] = stored_digest("the new holder's token")
        redis_client.hset(table_key(table_id), "a", json.dumps(record))
        return loaded

    monkeypatch.setattr(streams, "load", load_then_reissue)
    reader = AppReader(app.test_client(), f"{t.url}/seats/1/stream", **bearer(t.seats[1]))
    assert reader.status == 200
    frames = reader.until("seat-closed")
    assert [f.event for f in frames if f.event != "message"] == ["seat-closed"]


def test_refused_tickets_and_seat_streams_change_nothing(
    attacked: Served, redis_server: RedisProcess
) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    open_when_room(f"{attacked.base}{t.url}/stream").close()
    time.sleep(2.5)  # the streams cut before end at their next heartbeat (1 s)
    r = redis.Redis.from_url(redis_server.url)
    before = snapshot(r, t)
    base = f"{attacked.base}{t.url}/seats"
    refused = [
        requests.post(f"{base}/1/tickets", headers=bearer(t.seats[2]), timeout=5),
        requests.post(f"{base}/1/tickets", headers=bearer("not-a-token"), timeout=5),
        requests.post(f"{base}/7/tickets", headers=bearer(t.seats[1]), timeout=5),
        requests.get(f"{base}/1/stream", headers=bearer(t.seats[2]), timeout=5),
        requests.get(f"{base}/1/stream?ticket=nothing", timeout=5),
        requests.get(f"{base}/1/stream?ticket=" + "x" * 101, timeout=5),
    ]
    assert [x.status_code for x in refused] == [403, 401, 404, 403, 401, 422]
    assert snapshot(r, t) == before


def test_a_table_that_expires_ends_its_streams_at_the_next_heartbeat(
    attacked: Served, redis_server: RedisProcess
) -> None:
    """Expiry announces nothing on the feed: the stream finds out by reading."""
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    reader = open_when_room(f"{attacked.base}{t.url}/stream")
    reader.until("message")
    r = redis.Redis.from_url(redis_server.url)
    for key in r.scan_iter(match=f"*{{{t.table_id}}}*"):
        r.pexpire(key, 1)
    frames = reader.until("table-deleted", timeout=5)
    assert frames[-1].data == {"table": t.table_id}
    assert reader.next() is None


def test_a_ticket_refused_for_want_of_room_is_not_spent(attacked: Served) -> None:
    tables = TableClient(HttpClient(attacked.base))
    t = tables.create(variant="mein-schiff")
    full = [open_when_room(f"{attacked.base}{t.url}/stream") for _ in range(3)]
    got = requests.post(f"{attacked.base}{t.url}/seats/1/tickets", headers=bearer(t.seats[1]))
    url = attacked.base + got.json()["stream"]
    refused = requests.get(url, timeout=5)
    assert (refused.status_code, refused.json()["code"]) == (503, "streams-full")
    for reader in full:
        reader.close()
    reader = open_when_room(url)  # the same ticket, once there is room
    assert reader.until("seat")[-1].data["seat"] == 1
    reader.close()
