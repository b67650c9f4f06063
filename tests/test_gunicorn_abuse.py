"""A real gunicorn under abuse: a chunked body is refused (411) before it is
read, and its connection closed, however it is chunked or malformed (issue
39: 64 KiB in 1-byte chunks cost 250 ms to parse); invented methods add no
metric series (the workers' multiprocess files)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import re
import socket
import string
from pathlib import Path

import redis

from .conftest import Served


def test_a_chunked_body_is_411_before_it_ends_and_its_connection_closes(
    served: Served, redis_client: redis.Redis
) -> None:
    # A valid create body in 1-byte chunks, its end never sent: the answer
    # comes, and the connection closes, without the body being read.
    valid = json.dumps({"players": ["a", "b", "c", "d"], "first_dealer": 0}).encode()
    tables = len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000)))
    head = (
        b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunks = [b"1\r\n" + valid[i : i + 1] + b"\r\n" for i in range(len(valid))]
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(head + b"".join(chunks[:20]))
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        head_of, _, body = answer.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head_of)[1])  # type: ignore[index]
        while len(body) < length:
            body += sock.recv(65536)
        # The rest of the body and another request: a connection kept open
        # would read the body to its end and answer the request.
        with contextlib.suppress(OSError):
            sock.sendall(
                b"".join(chunks[20:]) + b"0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            )
        after = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                after += chunk
    assert head_of.split()[1] == b"411", answer[:400]
    assert json.loads(body)["code"] == "length-required"
    assert after == b"", after[:300]  # closed: the body was never read
    assert len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000))) == tables
    # The same body with its length is created.
    status, _, raw = post(served, "/v1/tables", valid)
    assert status == 201, raw[:300]


def post(served: Served, path: str, body: bytes) -> tuple[int, str, bytes]:
    """``POST path`` with ``body`` and its Content-Length: status, type, body."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def scrape(served: Served) -> tuple[int, str]:
    """``GET /metrics``: its status and its text."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_invented_methods_add_no_metric_series(served: Served) -> None:
    # The report: 3,000 random ten-letter methods grew the metrics folder from
    # 266 KB to 18 MB, and a scrape took 2.5 s.
    for _ in range(200):
        method = "".join(random.choice(string.ascii_uppercase) for _ in range(10))
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        try:
            connection.request(method, "/v1/variants")
            response = connection.getresponse()
            response.read()
            assert response.status == 405
        finally:
            connection.close()
    status, text = scrape(served)
    # A CI run once found no request counted at all: say what the scrape was.
    assert status == 200, (status, text[:2000], served.log.read_text()[-4000:])
    methods = set()
    for line in text.splitlines():
        if line.startswith("referee_requests_total{"):
            methods.add(line.split('method="', 1)[1].split('"', 1)[0])
    assert "OTHER" in methods, (text[:3000], served.log.read_text()[-4000:])
    assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"}


def metrics_folder(served: Served) -> Path:
    """The folder of the workers' metric files: where their open files are."""
    for pid in served.workers():
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = Path(os.readlink(fd))
            except OSError:
                continue
            if target.name.endswith(".db") and target.parent.name.startswith("referee-metrics-"):
                return target.parent
    raise AssertionError("no worker holds a metric file")


def test_an_empty_file_left_by_a_killed_worker_does_not_fail_the_scrape(served: Served) -> None:
    # A worker makes its file and sizes it a moment later; one SIGKILLed in
    # between (tests/api/test_commute_attack.py kills them at random) left an
    # empty file, and every later scrape was 500 (prometheus/client_python#1199).
    status, _, _ = post(served, "/v1/tables", b"{}")
    assert status == 422
    planted = metrics_folder(served) / "counter_4194305.db"  # past any pid_max
    planted.touch()
    try:
        status, text = scrape(served)
    finally:
        planted.unlink()
    assert status == 200, text[:2000]
    assert 'referee_requests_total{endpoint="/v1/tables",method="POST",status="422"}' in text


def raw_request(served: Served, data: bytes) -> bytes:
    """What the service answers ``data`` sent as is on one connection, to its end."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)  # a body cut short ends here
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


MALFORMED_CHUNKS = {
    "a chunk size that is no number": b"zz\r\n{}\r\n0\r\n\r\n",
    "a chunk without its CRLF": b"2\r\n{}XX0\r\n\r\n",
    "a body cut short": b"ff\r\n{}",
}


def test_a_malformed_chunked_body_is_411_with_no_traceback_and_creates_nothing(
    served: Served, redis_client: redis.Redis
) -> None:
    # The sixth attacker: each was a 500 and some 2.3 KB of traceback in the
    # log; then 400 once read. Now none is read.
    head = (
        b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    tables = len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000)))
    logged = served.log.stat().st_size
    for what, body in MALFORMED_CHUNKS.items():
        answer = raw_request(served, head + body)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line.split()[1] == b"411", (what, answer[:400])
        assert b"application/problem+json" in rest, (what, answer[:400])
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "length-required", what
    assert len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000))) == tables
    with served.log.open("rb") as log:
        log.seek(logged)
        written = log.read()
    assert b"Traceback" not in written and b'"status": 500' not in written, written[-3000:]


def head_of(fields: int, size: int, path: bytes = b"/healthz") -> bytes:
    """A GET's head with ``fields`` header fields of ``size`` bytes each."""
    lines = b"".join(b"X-H%d: %s\r\n" % (n, b"a" * size) for n in range(fields))
    return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n" + lines + b"\r\n"


def answer_to(served: Served, head: bytes, piece: int = 0) -> bytes:
    """What the service answers ``head`` (sent whole, or in pieces of
    ``piece`` bytes), with ``Connection: close`` asked for."""
    head = head[:-2] + b"Connection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        step = piece or len(head)
        with contextlib.suppress(OSError):  # refused early: the rest is not read
            for at in range(0, len(head), step):
                sock.sendall(head[at : at + step])
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    return answer


def test_a_head_over_40_kib_is_431_and_one_under_is_answered(served: Served) -> None:
    # Issue 39, eleventh attacker: 97 fields of 8,000 bytes (777 KB) were read
    # and parsed, 85 ms each sent whole and 650 ms in 1,000-byte pieces.
    for head in (head_of(97, 8000), head_of(6, 7000)):
        answer = answer_to(served, head)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line.split()[1] == b"431", answer[:300]
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "headers-too-large"
    # 32 KiB, nginx's default, whole and in small pieces: answered.
    for piece in (0, 700):
        answer = answer_to(served, head_of(4, 7900), piece)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:300]


def test_a_head_sent_in_small_pieces_reaches_the_parser_in_few_reads() -> None:
    # gunicorn's parser copies and rescans its whole buffer at each read:
    # a 32 KB head in 700-byte pieces took 47 reads, each rescanning it.
    from service.connection_limits import HEAD_PIECE, ReadDeadline

    head = head_of(4, 7900)
    ours, theirs = socket.socketpair()
    try:
        for at in range(0, len(head), 700):
            theirs.sendall(head[at : at + 700])
        reader = ReadDeadline(ours, 10)
        reads = []
        while sum(map(len, reads)) < len(head):
            reads.append(reader.recv(1024))
        assert b"".join(reads) == head
        assert len(reads) == -(-len(head) // HEAD_PIECE) == 2, [len(r) for r in reads]
    finally:
        ours.close()
        theirs.close()


def test_an_answer_that_leaves_the_body_unread_closes_its_connection(served: Served) -> None:
    # Issue 39, twelfth attacker: a 401 left a body of 2 GB declared, and
    # gunicorn read and discarded it before anything else on the worker.
    head = (
        b"PUT /v1/tables/zzzz/rounds/1/exchanges/1/passes/0 HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: 2000000000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(head + b"\r\n\r\n" * 25_000)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):  # to the server's close
                answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.split()[1] == b"401", answer[:300]
    assert b"connection: close" in rest.partition(b"\r\n\r\n")[0].lower(), answer[:400]
    # A body read whole keeps the connection.
    body = json.dumps({"players": ["a", "b", "c", "d"]}).encode()
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        for _ in range(2):
            connection.request("POST", "/v1/checks/deal", body=body)
            response = connection.getresponse()
            response.read()
            assert response.getheader("Connection") != "close"
    finally:
        connection.close()


def test_a_head_with_bare_line_feeds_is_refused_at_once(served: Served) -> None:
    # The head's reads waited for a CRLF pair that never came (5 s, no answer).
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\nHost: x\n\n")  # and the connection kept open
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:300]


def test_an_upload_refused_before_its_body_is_read_gets_its_answer(served: Served) -> None:
    # Thirteenth attacker: closed with the upload's bytes unread, the server
    # sent a reset, and the client lost its 413 (3 of 3 at 5 MB) or 401.
    for path, body, status in (
        ("/v1/checks/claim", b" " * 5_000_000, 413),
        ("/v1/tables/zzzz/rounds/1/exchanges/1/passes/0", b"{}" + b" " * 2_000_000, 401),
    ):
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        try:
            method = "POST" if status == 413 else "PUT"
            connection.request(
                method, path, body=body, headers={"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            assert response.status == status
            assert response.getheader("Connection") == "close"
            response.read()
        finally:
            connection.close()
