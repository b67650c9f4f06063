"""A worker SIGKILLed at the worst moment of a move, and the streams of
another instance that nobody calls (RULES.md 5; issue 18).

Two real gunicorns on one Redis: ``writer`` takes the moves, ``reader``
holds the streams (heartbeats a minute apart, so that what a stream gets
sooner came by itself: by the feed or by the clock). After the writer's
workers are killed nobody calls the table; the reader's streams must still
carry every event of what the table's views show, in order.

- The pass that completes an exchange is committed with its resolution in
  one ``commit.lua`` call (the store folds the other seats' passes in): once
  it is acknowledged, ``exchange-resolved`` is in Redis.
- When the completing pass's worker read the exchange before another seat's
  pass was written (two passes racing), ``choose.lua`` writes the pass, tells
  it that it completed the exchange, and the resolution is a second commit.
  A worker killed between the two leaves the resolution unwritten (lazy):
  every read shows it (``service.storage.store``), and the reader's streams,
  woken by ``choose.lua``'s announcement, carry it. The race is made exact
  with a proxy between the writer and Redis (:mod:`.redis_proxy`).
- A claim window closes by the clock alone: its ``round-won`` is written by
  nobody, and the streams read at the instant it closes.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from service.games.codec import decode_event
from service.storage.loading import script_text
from service.storage.store import choices_key, events_key, table_key
from service.streams.follow import event_id

from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..helpers import WORKED_HANDS, Table, TableClient, bearer
from .redis_proxy import RedisProxy
from .sse import Frame, HttpClient, Reader

COMMIT_SHA = hashlib.sha1(script_text("commit.lua").encode()).hexdigest()


@pytest.fixture(scope="module")
def reader(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("streams-reader"),
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="60",
    )
    yield service
    service.stop()


@pytest.fixture(scope="module")
def proxy(redis_server: RedisProcess) -> Iterator[RedisProxy]:
    found = RedisProxy(redis_server.port)
    yield found
    found.stop()


@pytest.fixture(scope="module")
def served_writer(proxy: RedisProxy, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A gunicorn whose every Redis command goes through ``proxy`` (its
    workers, SIGKILLed by a test, are replaced by gunicorn for the next)."""
    service = Served(proxy.url, tmp_path_factory.mktemp("writer"), EVENTS_KEPT=str(EVERY_EVENT))
    yield service
    service.stop()


@pytest.fixture()
def writer(served_writer: Served) -> Served:
    """The writer, once it answers again (gunicorn boots new workers after a kill)."""
    for _ in range(120):
        try:
            if requests.get(f"{served_writer.base}/readyz", timeout=30).status_code == 200:
                return served_writer
        except requests.RequestException:
            time.sleep(0.5)
    raise RuntimeError("the writer did not answer again")


def kill_workers(service: Served) -> list[int]:
    pids = service.workers()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def stored_types(r: redis.Redis, t: Table) -> list[str]:
    """The types of the events Redis holds (not those only reads compute)."""
    return [decode_event(e)["type"] for e in r.lrange(events_key(t.table_id), 0, -1)]


def until_type(stream: Reader, kind: str, timeout: float = 20) -> list[Frame]:
    """The stream's unnamed frames up to the event of type ``kind``;
    ``timeout`` is far below the reader's minute of heartbeat."""
    got: list[Frame] = []
    while not got or got[-1].data.get("type") != kind:
        frame = stream.next(timeout)
        assert frame is not None, [f.data for f in got]
        if frame.event == "message":
            got.append(frame)
    return got


def seat_view_until(stream: Reader, check: Any, timeout: float = 20) -> dict[str, Any]:
    while True:
        frame = stream.next(timeout)
        assert frame is not None
        if frame.event == "seat" and check(frame.data):
            return frame.data  # type: ignore[no-any-return]


def follow(reader: Served, t: Table) -> tuple[Reader, Reader]:
    """The public stream and seat 0's, on the reader; each sent what it holds."""
    public = Reader(f"{reader.base}{t.url}/stream")
    seat = Reader(f"{reader.base}{t.url}/seats/0/stream", **bearer(t.seats[0]))
    until_type(public, "round-dealt")
    assert seat.until("seat")[-1].data["exchange"] == 1
    return public, seat


def test_an_acknowledged_completing_pass_is_resolved_in_redis_and_streamed(
    reader: Served, writer: Served, redis_client: redis.Redis
) -> None:
    tables = TableClient(HttpClient(writer.base))
    t = tables.create(variant="mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    public, seat = follow(reader, t)
    for s, card in enumerate(["4S", "9C", "8D", "9H"]):
        passed = tables.pass_(t, 1, 1, s, [card])
        assert passed.status_code == 200 and passed.json()["resolved"] is (s == 3)
    assert len(kill_workers(writer)) == 2  # right after the acknowledgement
    # In one commit with the completing pass: Redis holds the resolution.
    assert stored_types(redis_client, t)[-2:] == ["pass-chosen", "exchange-resolved"]
    # Nobody calls the table; the reader's streams carry it.
    got = until_type(public, "exchange-resolved")
    assert [f.data["type"] for f in got] == ["pass-chosen"] * 4 + ["exchange-resolved"]
    view = seat_view_until(seat, lambda v: v["exchange"] == 2)
    assert view["hand"] == ["AH", "KH", "9H", "8H", "5H", "2H", "QC"]
    public.close()
    seat.close()


def test_a_resolution_its_killed_worker_never_wrote_still_reaches_the_streams(
    reader: Served, writer: Served, proxy: RedisProxy, redis_client: redis.Redis
) -> None:
    tables = TableClient(HttpClient(writer.base))
    direct = TableClient(HttpClient(reader.base))  # the other instance, straight to Redis
    t = tables.create(variant="mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    public, seat = follow(reader, t)
    for s, card in enumerate(["4S", "9C"]):
        assert tables.pass_(t, 1, 1, s, [card]).status_code == 200
    # Seat 3's pass reads the exchange (seats 0 and 1 chosen) and waits...
    held = proxy.hold_reply(b"HGETALL", choices_key(t.table_id).encode())
    killed: list[int] = []
    proxy.instead_of(COMMIT_SHA.encode(), lambda: killed.extend(kill_workers(writer)))
    answers: list[Any] = []

    def last_pass() -> None:
        try:
            answers.append(tables.pass_(t, 1, 1, 3, ["9H"]))
        except requests.RequestException as error:
            answers.append(error)

    racing = threading.Thread(target=last_pass)
    racing.start()
    assert held.wait(10)
    # ...while seat 2's pass is written through the other instance.
    assert direct.pass_(t, 1, 1, 2, ["8D"]).status_code == 200
    proxy.release()
    # Seat 3's pass is written (choose.lua: the exchange is complete); its
    # worker dies as it sends the resolution, before any answer.
    assert proxy.acted.wait(10)
    died = time.monotonic()
    racing.join(30)
    assert len(killed) == 2 and isinstance(answers[0], requests.RequestException), answers
    assert redis_client.hlen(choices_key(t.table_id)) == 4
    assert stored_types(redis_client, t)[-1] == "pass-chosen"  # no resolution in Redis
    # Nobody calls the table; the reader's streams carry the resolution.
    got = until_type(public, "exchange-resolved")
    print(f"exchange-resolved arrived {1000 * (time.monotonic() - died):.0f} ms after the kill")
    assert [f.data["type"] for f in got] == ["pass-chosen"] * 4 + ["exchange-resolved"]
    streamed = got[-1]
    view = seat_view_until(seat, lambda v: v["exchange"] == 2)
    assert view["hand"] == ["AH", "KH", "9H", "8H", "5H", "2H", "QC"]
    assert view["last_event"] == streamed.data["seq"]
    # The next move stores it as it was streamed: its id names the same event.
    assert direct.pass_(t, 1, 2, 0, ["QC"]).status_code == 200
    assert stored_types(redis_client, t)[-2:] == ["exchange-resolved", "pass-chosen"]
    log = direct.events(t)
    assert log[streamed.data["seq"] - 1] == streamed.data
    assert event_id(log[streamed.data["seq"] - 1]) == streamed.id
    assert until_type(public, "pass-chosen")[-1].data == log[-1]
    public.close()
    seat.close()
    direct.client.session.close()


def test_a_claim_window_that_closes_reaches_the_streams_with_its_writer_dead(
    reader: Served, writer: Served, redis_client: redis.Redis
) -> None:
    tables = TableClient(HttpClient(writer.base))
    t = tables.create(variant="mein-schiff", claim_window_ms=800)
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    public, seat = follow(reader, t)
    for exchange, passes in enumerate([["4S", "9C", "8D", "9H"], ["QC", "4S", "9C", "JH"]], 1):
        for s, card in enumerate(passes):
            assert tables.pass_(t, 1, exchange, s, [card]).status_code == 200
    claimed = tables.claim(t, 1, 0)
    assert claimed.status_code == 200, claimed.json()
    assert len(kill_workers(writer)) == 2  # right after the acknowledgement
    closes = claimed.json()["window_closes_at_ms"]
    # Nobody calls the table: the window closes by the clock alone.
    got = until_type(public, "round-won")
    arrived_ms = time.time() * 1000
    types = [f.data["type"] for f in got]
    assert types[-2:] == ["claim-accepted", "round-won"], types
    assert got[-1].data["winners"] == [0]
    assert got[-1].data["at_ms"] == closes + 1  # the first instant the window is shut
    # The claim was written with its answer; the window's end by nobody.
    assert stored_types(redis_client, t)[-1] == "claim-accepted"
    view = seat_view_until(seat, lambda v: v["round_status"] == "over")
    assert view["hand"] == ["AH", "KH", "JH", "9H", "8H", "5H", "2H"]
    print(f"round-won arrived {arrived_ms - closes:.0f} ms after the window closed")
    assert redis_client.exists(table_key(t.table_id))
    public.close()
    seat.close()
