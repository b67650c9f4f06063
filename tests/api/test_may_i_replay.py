"""May I? over a real gunicorn: a repeated move (same number, same body), a
repeated May I? request and a repeated answer are answered exactly as the
first time (status, body, the headers that matter) and change nothing,
with and without an Idempotency-Key, after later moves and offers; another
body for a move number already taken is 409."""

from __future__ import annotations

import uuid
from typing import Any

import redis

from ..conftest import Served
from ..helpers import Table, snapshot
from ..may_i.common import full_deal
from ..test_gunicorn import send

HAND1 = ["5H", "5S", "5C", "9D", "TD", "JD", "QD", "KD", "3C", "8H"]
VARYING = {"Date", "X-Request-Id", "Server"}
"""Headers of every answer that differ per request by design."""


def create(served: Served) -> Table:
    body = {
        "variant": "may-i",
        "players": ["P0", "P1", "P2", "P3"],
        "first_dealer": 0,
        "options": {"may_i_window_ms": 60_000},
    }
    status, _, created = send(served, "POST", "/v1/tables", body)
    assert status == 201, created
    t = Table(
        created["table_id"],
        created["host_token"],
        [s["token"] for s in created["seat_tokens"]],
        created,
    )
    deal = full_deal("may-i", 4, {1: HAND1}, discard="2C")
    status, _, dealt = send(
        served, "POST", f"{t.url}/rounds", deal, Authorization=f"Bearer {t.host}"
    )
    assert status == 201, dealt
    return t


def kept(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in VARYING}


def test_repeats_answer_exactly_as_the_first_time(
    served: Served, redis_client: redis.Redis
) -> None:
    t = create(served)
    key = str(uuid.uuid4())

    def request(seat: int, method: str, path: str, body: Any, **headers: str) -> Any:
        return send(
            served, method, t.url + path, body, Authorization=f"Bearer {t.seats[seat]}", **headers
        )

    requests: list[tuple[int, str, str, Any, dict[str, str]]] = [
        (1, "PUT", "/rounds/1/moves/1", {"decline": True}, {}),
        (3, "POST", "/rounds/1/may-i", {"offer": 1}, {}),
        (2, "PUT", "/rounds/1/may-i/1/answers/2", {"allow": False}, {}),
        # The last answer gives 2C and a stock card to seat 2, the denier.
        (0, "PUT", "/rounds/1/may-i/1/answers/0", {"allow": True}, {}),
        (1, "PUT", "/rounds/1/moves/2", {"draw": True}, {"Idempotency-Key": key}),
        (1, "PUT", "/rounds/1/moves/3", {"discard": "8H"}, {}),
        (2, "PUT", "/rounds/1/moves/4", {"decline": True}, {}),
        (0, "POST", "/rounds/1/may-i", {"offer": 2}, {}),
    ]
    firsts = []
    for seat, method, path, body, headers in requests:
        status, got, answer = request(seat, method, path, body, **headers)
        assert status == 200, answer
        firsts.append((status, kept(got), answer))
    assert firsts[3][2]["open"] is False and firsts[3][2]["step"] == "stock"
    assert len(firsts[4][2]["hand"]) == 11 and "8H" in firsts[4][2]["hand"]
    drawn = list(firsts[4][2]["hand"])
    drawn.remove("8H")
    assert firsts[5][2]["hand"] == drawn
    before = snapshot(redis_client, t)

    for (seat, method, path, body, headers), (status, got, answer) in zip(
        requests, firsts, strict=True
    ):
        # Without a key, with the first one's key (if any), and with a new key.
        for extra in ({}, headers, {"Idempotency-Key": str(uuid.uuid4())}):
            again = request(seat, method, path, body, **extra)
            assert again[0] == status and again[2] == answer, (path, body, extra, again)
            replayed = again[1].get("Idempotent-Replayed")
            assert replayed == ("true" if extra and extra == headers else None), (path, extra)
            assert {k: v for k, v in kept(again[1]).items() if k != "Idempotent-Replayed"} == got, (
                path,
                extra,
                again,
                answer,
            )
    # A repeat with a new key records its answer: only that changed in Redis.
    after = snapshot(redis_client, t)
    assert {k: v for k, v in after.items() if ":idem" not in k} == {
        k: v for k, v in before.items() if ":idem" not in k
    }

    # A refusal recorded under a key is given again byte for byte.
    refusal_key = {"Idempotency-Key": str(uuid.uuid4())}
    first = request(2, "PUT", "/rounds/1/moves/5", {"draw": True}, **refusal_key)
    assert first[0] == 409 and first[2]["code"] == "may-i-open"
    again = request(2, "PUT", "/rounds/1/moves/5", {"draw": True}, **refusal_key)
    assert again[0] == 409 and again[2] == first[2] and again[1]["Idempotent-Replayed"] == "true"
    assert kept({k: v for k, v in again[1].items() if k != "Idempotent-Replayed"}) == kept(first[1])

    # Another body for a move number already taken is 409, and changes nothing.
    for seat, path, body in [
        (1, "/rounds/1/moves/1", {"take_discard": True}),
        (1, "/rounds/1/moves/3", {"discard": "3C"}),
        (2, "/rounds/1/may-i/1/answers/2", {"allow": True}),
    ]:
        status, _, refused = request(seat, "PUT", path, body)
        assert status == 409, refused
    status, _, refused = request(1, "PUT", "/rounds/1/moves/3", {"discard": "3C"})
    assert refused["code"] == "stale-move" and refused["current_move"] == 5
    status, _, refused = request(2, "PUT", "/rounds/1/may-i/1/answers/2", {"allow": True})
    assert refused["code"] == "may-i-closed"
    assert {k: v for k, v in snapshot(redis_client, t).items() if ":idem" not in k} == {
        k: v for k, v in before.items() if ":idem" not in k
    }
