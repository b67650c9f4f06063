"""Joining through a real gunicorn with two workers: one of racing players
gets the last seat, a reissued token locks the old one out in every worker,
and no code or token reaches the log (RULES.md 5.1)."""

from __future__ import annotations

import threading
from typing import Any

import redis

from tests.conftest import Served
from tests.helpers import phone_lost
from tests.test_gunicorn import send


def test_joins_race_reissue_and_the_log_through_two_workers(
    served: Served, redis_client: redis.Redis
) -> None:
    status, _, created = send(
        served,
        "POST",
        "/v1/tables",
        {"players": ["Ann", None, None, None], "first_dealer": 0, "join_codes": "table"},
    )
    assert status == 201
    table_id, host = created["table_id"], created["host_token"]
    code = created["join_codes"][0]["code"]
    base = f"/v1/tables/{table_id}"
    secrets = [host, code, created["seat_tokens"][0]["token"]]
    for name in ("Bea", "Cy"):
        status, _, joined = send(served, "POST", f"{base}/join", {"name": name, "code": code})
        assert status == 201
        secrets.append(joined["token"])

    results: list[tuple[int, Any]] = []
    start = threading.Barrier(8)

    def racer(number: int) -> None:
        start.wait()
        status, _, body = send(served, "POST", f"{base}/join", {"name": f"P{number}", "code": code})
        results.append((status, body))

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(status for status, _ in results) == [201] + [409] * 7
    winner = next(body for status, body in results if status == 201)
    assert winner["seat"] == 3
    secrets.append(winner["token"])

    # Both workers have served the old token; after the reissue neither takes it.
    old = winner["token"]
    for _ in range(8):
        assert send(served, "GET", f"{base}/seats/3", Authorization=f"Bearer {old}")[0] == 200
    # A person joined (RULES.md 5.1): its seat is reissued only once it is
    # not connected.
    status, _, refused = send(
        served, "POST", f"{base}/seats/3/token", Authorization=f"Bearer {host}"
    )
    assert (status, refused["code"]) == (409, "seat-connected")
    phone_lost(redis_client, table_id, 3)
    status, _, reissued = send(
        served, "POST", f"{base}/seats/3/token", Authorization=f"Bearer {host}"
    )
    assert status == 201
    secrets.append(reissued["token"])
    for _ in range(8):
        status, _, body = send(served, "GET", f"{base}/seats/3", Authorization=f"Bearer {old}")
        assert (status, body["code"]) == (401, "token-unknown")
    new = f"Bearer {reissued['token']}"
    assert send(served, "GET", f"{base}/seats/3", Authorization=new)[0] == 200
    assert send(served, "POST", f"{base}/rounds", {}, Authorization=f"Bearer {host}")[0] == 201

    text = served.logged(f"{base}/join")
    for secret in secrets:
        assert secret not in text
