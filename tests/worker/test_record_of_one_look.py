"""A May I? request answered in one look of the worker (issue 40, second
sceptic): a bot's answer and an away seat's default answer fall due at the
same instant, the second closes the window early, and the round's record
holds both, so that ``referee replay`` runs every move of the genuine round
(RULES.md 5.2: every accepted move is in the chain). Real gunicorn, real
``referee worker`` processes, the real ``referee replay``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from ..test_cli_polish import referee
from .test_worker import _create, _deal, _events, _wait
from .test_worker import stack as stack  # the fixture

pytestmark = pytest.mark.timeout(300)


def test_a_window_closed_by_a_default_answer_in_one_look_replays(
    stack: dict[str, Any], tmp_path: Path
) -> None:
    base = stack["served"].base
    # Seat 2's bot and seat 3's clock fall due together once seat 0 asks.
    created = _create(
        base,
        variant="may-i",
        players=["P0", "P1", {"bot": "basic"}, "P3"],
        first_dealer=0,
        options={"may_i_window_ms": 60_000, "turn_timeout_ms": 1500, "bot_delay_ms": 1500},
    )
    tid = created["table_id"]
    token = {s["seat"]: s["token"] for s in created["seat_tokens"]}
    url = f"{base}/v1/tables/{tid}"
    _deal(base, created)

    def as_seat(seat: int, method: str, path: str, body: dict[str, Any]) -> Any:
        r = requests.request(
            method, url + path, json=body, headers={"Authorization": f"Bearer {token[seat]}"}
        )
        assert r.status_code == 200, r.text
        return r.json()

    as_seat(1, "PUT", "/rounds/1/moves/1", {"decline": True})
    as_seat(0, "POST", "/rounds/1/may-i", {"offer": 1})
    given = _wait(lambda: [e for e in _events(base, tid) if e["type"] == "may-i-given"])
    answered = [e for e in _events(base, tid) if e["type"] == "may-i-answered"]
    timed = [e for e in _events(base, tid) if e["type"] == "move-timed-out"]
    assert [e["seat"] for e in answered] == [2, 3]
    assert [(e["seat"], e["step"]) for e in timed] == [(3, "r1o1v")]
    assert given[0]["at_ms"] == answered[1]["at_ms"] < given[0]["at_ms"] + 60_000
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert requests.post(f"{url}/finish", headers=host, timeout=10).status_code == 200
    record = requests.get(f"{url}/rounds/1/record", timeout=10).json()
    answers = [
        (m["seat"], m["by"], m.get("commutes", False))
        for m in record["moves"]
        if m["move"] == "answer"
    ]
    # The default answer that completed the step is an entry of its own.
    assert answers == [(2, "bot", True), (3, "default", False)]
    assert "resolve" not in [m["move"] for m in record["moves"]]
    (tmp_path / "record.json").write_text(json.dumps(record))
    replayed = referee("replay", str(tmp_path / "record.json"))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith(f"OK table {tid} round 1 (may-i)"), replayed.stdout
