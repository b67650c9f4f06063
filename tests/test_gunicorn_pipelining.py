"""A real gunicorn (two gevent workers) under pipelined keep-alive floods
(issue 39, second attacker, H1). gunicorn's gevent worker serves the
requests waiting in a connection's buffer back to back without its
greenlet ever yielding: a few connections each pipelining a thousand
``GET /healthz`` kept both workers to themselves and ``/readyz`` from
anyone else waited for the whole flood. Now a connection yields after each
request, and closes after ``REQUESTS_PER_CONNECTION`` of them."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import RedisProcess, Served

PER_CONNECTION = 1000
"""REQUESTS_PER_CONNECTION here: each flood connection sends exactly this many."""
FLOODS = 8
"""Flooding connections (some on each of the two workers, whatever the accept order)."""
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
WRITE_SECONDS = 2
"""RESPONSE_WRITE_TIMEOUT_SECONDS here."""


@pytest.fixture(scope="module")
def served(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        Path(tmp_path_factory.mktemp("pipelining")),
        WEB_CONCURRENCY="2",
        REQUESTS_PER_CONNECTION=str(PER_CONNECTION),
        RESPONSE_WRITE_TIMEOUT_SECONDS=str(WRITE_SECONDS),
    )
    yield service
    service.stop()


def connect(served: Served, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", served.port))
    return sock


class Flood:
    """A connection from 127.0.0.2 that pipelines ``count`` ``GET /healthz``
    at once and reads their answers in a thread; ``first`` is set at its
    first answer, ``done`` once the server closed it or all are answered."""

    def __init__(self, served: Served, count: int) -> None:
        self.sock = connect(served, "127.0.0.2")
        self.count = count
        self.answers = 0
        self.first = threading.Event()
        self.done = threading.Event()
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        self.sock.sendall(HEALTHZ * count)

    def _read(self) -> None:
        tail = b""
        try:
            while self.answers < self.count:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    break
                # Counted across chunks: the last 8 bytes of the previous one kept.
                self.answers += (tail + chunk).count(b"HTTP/1.1 ")
                tail = chunk[-8:]
                self.data = (self.data + chunk)[-4096:]
                self.first.set()
        except OSError:
            pass
        finally:
            self.done.set()

    def close(self) -> None:
        self.sock.close()
        self.thread.join(10)


def readyz(served: Served, source: str) -> bytes:
    """``GET /readyz`` from ``source``: its whole answer."""
    sock = connect(served, source)
    try:
        sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data
    finally:
        sock.close()


def test_others_are_answered_while_pipelined_floods_run(served: Served) -> None:
    floods: list[Flood] = []
    try:
        floods = [Flood(served, PER_CONNECTION) for _ in range(FLOODS)]
        assert floods[0].first.wait(60)  # the flood is being served
        for _ in range(4):
            answer = readyz(served, "127.0.0.3")
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
            # Answered while every flood connection still waits for answers:
            # before the change, one worker served a connection's whole
            # pipeline before anyone else's request.
            finished = [f.answers for f in floods if f.done.is_set()]
            assert not finished, f"/readyz answered after floods ended: {finished}"
        for flood in floods:  # and every flood is served in full
            assert flood.done.wait(120)
            assert flood.answers == PER_CONNECTION
    finally:
        for flood in floods:
            flood.close()


def test_a_connection_closes_after_its_requests(served: Served) -> None:
    flood = Flood(served, PER_CONNECTION + 5)
    try:
        assert flood.done.wait(60)
        # Exactly the cap answered, the last saying so; then the server closed (done).
        assert flood.answers == PER_CONNECTION
        last = flood.data.rpartition(b"HTTP/1.1 ")[2]
        assert last.startswith(b"200") and b"\r\nConnection: close\r\n" in last, last
    finally:
        flood.close()


def test_a_client_that_reads_nothing_is_let_go(served: Served) -> None:
    # Twenty pipelined spec documents (some 550 KB each, 11 MB: more than
    # the buffers take), never read: the writes stalled and the connection
    # was held for good (issue 39, second attacker M). Now it closes at the
    # deadline.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind(("127.0.0.5", 0))
    sock.connect(("127.0.0.1", served.port))
    try:
        sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
        served.logged("client read nothing for 2 s (RESPONSE_WRITE_TIMEOUT_SECONDS)")
        # What was sent before the close, then the end: not the twenty answers.
        sock.settimeout(30)
        data = b""
        try:
            while chunk := sock.recv(1 << 20):
                data += chunk
        except ConnectionResetError:
            pass
        assert data.count(b"HTTP/1.1 200") < 20
    finally:
        sock.close()
