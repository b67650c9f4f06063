"""A real gunicorn under abuse: a chunked body over 64 KiB is refused (413),
not cut at 64 KiB and read as the valid JSON it starts with; invented methods
add no metric series (the workers' multiprocess files)."""

from __future__ import annotations

import http.client
import json
import os
import random
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
