"""A real gunicorn (two gevent workers): one address cannot hold an
instance's connections (issue 39, H1). Slow request bodies opened from one
address held ~2,000 connections and ``/readyz`` went unanswered: each worker
now refuses an address's connections past ``CONNECTIONS_PER_ADDRESS`` at
once (429), and a request whose head and body do not arrive within
``REQUEST_READ_TIMEOUT_SECONDS`` is answered 408 and closed. Addresses are
quota keys by their IPv6 /64 (M5)."""

from __future__ import annotations

import http.client
import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import RedisProcess, Served
from .test_gunicorn_address_limit import send

CAP = 6
"""CONNECTIONS_PER_ADDRESS in these tests (per worker process)."""
WORKERS = 2
READ_SECONDS = 3.0
SPEC_READS = 5

SLOW_HEAD = (
    b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 60000\r\n\r\n{"
)
"""A request whose body (60,000 bytes announced) never comes but its first byte."""


@pytest.fixture(scope="module")
def capped(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    service = Served(
        redis_server.url,
        Path(tmp_path_factory.mktemp("connections")),
        WEB_CONCURRENCY=str(WORKERS),
        CONNECTIONS_PER_ADDRESS=str(CAP),
        REQUEST_READ_TIMEOUT_SECONDS=str(READ_SECONDS),
        STREAM_HEARTBEAT_SECONDS="0.5",
    )
    yield service
    service.stop()


def connect(served: Served, source: str = "127.0.0.1") -> socket.socket:
    """A connection to ``served`` from the loopback address ``source``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", served.port))
    return sock


def answer_of(sock: socket.socket, seconds: float) -> tuple[int, dict[str, str], Any, float]:
    """The one answer on ``sock`` (read until the server closes it): its
    status, headers, JSON body, and the seconds it took."""
    started = time.monotonic()
    sock.settimeout(seconds)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    took = time.monotonic() - started
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, json.loads(body) if body else None, took


def answered_at_once(socks: list[socket.socket]) -> list[socket.socket]:
    """Those of ``socks`` the server answered within a second (without
    reading their bodies, which never come)."""
    ends = time.monotonic() + 1.0
    answered: set[socket.socket] = set()
    while (left := ends - time.monotonic()) > 0:
        ready, _, _ = select.select([s for s in socks if s not in answered], [], [], left)
        answered.update(ready)
    return [s for s in socks if s in answered]


def get_from(served: Served, path: str, source: str) -> int:
    """The status of ``GET path`` from loopback address ``source``."""
    sock = connect(served, source)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return answer_of(sock, 5)[0]
    finally:
        sock.close()


def test_one_address_holds_a_bounded_share_and_slow_bodies_end(capped: Served) -> None:
    held: list[socket.socket] = []
    refused: list[socket.socket] = []
    try:
        # Slow bodies from one address, past what both workers may hold of it.
        opened = []
        for _ in range(CAP * WORKERS + 4):
            opened.append(connect(capped))
            opened[-1].sendall(SLOW_HEAD)
        refused = answered_at_once(opened)
        held = [sock for sock in opened if sock not in refused]
        assert CAP <= len(held) <= CAP * WORKERS, len(held)
        assert refused
        for sock in refused:  # each answered at once, before its body
            status, headers, body, took = answer_of(sock, 2)
            assert (status, body["code"]) == (429, "too-many-connections"), body
            assert headers["Retry-After"] == "2" and headers["Connection"] == "close"
            assert headers["Content-Type"] == "application/problem+json"
            assert "CONNECTIONS_PER_ADDRESS" in body["detail"]
        # Another address is served meanwhile.
        assert get_from(capped, "/readyz", "127.0.0.2") == 200
        assert get_from(capped, "/v1/variants", "127.0.0.2") == 200
        # The slow bodies end at the read deadline: 408, then the connection closes.
        for sock in held:
            status, headers, body, took = answer_of(sock, READ_SECONDS + 5)
            assert (status, body["code"]) == (408, "request-timeout"), body
            assert headers["Connection"] == "close" and took < READ_SECONDS + 3
        # Their places are given back.
        assert get_from(capped, "/readyz", "127.0.0.1") == 200
    finally:
        for sock in held + refused:
            sock.close()


def test_a_head_that_stalls_gets_408(capped: Served) -> None:
    # REQUEST_READ_TIMEOUT_SECONDS (3 here) under gunicorn's keepalive (5 s),
    # which otherwise closes a stalled head without a word.
    sock = connect(capped)
    try:
        sock.sendall(b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        status, headers, body, took = answer_of(sock, READ_SECONDS + 5)
        assert (status, body["code"]) == (408, "request-timeout"), body
        assert headers["Connection"] == "close" and took < READ_SECONDS + 2
        assert "REQUEST_READ_TIMEOUT_SECONDS" in body["detail"]
    finally:
        sock.close()


def test_a_whole_request_sent_slowly_within_the_deadline_is_served(capped: Served) -> None:
    body = json.dumps({"players": ["A", "B", "C", "D"], "first_dealer": 0}).encode()
    sock = connect(capped)
    try:
        head = (
            "POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode())
        for part in (body[:10], body[10:]):
            time.sleep(READ_SECONDS / 4)  # slow, but the whole within the deadline
            sock.sendall(part)
        status, _, created, _ = answer_of(sock, 5)
        assert status == 201, created
    finally:
        sock.close()


def test_a_stream_outlives_the_read_deadline(capped: Served) -> None:
    status, _, created = send(
        capped, "POST", "/v1/tables", "x", body={"players": ["A", "B", "C", "D"]}
    )
    assert status == 201, created
    sock = connect(capped)
    try:
        path = f"/v1/tables/{created['table_id']}/stream"
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        ends = time.monotonic() + READ_SECONDS * 2
        data = b""
        while time.monotonic() < ends or b"heartbeat" not in data:
            chunk = sock.recv(65536)
            assert chunk, data  # never closed by the deadline
            if time.monotonic() >= ends:
                data = b""  # heartbeats after the deadline
            data += chunk
        assert b"event: heartbeat" in data
    finally:
        sock.close()


@pytest.fixture(scope="module")
def proxied(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    service = Served(
        redis_server.url,
        Path(tmp_path_factory.mktemp("proxied")),
        TRUSTED_PROXIES="1",
        CONNECTIONS_PER_ADDRESS="2",
        REQUEST_READ_TIMEOUT_SECONDS=str(READ_SECONDS),
        RATE_LIMIT_TABLES="2/minute",
        RATE_LIMIT_ANONYMOUS=f"{SPEC_READS}/minute",
    )
    yield service
    service.stop()


def test_an_ipv6_64_is_one_address_and_ipv4_mapped_is_ipv4(proxied: Served) -> None:
    players = {"players": ["A", "B", "C", "D"]}

    def create(address: str) -> int:
        return send(proxied, "POST", "/v1/tables", address, body=players)[0]

    # Two tables a minute for each address, whichever of its /64 it uses.
    assert [create("2001:db8:1:2::1"), create("2001:db8:1:2:ffff::9")] == [201, 201]
    status, headers, body = send(
        proxied, "POST", "/v1/tables", "2001:db8:1:2:abcd::1", body=players
    )
    assert (status, body["code"]) == (429, "rate-limited")
    assert create("2001:db8:1:3::1") == 201  # the next /64 is another client
    assert [create("198.51.100.20"), create("::ffff:198.51.100.20")] == [201, 201]
    assert create("198.51.100.20") == 429
    assert create("198.51.100.21") == 201


def test_connections_through_a_trusted_proxy_are_not_capped(proxied: Served) -> None:
    # Every connection is the proxy's (127.0.0.1): its limit_conn counts clients.
    held = []
    try:
        for i in range(6 * WORKERS):
            sock = connect(proxied)
            forwarded = f"X-Forwarded-For: 203.0.113.{i + 1}\r\n".encode()
            sock.sendall(SLOW_HEAD.replace(b"Host: x\r\n", b"Host: x\r\n" + forwarded))
            held.append(sock)
        assert answered_at_once(held) == []
        assert get_from(proxied, "/readyz", "127.0.0.1") == 200
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("path", ["/openapi.json", "/openapi.yaml"])
def test_the_spec_is_rendered_once_cached_and_counted(proxied: Served, path: str) -> None:
    # issue 39, M2: each read rendered the whole spec (~20 seat views), unlimited.
    address = "192.0.2.77" if path.endswith("json") else "192.0.2.78"
    status, headers, _ = send_raw(proxied, path, address)
    assert status == 200
    etag = headers["ETag"]
    assert etag.startswith('"') and len(etag) == 34  # strong: no W/
    assert headers["Cache-Control"] == "public, max-age=600"
    status, again, body = send_raw(proxied, path, address, {"If-None-Match": etag})
    assert (status, body, again["ETag"]) == (304, b"", etag)
    for _ in range(SPEC_READS - 2):
        assert send_raw(proxied, path, address)[0] == 200
    status, refused, body = send_raw(proxied, path, address)
    assert status == 429 and b"rate-limited" in body and "Retry-After" in refused
    assert send_raw(proxied, path, "192.0.2.79")[0] == 200  # another address reads it


def send_raw(
    served: Served, path: str, address: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """``GET path`` from ``address`` (through ``X-Forwarded-For``): status,
    headers and the body's bytes."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request("GET", path, headers={"X-Forwarded-For": address, **(headers or {})})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()
