"""May I? answers commute (issue 13): each answer is committed on its own,
never racing the other answerers for the table's version; only the giving
of the card is serialised. Real Redis, real gunicorn (two workers), the
answerers in separate processes."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from typing import Any

import pytest
import redis

from service import create_app
from service.games.errors import RuleViolation
from service.games.may_i import engine
from service.storage.store import choices_key, table_key

from ..conftest import RedisProcess, Served, settings_for
from ..helpers import Table, TableClient, bearer, snapshot
from ..may_i.common import full_deal
from ..test_gunicorn import send
from .test_simultaneous import conflicts_served

SEATS, ON_TURN, ASKER = 7, 1, 4
ANSWERERS = (0, 2, 3, 5, 6)  # the order of play from seat 1: 2 3 [4 asks] 5 6 0

CLIENT = """
import http.client, json, sys, time
port, path, token, allow, at = sys.argv[1:6]
while time.time() < float(at):
    time.sleep(0.0005)
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
c.request("PUT", path, body=json.dumps({"allow": allow == "1"}),
          headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
r = c.getresponse()
print(json.dumps([r.status, json.loads(r.read())]))
"""


def asked_table(served: Served, window_ms: int) -> Table:
    """7 seats, seat 1 declined 2C (offer 1), seat 4 asked for it."""
    body = {
        "variant": "may-i",
        "players": [f"P{s}" for s in range(SEATS)],
        "first_dealer": 0,
        "options": {"may_i_window_ms": window_ms},
    }
    status, _, created = send(served, "POST", "/v1/tables", body)
    assert status == 201, created
    t = Table(
        created["table_id"], created["host_token"], [s["token"] for s in created["seat_tokens"]], {}
    )
    deal = full_deal("may-i", SEATS, {}, discard="2C")
    status, _, dealt = send(served, "POST", f"{t.url}/rounds", deal, **bearer(t.host))
    assert status == 201, dealt
    path = f"{t.url}/rounds/1/moves/1"
    status, _, declined = send(served, "PUT", path, {"decline": True}, **bearer(t.seats[ON_TURN]))
    assert status == 200 and declined["step"] == "may-i", declined
    path = f"{t.url}/rounds/1/may-i"
    status, _, asked = send(served, "POST", path, {"offer": 1}, **bearer(t.seats[ASKER]))
    assert status == 200 and asked["current_offer"]["asker"] == ASKER, asked
    return t


def counted(served: Served, kind: str) -> float:
    """``referee_events_total`` of May I?'s events of type ``kind`` over the workers."""
    with urllib.request.urlopen(f"{served.base}/metrics", timeout=10) as r:
        text = r.read().decode()
    wanted = f'referee_events_total{{game="may-i",type="{kind}"}}'
    return sum(float(x.split()[-1]) for x in text.splitlines() if x.startswith(wanted))


def answer_path(t: Table, seat: int) -> str:
    return f"{t.url}/rounds/1/may-i/1/answers/{seat}"


def cards(served: Served, t: Table) -> list[int]:
    status, _, view = send(served, "GET", t.url)
    assert status == 200
    return [s["cards"] for s in view["seats"]]


@pytest.mark.parametrize(
    ("denies", "taker", "stock"),
    [
        (set(), ASKER, 1),  # all allow: the asker, with one stock card
        ({0, 3}, 3, 1),  # seat 3 comes before the asker: 1 card
        ({0, 6}, 6, 2),  # only seats after the asker deny: the first of them, 2 cards
        ({2, 3, 5, 6, 0}, 2, 1),
    ],
)
def test_five_answerers_at_once_from_separate_processes_never_race(
    served: Served, redis_client: redis.Redis, denies: set[int], taker: int, stock: int
) -> None:
    t = asked_table(served, window_ms=60_000)
    answers = ["deny" if s in denies else "" for s in range(SEATS)]
    assert engine.taker_of(SEATS, ON_TURN, ASKER, answers) == (taker, stock)
    version = redis_client.hget(table_key(t.table_id), "v")
    conflicts = conflicts_served(served)
    answered, given = counted(served, "may-i-answered"), counted(served, "may-i-given")
    at = time.time() + 1.5  # every client started and waiting
    clients = {
        s: subprocess.Popen(
            [
                sys.executable,
                "-c",
                CLIENT,
                str(served.port),
                answer_path(t, s),
                t.seats[s],
                "0" if s in denies else "1",
                str(at),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for s in ANSWERERS
    }
    got: dict[int, tuple[int, dict[str, Any]]] = {}
    for s, proc in clients.items():
        out, _ = proc.communicate(timeout=60)
        status, body = json.loads(out)
        got[s] = (status, body)
    assert {s: status for s, (status, _) in got.items()} == dict.fromkeys(ANSWERERS, 200)
    assert conflicts_served(served) == conflicts
    # Every answer's event is counted once, by the request that wrote it.
    assert counted(served, "may-i-answered") == answered + len(ANSWERERS)
    assert counted(served, "may-i-given") == given + 1
    # Exactly one answer completed the request and was answered with the card given.
    closing = [s for s, (_, body) in got.items() if body["open"] is False]
    assert len(closing) == 1, got
    assert got[closing[0]][1]["step"] == "stock"
    # The others were answered as the table stood right after each: the
    # answers that had arrived by then, their own last.
    seen = sorted(len(body["current_offer"]["answers"]) for _, body in got.values() if body["open"])
    assert seen == [1, 2, 3, 4]
    status, _, page = send(served, "GET", f"{t.url}/events?after=0&limit=1000")
    events = page["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    answered = [e for e in events if e["type"] == "may-i-answered"]
    assert sorted((e["seat"], e["allow"]) for e in answered) == [
        (s, s not in denies) for s in ANSWERERS
    ]
    gifts = [e for e in events if e["type"] == "may-i-given"]
    assert [(g["seat"], g["card"], g["stock_cards"], g["asker"]) for g in gifts] == [
        (taker, "2C", stock, ASKER)
    ]
    assert [e["type"] for e in events][-len(answered) - 1 :] == [
        *["may-i-answered"] * len(ANSWERERS),
        "may-i-given",
    ]
    expected = [10] * SEATS
    expected[taker] += 1 + stock
    assert cards(served, t) == expected
    # The answers took no version; the giving took one.
    assert int(redis_client.hget(table_key(t.table_id), "v")) == int(version) + 1
    assert redis_client.exists(choices_key(t.table_id)) == 0
    assert redis_client.hget(table_key(t.table_id), "k") in (b"", None)
    # A repeat answers exactly as the first time, and writes nothing; another answer is 409.
    before = snapshot(redis_client, t)
    for s in ANSWERERS:
        allow = s not in denies
        status, _, again = send(
            served, "PUT", answer_path(t, s), {"allow": allow}, **bearer(t.seats[s])
        )
        assert (status, again) == got[s], s
        status, _, other = send(
            served, "PUT", answer_path(t, s), {"allow": not allow}, **bearer(t.seats[s])
        )
        assert status == 409 and other["code"] == "may-i-closed", other
    assert snapshot(redis_client, t) == before


def test_pending_answers_show_stand_and_fold_in_when_the_window_closes(
    served: Served, redis_client: redis.Redis
) -> None:
    t = asked_table(served, window_ms=1_500)
    version = redis_client.hget(table_key(t.table_id), "v")
    _, asked_headers, _ = send(served, "GET", t.url)
    path = answer_path(t, 6)
    status, _, first = send(served, "PUT", path, {"allow": False}, **bearer(t.seats[6]))
    assert status == 200 and first["open"] is True
    assert first["current_offer"]["answers"] == {"6": "deny"}
    key = {"Idempotency-Key": f"second-answer-{t.table_id}"}
    status, _, second = send(
        served, "PUT", answer_path(t, 2), {"allow": True}, **bearer(t.seats[2]), **key
    )
    assert second["current_offer"]["answers"] == {"6": "deny", "2": "allow"}
    status, headers, replayed = send(
        served, "PUT", answer_path(t, 2), {"allow": True}, **bearer(t.seats[2]), **key
    )
    assert (status, replayed, headers["Idempotent-Replayed"]) == (200, second, "true")
    # Kept beside the state, in their order of arrival; no version taken.
    assert redis_client.hget(table_key(t.table_id), "v") == version
    stored = redis_client.hgetall(choices_key(t.table_id))
    assert sorted(stored) == [b"2", b"6"]
    assert stored[b"6"].startswith(b"d") and stored[b"6"].endswith(b"#1")
    assert stored[b"2"].startswith(b"a") and stored[b"2"].endswith(b"#2")
    status, headers, view = send(served, "GET", t.url)
    assert view["round"]["may_i"]["answers"] == {"2": "allow", "6": "deny"}
    # The pending answers move the ETag (they moved the event count).
    assert headers["ETag"] != asked_headers["ETag"]
    status, _, _ = send(served, "GET", t.url, **{"If-None-Match": headers["ETag"]})
    assert status == 304
    # An answer once given stands.
    status, _, other = send(served, "PUT", path, {"allow": True}, **bearer(t.seats[6]))
    assert status == 409 and other["code"] == "already-answered"
    status, _, again = send(served, "PUT", path, {"allow": False}, **bearer(t.seats[6]))
    assert (status, again) == (200, first)
    time.sleep(max(0.0, view["round"]["may_i"]["until_ms"] / 1000 - time.time()) + 0.3)
    # The window closed: silence allowed; seat 6 denied, after the asker: 2 cards.
    expected = [10] * SEATS
    expected[6] += 3
    assert cards(served, t) == expected
    # The seat on turn draws (committing the giving), then a late answer changes nothing.
    status, _, drawn = send(
        served, "PUT", f"{t.url}/rounds/1/moves/2", {"draw": True}, **bearer(t.seats[ON_TURN])
    )
    assert status == 200, drawn
    assert redis_client.exists(choices_key(t.table_id)) == 0
    before = snapshot(redis_client, t)
    status, _, late = send(served, "PUT", answer_path(t, 0), {"allow": False}, **bearer(t.seats[0]))
    assert status == 409 and late["code"] == "may-i-closed"
    assert snapshot(redis_client, t) == before
    status, _, page = send(served, "GET", f"{t.url}/events?after=0&limit=1000")
    gifts = [e for e in page["events"] if e["type"] == "may-i-given"]
    assert [(g["seat"], g["stock_cards"]) for g in gifts] == [(6, 2)]


@pytest.mark.own_app  # changes its app's store
def test_answers_made_on_a_stale_read_stand_and_are_answered_as_the_table_after_them(
    app: Any, redis_client: redis.Redis, redis_server: RedisProcess
) -> None:
    """Two processes: an answer computed on a read made before another
    process's answers is numbered after them and answered as the table
    stands after it; a seat's second, different answer never replaces its
    first (the script refuses it, the move sees the first: 409)."""
    tables = TableClient(app.test_client())
    # A window far longer than the test (the default 5 s can lapse under load
    # while the second app starts); the window closes here on the last answer.
    t = tables.create(SEATS, "may-i", first_dealer=0, may_i_window_ms=60_000)
    deal = full_deal("may-i", SEATS, {}, discard="2C")
    assert (
        tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host)).status_code == 201
    )
    moved = tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"decline": True}, headers=bearer(t.seats[ON_TURN])
    )
    assert moved.status_code == 200
    asked = tables.client.post(
        f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=bearer(t.seats[ASKER])
    )
    assert asked.status_code == 200
    store = app.extensions["referee"].store
    other = create_app(settings_for(redis_server.url)).extensions["referee"].store

    def answer(seat: int, allow: bool) -> Any:
        return lambda loaded: engine.answer(loaded.table, 1, 1, seat, allow, loaded.now_ms)

    def stale() -> Any:
        pipe = store.client.pipeline(transaction=False)
        return store.queue_load(pipe, t.table_id)(pipe.execute())

    statuses: list[int] = []
    write_choice = store._write_choice

    def told(*args: Any) -> Any:
        result = write_choice(*args)
        statuses.append(result[0])
        return result

    store._write_choice = told
    read = stale()
    other.apply(t.table_id, answer(2, False))
    other.apply(t.table_id, answer(5, True))
    _, change = store.apply(t.table_id, answer(3, True), prefetched=read)
    assert change.outcome["current_offer"]["answers"] == {"2": "deny", "5": "allow", "3": "allow"}
    held = redis_client.hgetall(choices_key(t.table_id))
    assert [held[s][-2:] for s in (b"2", b"5", b"3")] == [b"#1", b"#2", b"#3"]
    read = stale()
    other.apply(t.table_id, answer(0, True))
    with pytest.raises(RuleViolation) as refused:
        store.apply(t.table_id, answer(0, False), prefetched=read)
    assert refused.value.code == "already-answered"
    # Seat 3's answer was written on the stale read (numbered third), seat
    # 0's second answer refused by the script, then by the move on a new read.
    assert statuses == [1, -1]
    assert redis_client.hget(choices_key(t.table_id), "0").startswith(b"a")
    _, last = store.apply(t.table_id, answer(6, False))
    assert last.outcome["open"] is False
    # Seat 2 denied first in the order of play (before the asker): 1 stock card.
    gifts = [e for e in tables.events(t) if e["type"] == "may-i-given"]
    assert [(g["seat"], g["stock_cards"]) for g in gifts] == [(2, 1)]
