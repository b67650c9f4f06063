"""Presence (RULES.md 5.5) through two real gunicorn instances (two workers
each) on one real Redis: a seat's requests and its own stream make it
connected in the views and announce it on every stream, wherever they are
served; it drops out with nobody calling the table; a refused request or a
token that is not the seat's changes nothing; a seat's requests do not each
cost a write; the table's ETag moves only when a seat's ``connected`` does."""

from __future__ import annotations

import contextlib
import queue
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service import create_app
from service.storage.store import presence_key

from ..conftest import RedisProcess, Served, settings_for
from ..helpers import TableClient, bearer, snapshot
from .sse import Frame, HttpClient, Reader

WINDOW = 1.5
"""PRESENCE_SECONDS of the instances here (RULES.md's 15 s, shortened)."""


@pytest.fixture(scope="module")
def instances(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, Served]]:
    """Two instances (two machines, as far as presence can tell) on one Redis."""
    env = {
        "PRESENCE_SECONDS": str(WINDOW),
        "STREAM_HEARTBEAT_SECONDS": "30",
        "STREAM_LIFETIME_SECONDS": "60",
    }
    with contextlib.ExitStack() as started:  # each stopped, whatever fails after it started
        one = started.enter_context(
            Served(redis_server.url, tmp_path_factory.mktemp("presence-a"), **env)
        )
        two = started.enter_context(
            Served(redis_server.url, tmp_path_factory.mktemp("presence-b"), **env)
        )
        yield one, two


def presence_of(reader: Reader, timeout: float = 10) -> Frame:
    """The next presence event of a ``with_presence`` reader (others skipped)."""
    while True:
        frame = reader.next(timeout)
        assert frame is not None, "the stream ended"
        if frame.event in ("seat-connected", "seat-disconnected"):
            return frame


def connected(tables: TableClient, t: Any) -> list[bool]:
    return [s["connected"] for s in tables.public(t)["seats"]]


def test_a_seats_request_on_one_instance_reaches_a_stream_on_the_other_and_lapses(
    instances: tuple[Served, Served],
) -> None:
    one, two = instances
    tables_one = TableClient(HttpClient(one.base))
    tables_two = TableClient(HttpClient(two.base))
    t = tables_one.create(variant="mein-schiff")
    assert connected(tables_one, t) == [False] * 4
    watcher = Reader(f"{one.base}{t.url}/stream", with_presence=True)
    assert watcher.status == 200
    # Seat 2 reads its view through the other instance: connected in its own answer too.
    answer = tables_two.client.get(f"{t.url}/seats/2", headers=bearer(t.seats[2]))
    assert answer.status_code == 200 and answer.get_json()["connected"] == [2]
    came = presence_of(watcher)
    assert came.event == "seat-connected" and came.id is None
    assert came.data["type"] == "seat-connected" and came.data["seat"] == 2
    assert connected(tables_one, t) == [False, False, True, False]
    # Nobody calls the table: the stream on the first instance finds the drop itself.
    went = presence_of(watcher, timeout=WINDOW * 10)
    assert went.event == "seat-disconnected" and went.data["seat"] == 2
    assert went.data["at_ms"] >= came.data["at_ms"] + WINDOW * 1000
    assert connected(tables_two, t) == [False] * 4
    watcher.close()


def test_a_seats_own_stream_keeps_it_connected_until_it_closes(
    instances: tuple[Served, Served],
) -> None:
    one, two = instances
    tables = TableClient(HttpClient(two.base))
    t = tables.create(variant="mein-schiff")
    watcher = Reader(f"{two.base}{t.url}/stream", with_presence=True)
    own = Reader(f"{one.base}{t.url}/seats/1/stream", with_presence=True, **bearer(t.seats[1]))
    assert own.status == 200
    came = presence_of(watcher)
    assert (came.event, came.data["seat"]) == ("seat-connected", 1)
    view = own.until("seat")[-1]
    assert view.data["connected"] == [1]
    # Four windows with no request at all: the stream alone keeps seat 1 connected.
    assert watcher.frames.empty()
    with pytest.raises(queue.Empty):
        watcher.next(timeout=WINDOW * 4)
    assert connected(tables, t) == [False, True, False, False]
    own.close()
    went = presence_of(watcher, timeout=WINDOW * 10)
    assert (went.event, went.data["seat"]) == ("seat-disconnected", 1)
    assert connected(tables, t) == [False] * 4
    watcher.close()


def test_refused_requests_and_other_tokens_are_not_presence(
    instances: tuple[Served, Served], redis_client: redis.Redis
) -> None:
    one, _ = instances
    tables = TableClient(HttpClient(one.base))
    t = tables.create(variant="mein-schiff")
    other = tables.create(variant="mein-schiff")
    before = snapshot(redis_client, t, presence=True)
    seat = f"{t.url}/seats/1"
    refused = [
        tables.client.get(seat, headers=bearer(other.seats[1])),  # another table's token
        tables.client.get(seat, headers=bearer("x" * 43)),  # made up
        tables.client.get(seat, headers=bearer(t.seats[0])),  # another seat's: 403
        tables.client.get(seat, headers=bearer(t.host)),  # the host's: 403
        tables.pass_(t, 1, 1, 1, ["2C", "3C"]),  # a valid token, a refused move (no round)
    ]
    assert [r.status_code for r in refused] == [401, 401, 403, 403, 409]
    assert snapshot(redis_client, t, presence=True) == before
    assert not redis_client.exists(presence_key(t.table_id))
    assert connected(tables, t) == [False] * 4


def test_a_seats_requests_cost_one_write_per_third_of_the_window(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    app = create_app(settings_for(redis_server.url, presence_seconds=60))
    tables = TableClient(app.test_client())
    t = tables.create(variant="mein-schiff")
    etag = tables.client.get(t.url).headers["ETag"]
    tables.hand(t, 3)
    key = presence_key(t.table_id)
    first = redis_client.hgetall(key)
    assert list(first) == [b"3"]
    # The table's first: both count down, and the presence hash was given
    # the table's remaining time when it was written.
    table_left = redis_client.pttl(f"referee:{{{t.table_id}}}:table")
    after_table = redis_client.pttl(key)
    assert 0 < after_table <= table_left
    changed = tables.client.get(t.url)
    assert changed.headers["ETag"] != etag  # seat 3 is connected now
    assert [s["connected"] for s in changed.get_json()["seats"]] == [False, False, False, True]
    for _ in range(20):
        tables.hand(t, 3)
    assert redis_client.hgetall(key) == first  # not written again within 20 s
    same = tables.client.get(t.url, headers={"If-None-Match": changed.headers["ETag"]})
    assert same.status_code == 304
    # Deleting the table removes its presence.
    assert tables.client.delete(t.url, headers=bearer(t.host)).status_code == 204
    assert not redis_client.exists(key)


def test_a_closed_stream_is_last_seen_at_its_last_written_keepalive(
    instances: tuple[Served, Served], redis_client: redis.Redis
) -> None:
    """RULES.md 5.5's tail: a seat is connected while a write to its own
    stream succeeded within the window, so a client that closed its end is
    last seen at the last keepalive it was written, never at one the stream
    was about to write (which counted before it was written: the seat stayed
    connected a third of the window longer)."""
    one, _ = instances
    tables = TableClient(HttpClient(one.base))
    t = tables.create(variant="mein-schiff")
    key = presence_key(t.table_id)
    sock = socket.create_connection(("127.0.0.1", one.port), timeout=10)
    request = (
        f"GET {t.url}/seats/2/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {t.seats[2]}\r\nAccept: text/event-stream\r\n\r\n"
    )
    sock.sendall(request.encode())
    received, comments, last_ms = b"", 0, 0.0
    while comments < 3:  # the stream's own keepalives, a third of the window apart
        chunk = sock.recv(65536)
        assert chunk, "the stream ended"
        received += chunk
        if received.count(b":\n\n") > comments:
            comments = received.count(b":\n\n")
            last_ms = time.time() * 1000
    assert received.startswith(b"HTTP/1.1 200")
    sock.close()  # right after a keepalive: the next one is a third of a window away
    # The stream finds the client gone at its next keepalive and ends; by then
    # the seat's last-seen instant is final.
    time.sleep(WINDOW / 3 * 2)
    seen = int(redis_client.hget(key, "2") or 0)
    assert last_ms - WINDOW / 3 * 1000 < seen <= last_ms + 150, (seen, last_ms)
    connected_now = connected(tables, t)
    deadline = time.monotonic() + WINDOW * 4
    while connected_now[2] and time.monotonic() < deadline:
        time.sleep(0.05)
        connected_now = connected(tables, t)
    assert not connected_now[2]
    assert time.time() * 1000 - seen >= WINDOW * 1000 - 50
