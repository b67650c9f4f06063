"""The host hands seats to bots and takes them back (RULES.md 5.4), through
real gunicorn and two real ``referee worker`` processes."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from .test_worker import _create, _deal, _events, _view, _wait
from .test_worker import stack as stack  # the fixture

pytestmark = pytest.mark.timeout(300)

MOVES = ("card-played", "passed")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _bot(base: str, tid: str, seat: int, token: str, **headers: str) -> requests.Response:
    return requests.post(
        f"{base}/v1/tables/{tid}/seats/{seat}/bot",
        json={"kind": headers.pop("kind", "basic")},
        headers={**_bearer(token), **headers},
        timeout=10,
    )


def _back(base: str, tid: str, seat: int, token: str) -> requests.Response:
    return requests.delete(
        f"{base}/v1/tables/{tid}/seats/{seat}/bot", headers=_bearer(token), timeout=10
    )


def _timed_steps(events: list[dict[str, Any]], seat: int) -> set[str]:
    return {e["step"] for e in events if e["type"] == "move-timed-out" and e["seat"] == seat}


def test_the_host_hands_seats_to_bots_and_takes_them_back(stack: dict[str, Any]) -> None:
    base = stack["served"].base
    created = _create(
        base,
        variant="sevens",
        players=["Ann", "Bob", None],
        first_dealer=0,
        options={"turn_timeout_ms": 500, "away_timeout_ms": 500, "bot_delay_ms": 0},
    )
    tid, host = created["table_id"], created["host_token"]
    ann = created["seat_tokens"][0]["token"]

    r = _bot(base, tid, 2, ann)
    assert r.status_code == 403 and r.json()["code"] == "host-only"
    r = _bot(base, tid, 0, host)  # Ann is here, not away
    assert r.status_code == 409 and r.json()["code"] == "seat-not-away"
    assert r.headers["Content-Type"] == "application/problem+json"

    # The open seat 2 to a bot, exactly once with a retried Idempotency-Key.
    first = _bot(base, tid, 2, host, **{"Idempotency-Key": "hand-seat-2-to-a-bot"})
    assert first.status_code == 200, first.text
    seat2 = first.json()["seats"][2]
    assert (seat2["bot"], seat2["open"], seat2["name"]) == ("basic", False, "Bot 3 (basic)")
    assert first.json()["open_seats"] == []
    again = _bot(base, tid, 2, host, **{"Idempotency-Key": "hand-seat-2-to-a-bot"})
    assert (again.status_code, again.json()) == (200, first.json())
    r = _bot(base, tid, 2, host)
    assert r.status_code == 409 and r.json()["code"] == "seat-is-bot"
    handed = [e for e in _events(base, tid) if e["type"] == "seat-bot"]
    assert [(e["seat"], e["kind"]) for e in handed] == [(2, "basic")]

    _deal(base, created)  # every seat is taken now
    # The bot moves for seat 2 without timing out.
    _wait(
        lambda: [
            e
            for e in _events(base, tid)
            if e["type"] in MOVES
            and e["seat"] == 2
            and f"r{e['round']}t{e['turn']}" not in _timed_steps(_events(base, tid), 2)
        ]
    )

    # Ann stops answering: away, then handed to a bot; her token is refused.
    _wait(lambda: _view(base, tid)["seats"][0]["away"])
    r = _bot(base, tid, 0, host, kind="random")
    assert r.status_code == 200, r.text
    assert r.json()["seats"][0]["bot"] == "random"
    assert r.json()["seats"][0]["name"] == "Ann"
    leave = f"{base}/v1/tables/{tid}/seats/0/leave"
    r = requests.post(leave, headers=_bearer(ann), timeout=10)
    assert r.status_code == 409 and r.json()["code"] == "seat-is-bot"

    # Seat 2 back: open again, and the worker's bot no longer moves for it
    # (any later move of seat 2 is a timed-out default move).
    r = _back(base, tid, 2, host)
    assert r.status_code == 200, r.text
    seat2 = r.json()["seats"][2]
    assert (seat2["bot"], seat2["open"], seat2["name"]) == (None, True, None)
    assert r.json()["open_seats"] == [2]
    since = r.json()["last_event"]
    r = _back(base, tid, 2, host)
    assert r.status_code == 409 and r.json()["code"] == "seat-not-bot"
    # Seat 0 back: Ann's token works again (her leave is now the rules' refusal).
    r = _back(base, tid, 0, host)
    assert r.status_code == 200 and r.json()["seats"][0]["bot"] is None
    r = requests.post(leave, headers=_bearer(ann), timeout=10)
    assert r.status_code == 409 and r.json()["code"] == "table-dealt"

    def later_moves() -> list[dict[str, Any]]:
        found = [e for e in _events(base, tid) if e["seq"] > since]
        seat_moves = [e for e in found if e["type"] in MOVES and e["seat"] == 2]
        return seat_moves if len(seat_moves) >= 2 else []

    later = _wait(later_moves, 60)
    timed = _timed_steps(_events(base, tid), 2)
    assert [f"r{m['round']}t{m['turn']}" in timed for m in later] == [True] * len(later)
    removed = [e for e in _events(base, tid) if e["type"] == "seat-bot-removed"]
    assert [(e["seat"], e["open"]) for e in removed] == [(2, True), (0, False)]
