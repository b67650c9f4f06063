"""A seat's own move racing its deadline (RULES.md 5.3): sent right at the
deadline, step after step, against two real ``referee worker`` processes.
Whoever wins, one move lands for the step, never two, and a move answered
200 is the one the log keeps."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
import requests

from .test_worker import _create, _deal, _events, _view, _wait
from .test_worker import stack as stack  # the fixture

pytestmark = pytest.mark.timeout(300)

STEPS = 24


def test_a_move_sent_at_its_deadline_lands_once(stack: dict[str, Any]) -> None:
    base = stack["served"].base
    created = _create(
        base,
        variant="sevens",
        players=["Ann", "Bob", "Cy"],
        first_dealer=0,
        options={"turn_timeout_ms": 300, "away_timeout_ms": 300, "last_card": False},
    )
    tid = created["table_id"]
    tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}
    _deal(base, created)
    jitter = random.Random(19)
    answered: dict[tuple[int, int], tuple[int, dict[str, Any]]] = {}
    sent = 0
    while sent < STEPS:
        view = _view(base, tid)
        rnd = view.get("round") or {}
        seat, turn = rnd.get("on_turn"), rnd.get("turn")
        if view["match"]["status"] != "in-progress" or seat is None or turn is None:
            break
        until = view["seats"][seat]["until_ms"]
        if until is None or (rnd["number"], turn) in answered:
            time.sleep(0.01)
            continue
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = requests.get(f"{base}/v1/tables/{tid}/seats/{seat}", headers=auth, timeout=10)
        playable = mine.json()["playable"]
        # The last playable card (basic's default move is often another).
        body: dict[str, Any] = {"play": playable[-1]} if playable else {"pass": True}
        # Right at the deadline (Redis's clock is this machine's), -20 to +200 ms: either wins.
        time.sleep(max(0.0, until / 1000 - time.time() + jitter.uniform(-0.02, 0.2)))
        r = requests.put(
            f"{base}/v1/tables/{tid}/rounds/{rnd['number']}/turns/{turn}",
            json=body,
            headers=auth,
            timeout=10,
        )
        assert r.status_code in (200, 409), r.text
        if r.status_code == 409:
            assert r.json()["code"] in ("stale-turn", "not-your-turn", "stale-round"), r.text
        answered[(rnd["number"], turn)] = (r.status_code, body)
        sent += 1
    assert sent >= 12
    last = max(answered)
    # The table moves on past the last step raced (the worker or a seat).
    _wait(
        lambda: [
            e
            for e in _events(base, tid)
            if e["type"] in ("card-played", "passed") and (e["round"], e["turn"]) == last
        ]
    )
    events = requests.get(f"{base}/v1/tables/{tid}/events?limit=500", timeout=10).json()["events"]
    timed = {e["step"] for e in events if e["type"] == "move-timed-out"}
    for (number, turn), (status, body) in answered.items():
        moves = [
            e
            for e in events
            if e["type"] in ("card-played", "passed") and (e["round"], e["turn"]) == (number, turn)
        ]
        assert len(moves) == 1, (number, turn, moves)  # never two, never none
        step = f"r{number}t{turn}"
        if status == 200:
            # An acknowledged move survives: it is the one in the log.
            if "play" in body:
                assert (moves[0]["type"], moves[0]["card"]) == ("card-played", body["play"])
            else:
                assert moves[0]["type"] == "passed"
        else:
            assert step in timed, (step, moves)  # the deadline's move won
    wins = sorted({status for status, _ in answered.values()})
    print(f"raced {len(answered)} steps; answers {wins}")
