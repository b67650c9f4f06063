"""A real gunicorn (two gevent workers) with a small Redis pool, flooded
from one address (issue 39, second attacker, H2): 150 keep-alive
connections each pipelining ``GET /v1/variants`` were mostly refused 429,
but each refusal needed a Redis connection to be counted, so the flood held
every connection of the pool and others got 503 ``redis-busy`` (``/readyz``
too). Now one address has at most ``IN_FLIGHT_PER_ADDRESS`` requests in
flight in a process (never more than a quarter of ``REDIS_MAX_CONNECTIONS``),
the rest refused 429 before any Redis call.

Redis answers each round trip late here (a proxy holds its replies), so
that each request holds its connection that long."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import RedisProcess, Served
from .test_gunicorn_redis_pool import SlowRedis

POOL = 8
"""REDIS_MAX_CONNECTIONS here: the cap in effect is a quarter, 2."""
FLOODS = 80
"""Flooding connections from one address (some 40 a worker: 5 pools' worth)."""
DEPTH = 10
DELAY = 0.8
"""Seconds each Redis reply comes late during the flood."""
VARIANTS = b"GET /v1/variants HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(scope="module")
def slow(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, SlowRedis]]:
    proxy = SlowRedis(redis_server.port)
    try:
        service = Served(
            proxy.url,
            Path(tmp_path_factory.mktemp("in-flight")),
            REDIS_TIMEOUT_SECONDS="5",  # late, not failed
            REDIS_MAX_CONNECTIONS=str(POOL),
            IN_FLIGHT_PER_ADDRESS="16",  # the default (the suite's is 0: conftest)
            CONNECTIONS_PER_ADDRESS="0",  # the flood's connections all get in
        )
        try:
            yield service, proxy
        finally:
            service.stop()
    finally:
        proxy.stop()


def connect(port: int, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def answers(sock: socket.socket, count: int) -> list[tuple[int, dict[str, str], bytes]]:
    """Read ``count`` answers on ``sock``: status, headers, body."""
    found = []
    stream = sock.makefile("rb")
    try:
        for _ in range(count):
            status_line = stream.readline()
            if not status_line:
                break
            headers = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers.get("content-length", "0")))
            found.append((int(status_line.split()[1]), headers, body))
            if headers.get("connection", "").lower() == "close":
                break
    finally:
        stream.close()
    return found


class Flood:
    """``FLOODS`` connections from 127.0.0.2 each pipelining ``DEPTH``
    ``GET /v1/variants`` and reading the answers, again and again until
    :meth:`stop`; ``seen`` counts (status, code) of every answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.stopping = threading.Event()
        self.answered = threading.Event()
        self.seen: dict[tuple[int, str], int] = {}
        self.retry_after: set[str] = set()
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._one, daemon=True) for _ in range(FLOODS)]
        for thread in self.threads:
            thread.start()

    def _one(self) -> None:
        while not self.stopping.is_set():
            try:
                sock = connect(self.port, "127.0.0.2")
            except OSError:
                continue
            try:
                while not self.stopping.is_set():
                    sock.sendall(VARIANTS * DEPTH)
                    got = answers(sock, DEPTH)
                    with self._lock:
                        for status, headers, body in got:
                            code = ""
                            if status >= 400:
                                code = json.loads(body).get("code", "")
                                self.retry_after.add(headers.get("retry-after", ""))
                            self.seen[status, code] = self.seen.get((status, code), 0) + 1
                    self.answered.set()
                    if len(got) < DEPTH:
                        break
            except OSError:
                pass
            finally:
                sock.close()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(30)


def get(port: int, path: str, source: str) -> tuple[int, dict[str, str], bytes]:
    sock = connect(port, source)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return answers(sock, 1)[0]
    finally:
        sock.close()


def test_one_address_never_takes_the_pool_from_others(slow: tuple[Served, SlowRedis]) -> None:
    served, proxy = slow
    proxy.delay = DELAY
    flood = Flood(served.port)
    try:
        assert flood.answered.wait(30)  # the flood is on
        for _ in range(6):
            for path in ("/readyz", "/v1/variants"):
                status, headers, body = get(served.port, path, "127.0.0.3")
                # Before the change: 503 redis-busy, the flood holding every connection.
                assert status == 200, (path, status, body[:300])
    finally:
        flood.stop()
        proxy.delay = 0.0
    # The flood's excess refused at once, with Retry-After; never a 503 of its own.
    assert flood.seen.get((429, "rate-limited"), 0) > 0, flood.seen
    assert set(flood.seen) <= {(200, ""), (429, "rate-limited")}, flood.seen
    assert flood.retry_after == {"2"}, flood.retry_after


def test_an_open_stream_no_longer_counts(slow: tuple[Served, SlowRedis]) -> None:
    # Eight public streams from one address, past both workers' cap (2) on
    # any split: once each is streaming, its address's requests still pass.
    served, _ = slow
    sock = connect(served.port, "127.0.0.4")
    try:
        sock.sendall(
            b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 33\r\nConnection: close\r\n\r\n{"players": ["A", "B", "C", "D"]}'
        )
        status, _, body = answers(sock, 1)[0]
    finally:
        sock.close()
    assert status == 201, body
    table = json.loads(body)["table_id"]
    streams = []
    try:
        for _ in range(8):
            stream = connect(served.port, "127.0.0.4")
            streams.append(stream)
            stream.sendall(f"GET /v1/tables/{table}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:  # its answer has begun
                head += stream.recv(4096)
            assert head.startswith(b"HTTP/1.1 200"), head
        for _ in range(4):
            status, _, body = get(served.port, "/v1/variants", "127.0.0.4")
            assert status == 200, body[:300]
    finally:
        for stream in streams:
            stream.close()
