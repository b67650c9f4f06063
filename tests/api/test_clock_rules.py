"""The turn clock as RULES.md 5.3 settles it, in every game (issue 41):

- a seat's own move for a step whose default move was made is refused 409
  as stale, even the same move, and the seat stays ``away``; an earlier
  move it made itself is still answered alike;
- a seat's own move before its deadline clears ``away`` with ``seat-back``;
- any person's act of play resumes a paused clock: the step's deadlines
  count from it again, and a worker is told;
- a seat's own view carries its ``until_ms`` and ``away``; ``awaiting``
  carries the first deadline of the seats it waits for.

Default moves are made here as the worker makes them
(``service.worker.moves.deadline_move``), in process: see test_seat_back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.storage.store import table_key

from ..conftest import RedisProcess
from ..helpers import WORKED_HANDS, Table, TableClient, bearer
from .test_seat_back import time_out

GAMES = {"ship": "mein-schiff", "sevens": "sevens", "may-i": "may-i"}


def seat_view(tables: TableClient, t: Table, seat: int) -> dict[str, Any]:
    got = tables.client.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat]))
    assert got.status_code == 200, got.get_json()
    return got.get_json()  # type: ignore[no-any-return]


def dealt(tables: TableClient, game: str, seats: int = 4, **options: Any) -> Table:
    t = tables.create(seats, variant=GAMES[game], **options)
    hands = WORKED_HANDS if game == "ship" and seats == 4 else None
    assert tables.deal(t, hands).status_code == 201
    return t


def own_move(tables: TableClient, t: Table, seat: int) -> Any:
    """The move ``seat`` makes itself now, as its own view offers it."""
    view, mine = tables.public(t), seat_view(tables, t, seat)
    rnd = view["round"]
    token = bearer(t.seats[seat])
    if view["game"] == "my-ship-sails":
        path = f"{t.url}/rounds/{rnd['number']}/exchanges/{rnd['exchange']}/passes/{seat}"
        return tables.client.put(path, json={"cards": mine["hand"][:1]}, headers=token)
    if view["game"] == "sevens":
        body = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
        path = f"{t.url}/rounds/{rnd['number']}/turns/{rnd['turn']}"
        return tables.client.put(path, json=body, headers=token)
    may = mine["may"]
    body = {"take_discard": True} if "take_discard" in may else {"draw": True}
    if "discard" in may:
        body = {"discard": mine["discardable"][0]}
    path = f"{t.url}/rounds/{rnd['number']}/moves/{rnd['move']}"
    return tables.client.put(path, json=body, headers=token)


# A late move ------------------------------------------------------------------


def test_sevens_a_late_play_equal_to_the_default_is_stale_and_the_seat_stays_away(
    app: Any, tables: TableClient
) -> None:
    t = dealt(tables, "sevens", 3, turn_timeout_ms=100, away_timeout_ms=60_000)
    view = tables.public(t)
    seat, turn = view["awaiting"]["seats"][0], view["round"]["turn"]
    time_out(app, tables, t, seat)
    made = next(
        e
        for e in tables.events(t)
        if e.get("turn") == turn and e["type"] in ("card-played", "passed")
    )
    assert made["seat"] == seat
    if made["type"] == "card-played":
        body = {"play": made["card"], "last_card": made["last_card"]}
    else:
        body = {"pass": True}
    count = tables.public(t)["last_event"]
    late = tables.client.put(
        f"{t.url}/rounds/1/turns/{turn}", json=body, headers=bearer(t.seats[seat])
    )
    assert late.status_code == 409, late.get_json()
    assert late.get_json()["code"] == "stale-turn"
    after = tables.public(t)
    assert after["seats"][seat]["away"] is True
    assert after["last_event"] == count  # nothing written


def test_sevens_a_repeat_of_a_turn_the_seat_played_itself_is_answered_alike_once_it_is_away(
    app: Any, tables: TableClient
) -> None:
    t = dealt(tables, "sevens", 3, turn_timeout_ms=100, away_timeout_ms=60_000)
    first = tables.public(t)
    seat, turn = first["awaiting"]["seats"][0], first["round"]["turn"]
    mine = seat_view(tables, t, seat)
    body = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
    path = f"{t.url}/rounds/1/turns/{turn}"
    played = tables.client.put(path, json=body, headers=bearer(t.seats[seat]))
    assert played.status_code == 200, played.get_json()
    while tables.public(t)["awaiting"]["seats"][0] != seat:  # round the table to it again
        other = tables.public(t)["awaiting"]["seats"][0]
        assert own_move(tables, t, other).status_code == 200
    time_out(app, tables, t, seat)
    again = tables.client.put(path, json=body, headers=bearer(t.seats[seat]))
    assert again.status_code == 200, again.get_json()
    assert again.get_json() == played.get_json()


def test_ship_a_default_pass_is_neither_repeated_nor_replaced_by_its_seat(
    app: Any, tables: TableClient
) -> None:
    t = dealt(tables, "ship", turn_timeout_ms=100, away_timeout_ms=60_000, max_exchanges=5)
    for seat in (1, 2):
        assert tables.pass_(t, 1, 1, seat, tables.hand(t, seat)[:1]).status_code == 200
    time_out(app, tables, t, 0)  # seat 0's default pass; seat 3 has not chosen
    chosen = seat_view(tables, t, 0)["pending"]
    assert chosen is not None
    count = tables.public(t)["last_event"]
    # The same pass, then another one, while the exchange waits for seat 3.
    for cards in (chosen, [c for c in tables.hand(t, 0) if c not in chosen][:1]):
        late = tables.pass_(t, 1, 1, 0, cards)
        assert late.status_code == 409, late.get_json()
        assert late.get_json()["code"] == "stale-exchange"
        assert tables.public(t)["seats"][0]["away"] is True
        assert tables.public(t)["last_event"] == count
    assert seat_view(tables, t, 0)["pending"] == chosen
    assert tables.pass_(t, 1, 1, 3, tables.hand(t, 3)[:1]).status_code == 200
    assert tables.public(t)["round"]["exchange"] == 2
    # Once resolved, its repeat is stale too.
    late = tables.pass_(t, 1, 1, 0, chosen)
    assert late.status_code == 409 and late.get_json()["code"] == "stale-exchange"
    assert [e for e in tables.events(t) if e["type"] == "seat-back"] == []
    # Its own pass before its next deadline: back, said once.
    assert tables.pass_(t, 1, 2, 0, tables.hand(t, 0)[:1]).status_code == 200
    assert tables.public(t)["seats"][0]["away"] is False
    assert [e["seat"] for e in tables.events(t) if e["type"] == "seat-back"] == [0]


def test_ship_a_default_pass_an_older_release_made_is_replaced_with_seat_back(
    app: Any, tables: TableClient, redis_client: redis.Redis
) -> None:
    # A default pass whose step the table does not remember (an older
    # release's worker made it, during a rolling update): the seat's own
    # pass replaces it, as a replacement may, and the seat is back, said
    # with seat-back (choose.lua cleared away and said nothing).
    t = dealt(tables, "ship", turn_timeout_ms=100, away_timeout_ms=60_000, max_exchanges=5)
    for seat in (1, 2):
        assert tables.pass_(t, 1, 1, seat, tables.hand(t, seat)[:1]).status_code == 200
    time_out(app, tables, t, 0)
    redis_client.hdel(table_key(t.table_id), "t")
    chosen = seat_view(tables, t, 0)["pending"]
    other = [c for c in tables.hand(t, 0) if c not in chosen][:1]
    assert tables.pass_(t, 1, 1, 0, other).status_code == 200
    assert seat_view(tables, t, 0)["pending"] == other
    assert tables.public(t)["seats"][0]["away"] is False
    assert [e["seat"] for e in tables.events(t) if e["type"] == "seat-back"] == [0]


def test_may_i_a_late_move_equal_to_the_default_is_stale_and_the_seat_stays_away(
    app: Any, tables: TableClient
) -> None:
    t = dealt(tables, "may-i", 3, turn_timeout_ms=100, away_timeout_ms=60_000)
    view = tables.public(t)
    seat, move = view["awaiting"]["seats"][0], view["round"]["move"]
    time_out(app, tables, t, seat)
    kinds = {"discard-taken": "take_discard", "discard-declined": "decline", "stock-drawn": "draw"}
    made = next(e for e in tables.events(t) if e.get("move") == move and e["type"] in kinds)
    assert made["seat"] == seat
    count = tables.public(t)["last_event"]
    late = tables.client.put(
        f"{t.url}/rounds/1/moves/{move}",
        json={kinds[made["type"]]: True},
        headers=bearer(t.seats[seat]),
    )
    assert late.status_code == 409, late.get_json()
    assert late.get_json()["code"] == "stale-move"
    after = tables.public(t)
    assert after["seats"][seat]["away"] is True
    assert after["last_event"] == count


# A paused clock -----------------------------------------------------------------


@pytest.fixture()
def notes(redis_server: RedisProcess) -> Iterator[Any]:
    """The clock notes of one table, once :func:`listen` names it."""
    r = redis.Redis.from_url(redis_server.url)
    pubsub = r.pubsub(ignore_subscribe_messages=True)
    yield r, pubsub
    pubsub.close()
    r.close()


def pause(r: redis.Redis, t: Table, away: int, limit: int) -> None:
    """As if the referee had made ``limit`` moves in a row, ``away`` timing out."""
    r.hset(table_key(t.table_id), mapping={"u": limit, "y": str(away)})


def first_note(pubsub: Any) -> int:
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        note = pubsub.get_message(timeout=0.1)
        if note is not None:
            return int(note["data"])
    raise AssertionError("no clock note: no worker hears of the resumed clock")


def resumed(tables: TableClient, t: Table, before_ms: int) -> dict[str, Any]:
    """The public view once a person's act resumed the paused clock: no
    deadline lies before that act."""
    view = tables.public(t)
    assert view["clock_paused"] is False
    shown = [s["until_ms"] for s in view["seats"] if s["until_ms"] is not None]
    assert shown, view["seats"]
    assert min(shown) >= before_ms, (shown, before_ms)
    return view


def test_ship_a_persons_pass_resumes_a_paused_clock(
    tables: TableClient, notes: tuple[redis.Redis, Any]
) -> None:
    r, pubsub = notes
    t = dealt(tables, "ship", turn_timeout_ms=60_000, away_timeout_ms=200, unattended_moves=10)
    pause(r, t, 3, 10)
    paused = tables.public(t)
    assert paused["clock_paused"] is True
    assert [s["until_ms"] for s in paused["seats"]] == [None] * 4
    pubsub.subscribe(f"referee:{{{t.table_id}}}:clock")
    time.sleep(0.3)  # seat 3's deadline from the deal (200 ms) has passed
    before = int(time.time() * 1000) - 50
    assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200  # the exchange waits for 1..3
    view = resumed(tables, t, before)
    away = view["seats"][3]["until_ms"]
    assert view["seats"][3]["away"] is True and away <= before + 1_000
    assert first_note(pubsub) == away


def test_may_i_a_persons_answer_resumes_a_paused_clock(
    tables: TableClient, notes: tuple[redis.Redis, Any]
) -> None:
    r, pubsub = notes
    t = dealt(tables, "may-i", 4, turn_timeout_ms=60_000, away_timeout_ms=200, unattended_moves=10)
    view = tables.public(t)
    on_turn, move = view["round"]["on_turn"], view["round"]["move"]
    declined = tables.client.put(
        f"{t.url}/rounds/1/moves/{move}", json={"decline": True}, headers=bearer(t.seats[on_turn])
    )
    assert declined.status_code == 200, declined.get_json()
    offer = tables.public(t)["round"]["may_i"]["offer"]
    asker = next(s for s in range(4) if s != on_turn and "ask" in seat_view(tables, t, s)["may"])
    asked = tables.client.post(
        f"{t.url}/rounds/1/may-i", json={"offer": offer}, headers=bearer(t.seats[asker])
    )
    assert asked.status_code == 200, asked.get_json()
    voters = tables.public(t)["awaiting"]["seats"]
    assert len(voters) == 2, voters
    pause(r, t, voters[1], 10)
    assert tables.public(t)["clock_paused"] is True
    pubsub.subscribe(f"referee:{{{t.table_id}}}:clock")
    time.sleep(0.3)
    before = int(time.time() * 1000) - 50
    answered = tables.client.put(
        f"{t.url}/rounds/1/may-i/{offer}/answers/{voters[0]}",
        json={"allow": True},
        headers=bearer(t.seats[voters[0]]),
    )
    assert answered.status_code == 200, answered.get_json()
    view = resumed(tables, t, before)
    assert first_note(pubsub) == view["seats"][voters[1]]["until_ms"]


@pytest.mark.parametrize("game", ["sevens", "may-i"])
def test_a_persons_turn_resumes_a_paused_clock(
    tables: TableClient, notes: tuple[redis.Redis, Any], game: str
) -> None:
    r, pubsub = notes
    t = dealt(tables, game, 3, turn_timeout_ms=60_000, away_timeout_ms=200, unattended_moves=10)
    seat = tables.public(t)["awaiting"]["seats"][0]
    pause(r, t, (seat + 1) % 3, 10)
    assert tables.public(t)["clock_paused"] is True
    pubsub.subscribe(f"referee:{{{t.table_id}}}:clock")
    time.sleep(0.3)
    before = int(time.time() * 1000) - 50
    assert own_move(tables, t, seat).status_code == 200
    resumed(tables, t, before)
    first_note(pubsub)


def test_a_seats_seed_resumes_no_paused_clock(
    tables: TableClient, notes: tuple[redis.Redis, Any]
) -> None:
    """RULES.md 5.4: a seed for the next deal is no act of play (issue 39,
    twentieth attacker: each new seed, two given in turn, bought a table of
    bots another ``unattended_moves`` moves)."""
    r, _ = notes
    t = dealt(tables, "ship", turn_timeout_ms=60_000, away_timeout_ms=200, unattended_moves=10)
    pause(r, t, 3, 10)
    for seed in ("s1", "s2", "s1"):
        given = tables.client.put(
            f"{t.url}/next-deal/seeds/0", json={"seed": seed}, headers=bearer(t.seats[0])
        )
        assert given.status_code == 200, given.get_json()
        assert tables.public(t)["clock_paused"] is True
        assert r.hget(table_key(t.table_id), "u") == b"10"
    # A move of the seat's own resumes it.
    assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200
    assert tables.public(t)["clock_paused"] is False


# What a seat sees of its clock ----------------------------------------------------


@pytest.mark.parametrize("game", ["ship", "sevens", "may-i"])
def test_a_seat_sees_its_own_deadline_and_away_and_awaiting_the_first_deadline(
    app: Any, tables: TableClient, game: str
) -> None:
    t = dealt(tables, game, turn_timeout_ms=150, away_timeout_ms=60_000)
    view = tables.public(t)
    due = view["awaiting"]["seats"]
    deadlines = {s["seat"]: s["until_ms"] for s in view["seats"]}
    assert view["awaiting"]["until_ms"] == min(deadlines[s] for s in due) is not None
    seat = due[0]
    mine = seat_view(tables, t, seat)
    assert (mine["until_ms"], mine["away"]) == (deadlines[seat], False)
    time_out(app, tables, t, seat)
    mine = seat_view(tables, t, seat)
    assert mine["away"] is True
    assert mine["until_ms"] == tables.public(t)["seats"][seat]["until_ms"]
    after = tables.public(t)
    waiting = after["awaiting"]
    if waiting["action"] != "may-i":  # else a May I? window's close, which comes first
        shown = [after["seats"][s]["until_ms"] for s in waiting["seats"]]
        shown = [at for at in shown if at is not None]
        assert waiting["until_ms"] == (min(shown) if shown else None)
