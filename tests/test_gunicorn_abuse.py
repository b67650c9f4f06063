"""A real gunicorn under abuse: a chunked body over 64 KiB is refused (413),
not cut at 64 KiB and read as the valid JSON it starts with; invented methods
add no metric series (the workers' multiprocess files)."""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import string
from pathlib import Path

import redis

from .conftest import Served


def send_chunked(served: Served, path: str, parts: list[bytes]) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request(
            "POST",
            path,
            body=iter(parts),
            encode_chunked=True,
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        )
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_a_chunked_create_over_64_kib_is_413_and_creates_nothing(
    served: Served, redis_client: redis.Redis
) -> None:
    valid = json.dumps({"players": ["a", "b", "c", "d"], "first_dealer": 0}).encode()
    tables = len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000)))
    status, kind, raw = send_chunked(
        served, "/v1/tables", [valid, b" " * 35_000, b" " * 35_000, b"garbage"]
    )
    assert status == 413, raw[:300]
    assert kind == "application/problem+json"
    assert json.loads(raw)["code"] == "body-too-large"
    assert len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000))) == tables
    # The same body within the limit, chunked, is read whole.
    status, _, raw = send_chunked(served, "/v1/tables", [valid, b" " * 1000])
    assert status == 201, raw[:300]


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
    status, _, _ = send_chunked(served, "/v1/tables", [b"{}"])
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


def test_a_malformed_chunked_body_is_400_with_no_traceback_and_creates_nothing(
    served: Served, redis_client: redis.Redis
) -> None:
    # The sixth attacker: each was a 500 and some 2.3 KB of traceback in the log.
    head = (
        b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    tables = len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000)))
    logged = served.log.stat().st_size
    for what, body in MALFORMED_CHUNKS.items():
        answer = raw_request(served, head + body)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line.split()[1] == b"400", (what, answer[:400])
        assert b"application/problem+json" in rest, (what, answer[:400])
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "malformed-request", what
    assert len(list(redis_client.scan_iter(match="referee:{*}:table", count=1000))) == tables
    with served.log.open("rb") as log:
        log.seek(logged)
        written = log.read()
    assert b"Traceback" not in written and b'"status": 500' not in written, written[-3000:]
