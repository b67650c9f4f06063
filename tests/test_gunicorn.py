"""A real gunicorn: workers killed with SIGKILL mid-request, retries with the
same Idempotency-Key take effect exactly once; the log is JSON lines with the
request ids the answers carry, and holds no token and no card."""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import threading
import time
import uuid
from collections import Counter
from typing import Any

import redis

from service.games.codec import decode, decode_event
from service.games.errors import StoredFormatNewer

from .conftest import Served

Answer = tuple[int, dict[str, str], Any]


def send(served: Served, method: str, path: str, body: Any = None, **headers: str) -> Answer:
    """One request on a fresh connection; raises OSError/HTTPException on no answer."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        data = None if body is None else json.dumps(body)
        if data is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        return response.status, dict(response.getheaders()), json.loads(raw) if raw else None
    finally:
        connection.close()


def send_until_answered(served: Served, method: str, path: str, body: Any, **headers: str) -> Any:
    """What a phone does: resend the very same request until it gets an answer."""
    for _ in range(200):
        try:
            status, got, answer = send(served, method, path, body, **headers)
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)  # the connection died with the worker: no answer
            continue
        in_use = status == 409 and answer.get("code") == "idempotency-key-in-use"
        if status == 503 or in_use:
            time.sleep(float(got.get("Retry-After", "0.2")) / 4)
            continue
        return status, got, answer
    raise AssertionError(f"{method} {path} never got an answer")


def test_retries_after_killed_workers_take_effect_exactly_once(
    served: Served, redis_client: redis.Redis
) -> None:
    marker = uuid.uuid4().hex[:12]
    results: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def client(number: int) -> None:
        rng = random.Random(number)
        try:
            for game in range(12):
                names = [f"{marker}-{number}-{game}", "b", "c", "d"]
                body = {"players": names, "first_dealer": 0, "options": {"claim_window_ms": 0}}
                key = str(uuid.uuid4())
                status, _, created = send_until_answered(
                    served, "POST", "/v1/tables", body, **{"Idempotency-Key": key}
                )
                assert status == 201, created
                if rng.random() < 0.3:  # the answer "lost" although it came: send again
                    again = send_until_answered(
                        served, "POST", "/v1/tables", body, **{"Idempotency-Key": key}
                    )
                    assert again[2] == created
                table, host = created["table_id"], created["host_token"]
                seat = created["seat_tokens"][0]["token"]
                as_host = {"Idempotency-Key": str(uuid.uuid4()), "Authorization": f"Bearer {host}"}
                status, _, dealt = send_until_answered(
                    served, "POST", f"/v1/tables/{table}/rounds", {}, **as_host
                )
                assert status == 201, dealt
                claims = 0
                for _ in range(3):  # refused claims: each one logged once
                    claim_key = str(uuid.uuid4())
                    as_seat = {"Idempotency-Key": claim_key, "Authorization": f"Bearer {seat}"}
                    status, _, answer = send_until_answered(
                        served, "POST", f"/v1/tables/{table}/rounds/1/claims", None, **as_seat
                    )
                    if status == 422:
                        claims += 1
                    else:
                        assert status == 200, answer  # a hand that won at the deal
                        break
                results.append({"table": table, "names": names, "claims": claims})
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    killed = 0
    while killed < 5 and any(t.is_alive() for t in threads):
        time.sleep(0.25)
        workers = served.workers()
        if workers:
            os.kill(random.choice(workers), signal.SIGKILL)
            killed += 1
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert killed >= 3
    assert len(results) == 96

    # Exactly one table per creation key, however often it was sent.
    made: Counter[str] = Counter()
    for key in redis_client.scan_iter("referee:{*}:table", count=1000):
        state = redis_client.hget(key, "s")
        try:
            names = decode(state).names if state else ()
        except StoredFormatNewer:
            continue  # another test's table on the shared server, planted newer
        if names and names[0].startswith(marker):
            made[names[0]] += 1
    assert made == Counter(r["names"][0] for r in results)
    assert set(made.values()) == {1}
    # Exactly one deal and one logged refusal per request, however often sent.
    for r in results:
        events = redis_client.lrange(f"referee:{{{r['table']}}}:events", 0, -1)
        types = Counter(decode_event(e)["type"] for e in events)
        assert types["round-dealt"] == 1 and types["claim-rejected"] == r["claims"], r


def test_successful_probes_are_counted_not_logged(served: Served) -> None:
    # Issue 39 (second attacker, L): a flood of /healthz logged 200 KB/s.
    quiet = {"/healthz": f"probe-{uuid.uuid4().hex}", "/readyz": f"probe-{uuid.uuid4().hex}"}
    for path, request_id in quiet.items():
        assert send(served, "GET", path, **{"X-Request-Id": request_id})[0] == 200
    failed = f"probe-{uuid.uuid4().hex}"  # a probe's failure is logged
    assert send(served, "POST", "/healthz", **{"X-Request-Id": failed})[0] == 405
    after = f"after-{uuid.uuid4().hex}"
    send(served, "GET", "/v1/variants", **{"X-Request-Id": after})
    text = served.logged(f'"request_id": "{failed}"', f'"request_id": "{after}"')
    for request_id in quiet.values():
        assert request_id not in text
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request("GET", "/metrics")
        metrics = connection.getresponse().read().decode()
    finally:
        connection.close()
    counted = r'referee_requests_total\{[^}]*"/healthz"[^}]*"200"[^}]*\} [1-9]'
    assert re.search(counted, metrics), metrics[:2000]


def test_the_log_is_json_lines_with_request_ids_and_no_secret(served: Served) -> None:
    status, _, created = send(
        served, "POST", "/v1/tables", {"players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0}
    )
    assert status == 201
    table, host = created["table_id"], created["host_token"]
    tokens = [host, *(s["token"] for s in created["seat_tokens"])]
    base = f"/v1/tables/{table}"
    status, headers, _ = send(served, "POST", f"{base}/rounds", {}, Authorization=f"Bearer {host}")
    ids = [headers["X-Request-Id"]]
    _, headers, seat = send(served, "GET", f"{base}/seats/1", Authorization=f"Bearer {tokens[2]}")
    ids.append(headers["X-Request-Id"])
    hand = seat["hand"]
    # A token sent where it does not belong, and a request id of the caller's own.
    _, headers, _ = send(served, "GET", f"{base}/seats/0?token={tokens[1]}", **{
        "X-Request-Id": "phone-42.retry_1"})  # fmt: skip
    assert headers["X-Request-Id"] == "phone-42.retry_1"
    ids.append("phone-42.retry_1")
    _, headers, _ = send(served, "GET", base, **{"X-Request-Id": "bad id\twith spaces"})
    assert re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-Id"])
    send(served, "PUT", f"{base}/rounds/1/exchanges/1/passes/1", {"cards": [hand[0]]},
         Authorization=f"Bearer {tokens[2]}")  # fmt: skip
    text = served.logged(*(f'"request_id": "{i}"' for i in ids))
    lines = [line for line in text.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    logged_ids = {r.get("request_id") for r in records if r.get("message") == "request"}
    assert set(ids) <= logged_ids
    access = [r for r in records if r.get("request_id") == "phone-42.retry_1"]
    assert access[0]["path"] == f"{base}/seats/0" and access[0]["status"] == 401
    for token in tokens:
        assert token not in text
    for card in hand:
        assert f'"{card}"' not in text
    assert any(r.get("name") == "gunicorn.error" for r in records)  # gunicorn's own, JSON too
