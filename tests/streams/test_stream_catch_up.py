"""Streams that never miss a message silently (issue 39) nor a rolled-back
log (issue 41), through real gunicorns (two workers) and real Redis
servers, a real replica promoted in a failover:

- the subscription of a worker's hub is lost and made again by redis-py
  itself (``CLIENT KILL TYPE pubsub``, a reconnection that takes half a
  second: redis-py's retry re-subscribes inside the client and tells the
  hub nothing), while moves are committed elsewhere: every stream of that
  instance has them within a second of the subscription's return (the
  heartbeat, which would read them anyway, is a minute away);
- a held stream showed events the new primary never had, and moves on the
  new primary reused their seqs: the stream says ``events-gone`` within a
  second of the new primary answering, as a reconnecting stream does.

The instance that holds the streams reaches Redis through a TCP proxy
(:class:`.redis_proxy.RedisProxy`): an endpoint that holds new connections
for a while (a slow return) and, for the failover, one that moves from the
dead primary to the promoted replica (a managed Redis's endpoint does so).
The moves are made through another instance, on Redis directly."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ..conftest import RedisProcess, Served
from ..helpers import Table, TableClient
from .redis_proxy import RedisProxy
from .sse import Frame, HttpClient, Reader

SLOW_RETURN = 0.5
"""How long the streams' endpoint holds new connections (seconds)."""

CATCH_UP = 1.0
"""Issue 39 and 41: within this long of the subscription's (or the new
primary's) return, every stream has caught up."""

SLACK = 0.5
"""For a busy machine (2 shared cores), on top of :data:`CATCH_UP`."""

ENV = {
    "STREAM_HEARTBEAT_SECONDS": "60",
    "STREAM_LIFETIME_SECONDS": "120",
    "REDIS_TIMEOUT_SECONDS": "3",
}
"""No heartbeat read during a test: only the catch-up can deliver. A
connection held by the endpoint is waited for longer than it is held, so
that redis-py's own reconnection succeeds (and tells the hub nothing)."""


def pubsub_clients(r: redis.Redis) -> int:
    return len(r.client_list(_type="pubsub"))


def folder(tmp_path: Path, name: str) -> Path:
    made = tmp_path / name
    made.mkdir()
    return made


def wait_until(check: object, timeout: float, what: str) -> float:
    """Poll ``check()`` until true; the instant (``time.monotonic``) it was."""
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.01)
    return time.monotonic()


def passes(tables: TableClient, t: Table, seats: list[int]) -> None:
    """Each of ``seats`` passes one card in round 1's first exchange (an
    event each; the exchange stays open while a seat has not passed)."""
    for seat in seats:
        card = tables.hand(t, seat)[0]
        answer = tables.pass_(t, 1, 1, seat, [card])
        assert answer.status_code == 200, answer.get_json()


def next_frame(reader: Reader, until: float) -> Frame | None:
    left = until - time.monotonic()
    if left <= 0:
        return None
    try:
        return reader.next(timeout=left)
    except Exception:  # noqa: BLE001 - queue.Empty: nothing in time
        return None


@pytest.fixture()
def redis_pair(tmp_path: Path) -> Iterator[tuple[RedisProcess, RedisProcess]]:
    """A primary and its replica, in sync."""
    primary = RedisProcess(tmp_path / "primary").start()
    replica = RedisProcess(tmp_path / "replica", "--replicaof", "127.0.0.1", str(primary.port))
    replica.start()
    r = redis.Redis(port=replica.port)
    wait_until(lambda: r.info("replication")["master_link_status"] == "up", 10, "replication")
    yield primary, replica
    for server in (replica, primary):
        server.stop()


def test_a_subscription_redis_py_made_again_catches_every_stream_up(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis").start()
    proxy = RedisProxy(server.port)
    streams = movers = None
    try:
        streams = Served(proxy.url, folder(tmp_path, "a"), **ENV)
        movers = Served(server.url, folder(tmp_path, "b"), **ENV)
        tables = TableClient(HttpClient(movers.base))
        t = tables.create(variant="mein-schiff")
        assert tables.deal(t).status_code == 201
        readers = [Reader(f"{streams.base}{t.url}/stream") for _ in range(8)]
        r = redis.Redis(port=server.port)
        last = tables.public(t)["last_event"]
        for reader in readers:  # each has read the log up to now
            while (frame := reader.next()) is not None and frame.data.get("seq") != last:
                pass
        # One subscription per worker that holds streams (the eight may all
        # have gone to one of the two).
        subscribed = pubsub_clients(r)
        assert subscribed in (1, 2)
        proxy.hold_connections()
        assert r.client_kill_filter(_type="pubsub") == subscribed
        passes(tables, t, [0, 1, 2])  # meanwhile, on the other instance
        time.sleep(SLOW_RETURN)
        proxy.let_connections()
        back = wait_until(lambda: pubsub_clients(r) == subscribed, 10, "subscription's return")
        wanted = [e["seq"] for e in tables.events(t, last)]
        assert len(wanted) == 3
        for reader in readers:
            got = []
            while len(got) < len(wanted):
                frame = next_frame(reader, back + CATCH_UP + SLACK)
                assert frame is not None, f"events {wanted} not caught up: {got}"
                if frame.event == "message":
                    got.append(frame.data["seq"])
            assert got == wanted
            reader.close()
    finally:
        for served in (streams, movers):
            if served is not None:
                served.stop()
        proxy.stop()
        server.stop()


def test_a_held_stream_is_told_of_a_log_rolled_back_in_a_failover(
    tmp_path: Path, redis_pair: tuple[RedisProcess, RedisProcess]
) -> None:
    primary, replica = redis_pair
    endpoint = RedisProxy(primary.port)  # the endpoint the streams' instance knows
    streams = promoted = None
    try:
        streams = Served(endpoint.url, folder(tmp_path, "a"), **ENV)
        tables = TableClient(HttpClient(streams.base))
        t = tables.create(variant="mein-schiff")
        assert tables.deal(t).status_code == 201
        passes(tables, t, [0])
        held = redis.Redis(port=primary.port).wait(1, 5000)
        assert held == 1  # the replica holds everything so far
        # The replica stops following (acknowledgement off: nothing waits for it).
        redis.Redis(port=replica.port).replicaof("NO", "ONE")
        # The instance that will move on the promoted replica starts now: the
        # endpoint's hold below lasts two moves, not a gunicorn's start (15 s on
        # a busy machine, within which the held stream's read timed out and it
        # ended, to be told by its reconnection instead).
        promoted = Served(replica.url, folder(tmp_path, "b"), **ENV)
        reader = Reader(f"{streams.base}{t.url}/stream")
        passes(tables, t, [1, 2])  # the two newest events: on the primary only
        shown = []
        while len(shown) < len(tables.events(t)):
            frame = reader.next()
            assert frame is not None
            if frame.event == "message":
                shown.append(frame.data)
        seqs = [e["seq"] for e in shown]
        seen_id = reader.last_id
        # The primary dies; its endpoint holds connections until it points at
        # the promoted replica, where two moves reuse the two newest seqs.
        endpoint.hold_connections()
        primary.kill()
        endpoint.cut()
        moves = TableClient(HttpClient(promoted.base))
        assert moves.public(t)["last_event"] == seqs[-3]  # rolled back two events
        passes(moves, t, [3, 2])
        assert moves.public(t)["last_event"] == seqs[-1]  # the same seqs, other events
        endpoint.let_connections(replica.port)
        answered = time.monotonic()
        frame = next_frame(reader, answered + CATCH_UP + SLACK)
        while frame is not None and frame.event != "events-gone":
            assert frame.event in ("heartbeat", "seat-connected", "seat-disconnected"), frame
            frame = next_frame(reader, answered + CATCH_UP + SLACK)
        assert frame is not None, "the held stream said nothing of the rolled-back log"
        assert frame.data == {"oldest_seq": 1, "last_event": seqs[-1]}
        assert frame.id == str(seqs[-1])
        # A reconnecting stream is told the same (its Last-Event-ID names an event lost).
        again = Reader(f"{promoted.base}{t.url}/stream", **{"Last-Event-ID": seen_id or ""})
        first = again.next()
        assert first is not None and first.event == "events-gone", first
        again.close()
        # And the held stream goes on with the new primary's log.
        passes(moves, t, [1])
        frame = reader.next()
        while frame is not None and frame.event != "message":
            frame = reader.next()
        assert frame is not None and frame.data == moves.events(t, seqs[-1])[0]
        reader.close()
    finally:
        for served in (streams, promoted):
            if served is not None:
                served.stop()
        endpoint.stop()
