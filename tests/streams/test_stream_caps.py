"""Nobody holds an instance's connections with streams (issue 39), through
real gunicorns (two workers) on one real Redis:

- one address flooding streams is refused at its cap (429
  ``too-many-streams`` with ``Retry-After``), the cap held across two
  instances; a table's public streams and a seat's streams have caps of
  their own, counted apart, so watchers never lock a player out; while the
  caps hold, ``/readyz`` and another address's moves and streams are
  answered; a stream that ends gives its place back, and a worker that
  dies stops counting once its leases lapse;
- a worker full of streams answers 503 ``streams-full`` with
  ``Retry-After``, and still answers ``/readyz`` and ordinary requests: its
  streams take at most half of its connections.

The instances trust one proxy (``TRUSTED_PROXIES=1``): each caller names
its address in ``X-Forwarded-For``, as a proxy in front would."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from ..conftest import RedisProcess, Served
from ..helpers import Table, TableClient, bearer
from ..test_client_keys import keys
from .sse import HttpClient, Reader

ATTACKER = "203.0.113.7"
PLAYER = "198.51.100.2"

CAPS = {
    "TRUSTED_PROXIES": "1",
    "STREAM_MAX_PER_ADDRESS": "6",
    "STREAM_MAX_PER_TABLE": "16",  # one address: a quarter, 4
    "STREAM_MAX_PER_SEAT": "2",
    "STREAM_LEASE_SECONDS": "3",
    "STREAM_HEARTBEAT_SECONDS": "1",
    "STREAM_LIFETIME_SECONDS": "120",
}


def folder(tmp_path: Path, name: str) -> Path:
    made = tmp_path / name
    made.mkdir(exist_ok=True)
    return made


class Opened(Reader):
    """A stream, read as :class:`Reader` does once it is answered 200; a
    refusal's body is left to read."""

    def __init__(self, url: str, **headers: str) -> None:
        self.response = requests.get(url, headers=headers, stream=True, timeout=(5, 60))
        self.status = self.response.status_code
        self.headers = self.response.headers
        self.url = url
        if self.status == 200:
            self._start(self.response.iter_lines(decode_unicode=True))


def stream(base: str, path: str, address: str, **headers: str) -> Opened:
    return Opened(f"{base}{path}", **{"X-Forwarded-For": address, **headers})


def refused(reader: Opened) -> tuple[int, str, str | None]:
    """A refused stream's status, problem code and ``Retry-After`` (an
    opened one's 200, closed)."""
    if reader.status == 200:
        reader.close()
        return 200, "", None
    body = reader.response.json()
    return reader.status, body["code"], reader.headers.get("Retry-After")


def answered_quickly(url: str, address: str) -> int:
    got = requests.get(url, headers={"X-Forwarded-For": address}, timeout=3)
    return got.status_code


@pytest.fixture()
def two_instances(tmp_path: Path) -> Iterator[tuple[Served, Served, RedisProcess]]:
    server = RedisProcess(folder(tmp_path, "redis")).start()
    one = Served(server.url, folder(tmp_path, "a"), **CAPS)
    two = Served(server.url, folder(tmp_path, "b"), **CAPS)
    yield one, two, server
    one.stop()
    two.stop()
    server.stop()


def table_of(served: Served) -> tuple[TableClient, Table]:
    tables = TableClient(HttpClient(served.base))
    t = tables.create(variant="mein-schiff")
    assert tables.deal(t).status_code == 201
    return tables, t


def test_one_address_is_capped_across_instances_and_everyone_else_is_answered(
    two_instances: tuple[Served, Served, RedisProcess],
) -> None:
    one, two, server = two_instances
    tables, t = table_of(one)
    _, other = table_of(two)
    held: list[Opened] = []
    # One address's share of the table's public streams: 4 of 16, whichever
    # instance serves them (issue 39, fourth attacker: one address held
    # all of a table's, and every other spectator was refused).
    for i in range(4):
        reader = stream((one, two)[i % 2].base, f"{t.url}/stream", ATTACKER)
        assert reader.status == 200
        held.append(reader)
    fifth = stream(two.base, f"{t.url}/stream", ATTACKER)
    assert refused(fifth) == (429, "too-many-streams", "5")
    assert "a quarter of STREAM_MAX_PER_TABLE" in fifth.response.json()["detail"]
    # Others still watch, up to the table's cap (16), which holds for all.
    watchers = [
        stream((one, two)[i % 2].base, f"{t.url}/stream", f"192.0.2.{i // 4 + 1}")
        for i in range(12)
    ]
    assert [w.status for w in watchers] == [200] * 12
    seventeenth = stream(one.base, f"{t.url}/stream", "192.0.2.9")
    assert refused(seventeenth) == (429, "too-many-streams", "5")
    assert "(STREAM_MAX_PER_TABLE)" in seventeenth.response.json()["detail"]
    for watcher in watchers:
        watcher.close()
    # Another table's: the address's cap (6) comes first, on either instance.
    for base in (one.base, two.base):
        reader = stream(base, f"{other.url}/stream", ATTACKER)
        assert reader.status == 200
        held.append(reader)
    for base in (one.base, two.base):
        seventh = stream(base, f"{other.url}/stream", ATTACKER)
        assert refused(seventh) == (429, "too-many-streams", "5")
        assert "STREAM_MAX_PER_ADDRESS" in seventh.response.json()["detail"]
    r = redis.Redis.from_url(server.url)
    assert live_leases(r, f"referee:streams:addr:{ATTACKER}") == 6
    # Meanwhile everyone else is answered: readiness, a move, a seat's own
    # stream (watchers at the table's cap never keep a player from it).
    for base in (one.base, two.base):
        assert answered_quickly(f"{base}/readyz", ATTACKER) == 200
    card = tables.hand(t, 0)[0]
    moved = tables.client.put(
        f"{t.url}/rounds/1/exchanges/1/passes/0",
        json={"cards": [card]},
        headers={**bearer(t.seats[0]), "X-Forwarded-For": PLAYER},
    )
    assert moved.status_code == 200
    own = [stream(one.base, f"{t.url}/seats/1/stream", PLAYER, **bearer(t.seats[1]))]
    own.append(stream(two.base, f"{t.url}/seats/1/stream", PLAYER, **bearer(t.seats[1])))
    assert [s.status for s in own] == [200, 200]
    third = stream(one.base, f"{t.url}/seats/1/stream", PLAYER, **bearer(t.seats[1]))
    assert refused(third) == (429, "too-many-streams", "5")
    assert "STREAM_MAX_PER_SEAT" in third.response.json()["detail"]
    # A ticket refused at a cap is not spent: it opens its stream once there is room.
    ticket = requests.post(
        f"{one.base}{t.url}/seats/1/tickets",
        headers={**bearer(t.seats[1]), "X-Forwarded-For": PLAYER},
        timeout=5,
    ).json()["stream"]
    assert refused(stream(two.base, ticket, PLAYER)) == (429, "too-many-streams", "5")
    own.pop().close()
    deadline = time.monotonic() + 10
    while (by_ticket := stream(two.base, ticket, PLAYER)).status != 200:
        assert refused(by_ticket)[1] == "too-many-streams", "the refused ticket was spent"
        assert time.monotonic() < deadline, "a closed seat stream kept its place"
        time.sleep(0.2)
    own.append(by_ticket)
    # A stream that ends gives its place back (found at its next heartbeat).
    held.pop().close()
    deadline = time.monotonic() + 10
    while (again := stream(two.base, f"{other.url}/stream", ATTACKER)).status != 200:
        assert refused(again)[1] == "too-many-streams"
        assert time.monotonic() < deadline, "a closed stream kept its place"
        time.sleep(0.2)
    held.append(again)
    # A worker that dies holding streams stops counting once its leases lapse.
    pids = one.workers()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    on_two = sum(1 for reader in held if reader.url.startswith(two.base))
    key = f"referee:streams:addr:{ATTACKER}"
    assert live_leases(r, key) == 6
    deadline = time.monotonic() + 15
    while live_leases(r, key) > on_two:
        assert time.monotonic() < deadline, "a dead worker's streams still count"
        time.sleep(0.2)
    assert live_leases(r, key) == on_two  # the living instance's still do
    held.append(stream(one.base, f"{other.url}/stream", ATTACKER))
    assert held[-1].status == 200
    for reader in [*held, *own]:
        reader.close()


def test_a_client_key_holds_a_quarter_of_a_tables_public_streams(
    two_instances: tuple[Served, Served, RedisProcess],
) -> None:
    """Issue 39, nineteenth attacker: a client key was held to its own cap
    alone (``CLIENT_KEY_STREAMS``, 2,000), so one key holder took all of a
    table's public streams, from any addresses, and its creator's stream
    was 429. A key holds a quarter of them, as an address does."""
    one, two, server = two_instances
    made = keys(server.url, "create", "relay")
    assert made.returncode == 0, made.stderr
    key = {"Referee-Client-Key": made.stdout.strip()}
    _, t = table_of(one)
    held = [
        stream((one, two)[i % 2].base, f"{t.url}/stream", f"192.0.2.{i + 1}", **key)
        for i in range(4)
    ]
    assert [reader.status for reader in held] == [200] * 4
    fifth = stream(two.base, f"{t.url}/stream", "192.0.2.9", **key)
    assert refused(fifth) == (429, "too-many-streams", "5")
    assert fifth.response.json()["detail"].startswith(
        "This client key holds 4 of this table's public streams already"
    )
    # Everyone else still watches, up to the table's cap (16).
    watchers = [
        stream((one, two)[i % 2].base, f"{t.url}/stream", f"198.51.100.{i // 4 + 10}")
        for i in range(12)
    ]
    assert [w.status for w in watchers] == [200] * 12
    r = redis.Redis.from_url(server.url)
    assert live_leases(r, f"referee:{{{t.table_id}}}:streams:by:key:relay") == 4
    for reader in [*held, *watchers]:
        reader.close()


def live_leases(r: redis.Redis, key: str) -> int:
    seconds, micros = r.time()
    now = int(seconds) * 1000 + int(micros) // 1000
    return int(r.zcount(key, f"({now}", "+inf"))


@pytest.fixture()
def small_worker(tmp_path: Path) -> Iterator[tuple[Served, RedisProcess]]:
    """One gevent worker that serves 20 connections at once: 10 streams."""
    server = RedisProcess(folder(tmp_path, "redis")).start()
    served = Served(
        server.url,
        folder(tmp_path, "small"),
        WEB_CONCURRENCY="1",
        GUNICORN_WORKER_CONNECTIONS="20",
        TRUSTED_PROXIES="1",
        STREAM_HEARTBEAT_SECONDS="30",
        STREAM_LIFETIME_SECONDS="120",
    )
    yield served, server
    served.stop()
    server.stop()


def test_a_worker_full_of_streams_answers_503_and_everything_else(
    small_worker: tuple[Served, RedisProcess],
) -> None:
    served, _ = small_worker
    tables, t = table_of(served)
    held: list[Opened] = []
    # Ten callers, each under its own caps (STREAM_MAX_OPEN is 500 by default:
    # the worker's own connections are what bounds it here).
    for i in range(10):
        reader = stream(served.base, f"{t.url}/stream", f"192.0.2.{i + 1}")
        assert reader.status == 200, reader.response.text
        held.append(reader)
    full = stream(served.base, f"{t.url}/stream", "192.0.2.99")
    assert refused(full) == (503, "streams-full", "2")
    full.close()
    # The other half of the connections answer the rest.
    assert answered_quickly(f"{served.base}/readyz", "192.0.2.99") == 200
    assert answered_quickly(f"{served.base}/healthz", "192.0.2.99") == 200
    assert answered_quickly(f"{served.base}{t.url}", "192.0.2.99") == 200
    card = tables.hand(t, 2)[0]
    assert tables.pass_(t, 1, 1, 2, [card]).status_code == 200
    for reader in held:  # and the streams go on
        frame: Any = reader.next()
        while frame is not None and frame.event != "message":
            frame = reader.next()
        assert frame is not None
    for reader in held:
        reader.close()
