"""A real gunicorn (two gevent workers) whose Redis connections are all in
use (issue 39, H2): redis-py's default pool refused a 101st connection at
once with the error of a Redis that is down, so 300 connections from one
address made ``/readyz`` answer 503 ``redis-unavailable`` and streams 500.
Now a request waits up to ``REDIS_POOL_TIMEOUT_SECONDS`` for a connection,
then answers 503 ``redis-busy`` with ``Retry-After``: never a 500.

Here Redis answers each round trip 1.5 s late (a proxy holds its replies), so
that each ``/readyz`` holds a connection that long: 300 of them at once need
more connections than a process has."""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import RedisProcess, Served
from .streams.redis_proxy import RedisProxy, _close, _recv
from .test_gunicorn import send

HELD = 300
"""/readyz requests at once (about 150 a worker: more than redis-py's 100)."""
STREAMS = 10
DELAY = 1.5
"""Seconds each Redis reply comes late during the flood."""
NO_TABLE = "t" + "0" * 21


class SlowRedis(RedisProxy):
    """Passes every reply on ``delay`` seconds late."""

    delay = 0.0

    def _down(
        self, upstream: socket.socket, client: socket.socket, holding: threading.Event
    ) -> None:
        while data := _recv(upstream):
            if self.delay:
                time.sleep(self.delay)  # the slow Redis this proxy plays
            try:
                client.sendall(data)
            except OSError:
                break
        _close(client, upstream)


@pytest.fixture(scope="module")
def waiting(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, SlowRedis]]:
    proxy = SlowRedis(redis_server.port)
    try:
        service = Served(
            proxy.url,
            Path(tmp_path_factory.mktemp("redis-pool")),
            REDIS_TIMEOUT_SECONDS="5",  # late, not failed
            STREAM_HEARTBEAT_SECONDS="1",
            CONNECTIONS_PER_ADDRESS="0",  # one test client opens them all
        )
        try:
            yield service, proxy
        finally:
            service.stop()
    finally:
        proxy.stop()


def answers(
    port: int, requests: list[bytes], seconds: float
) -> list[tuple[int, dict[str, str], Any]]:
    """Send every one of ``requests`` at once, each on its own connection
    (``Connection: close``), and read every answer whole."""
    selector = selectors.DefaultSelector()
    got: dict[socket.socket, bytes] = {}
    order = []
    for request in requests:
        sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
        sock.sendall(request)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        got[sock] = b""
        order.append(sock)
    ends = time.monotonic() + seconds
    open_ = len(order)
    while open_ and time.monotonic() < ends:
        for key, _ in selector.select(ends - time.monotonic()):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                got[sock] += chunk
            else:
                selector.unregister(sock)
                sock.close()
                open_ -= 1
    assert open_ == 0, f"{open_} requests unanswered after {seconds} s"
    parsed = []
    for sock in order:
        head, _, body = got[sock].partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        is_json = "json" in headers.get("Content-Type", "")
        parsed.append((int(lines[0].split()[1]), headers, json.loads(body) if is_json else body))
    return parsed


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()


def test_a_process_out_of_redis_connections_says_busy_never_500(
    waiting: tuple[Served, SlowRedis],
) -> None:
    served, proxy = waiting
    proxy.delay = DELAY
    # Streams of a table that is not there: each asks Redis (404 when it answers).
    requests = [get("/readyz")] * HELD + [get(f"/v1/tables/{NO_TABLE}/stream")] * STREAMS
    try:
        found = answers(served.port, requests, 30)
    finally:
        proxy.delay = 0.0
    kinds: dict[tuple[int, str], int] = {}
    for status, headers, body in found:
        code = body.get("code", "") if isinstance(body, dict) else ""
        kinds[status, code] = kinds.get((status, code), 0) + 1
        if code == "redis-busy":
            assert status == 503 and headers["Retry-After"] == "2", headers
            assert headers["Content-Type"] == "application/problem+json"
    allowed = {(200, ""), (503, "redis-busy"), (404, "table-not-found")}
    assert set(kinds) <= allowed, kinds  # never a 500, never "redis-unavailable"
    assert kinds.get((503, "redis-busy"), 0) > 0, kinds  # past the pool: waited, then said so
    assert kinds.get((200, ""), 0) >= 64, kinds  # a pool's worth served in turn
    # Once the flood ends, the same processes answer again.
    assert send(served, "GET", "/readyz")[0] == 200


def test_a_stream_whose_redis_fails_ends_with_its_retry(
    waiting: tuple[Served, SlowRedis],
) -> None:
    # An error of Redis in a stream's loop went up to gunicorn: "Error
    # handling request", and the answer cut without its last chunk.
    served, proxy = waiting
    status, _, created = send(served, "POST", "/v1/tables", {"players": ["A", "B", "C", "D"]})
    assert status == 201, created
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=30)
    try:
        sock.sendall(get(f"/v1/tables/{created['table_id']}/stream"))
        data = b""
        while b"retry: 2000" not in data:  # the head and the first frame
            data += sock.recv(65536)
        assert data.startswith(b"HTTP/1.1 200")
        proxy.hold_connections()  # Redis answers no new connection
        proxy.cut()  # nor the old ones
        try:
            while chunk := sock.recv(65536):  # until the stream's next read fails
                data += chunk
        finally:
            proxy.let_connections()
    finally:
        sock.close()
    # Its retry (the EventSource comes back with Last-Event-ID), then the
    # chunked answer's proper end.
    assert data.endswith(b"retry: 2000\n\n\r\n0\r\n\r\n"), data[-200:]
    assert "Error handling request" not in served.log.read_text()
