"""Sevens attacked over HTTP, as another seat, a stranger and a front end:
what a pass, a view, a log or a round's result tells the other seats; how
strictly a move's body is read; wrong tokens on every operation; seats racing
one turn on two workers; repeats; finishing mid-round; and an oracle that
plays whole matches and checks every answer against the true hands in Redis
(including that the public view and each seat's view do not change when the
cards that caller cannot see are dealt anew)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
import redis

from service.games.codec import decode
from service.games.sevens.layout import playable, row_cards, row_json
from service.games.sevens.scoring import penalty
from service.games.sevens.state import Table as SevensTable
from service.games.sevens.views import public_view, seat_view
from service.storage.store import table_key

from .. import helpers
from ..helpers import OPAQUE, Table, TableClient, bearer, snapshot
from .test_sevens import DEAL, turn


def test_a_pass_does_not_tell_whether_the_seat_could_have_played(
    tables: TableClient,
) -> None:
    # With voluntary passes a pass may hide a playable card: whether it did is
    # the passer's secret. After 7D, seat 3 holds 6D and passes anyway; seat 0
    # holds nothing playable and passes. The others must not tell them apart.
    t = tables.create(4, "sevens-voluntary", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    assert turn(tables, t, 1, 1, 2, play="7D").status_code == 200
    voluntary = turn(tables, t, 1, 2, 3, **{"pass": True})
    forced = turn(tables, t, 1, 3, 0, **{"pass": True})
    assert voluntary.status_code == forced.status_code == 200
    passes = [e for e in tables.events(t) if e["type"] == "passed"]
    assert len(passes) == 2
    strip = [
        {k: v for k, v in e.items() if k not in ("seq", "at_ms", "seat", "turn")} for e in passes
    ]
    assert strip[0] == strip[1], passes
    view = tables.public(t)
    seat3 = {k: v for k, v in view["seats"][3].items() if k not in ("seat", "name", "cards")}
    seat0 = {k: v for k, v in view["seats"][0].items() if k not in ("seat", "name", "cards")}
    assert seat3 == seat0, view["seats"]
    # The seat itself still sees how many voluntary passes it has left.
    mine = tables.client.get(f"{t.url}/seats/3", headers=bearer(t.seats[3])).get_json()
    assert mine["voluntary_passes_left"] == 2
    # And the two answers, which only their seats see, differ in nothing
    # but what is theirs.
    a, b = voluntary.get_json(), forced.get_json()
    for key in ("action", "card", "chips_paid", "last_card", "round_status"):
        assert a[key] == b[key]


def test_a_pass_kept_before_is_read_without_its_voluntary_flag() -> None:
    from service.games import codec

    event = codec.decode_event("[102,5,1,2,3,1,true]")
    assert event == {"at_ms": 5, "type": "passed", "round": 1, "turn": 2, "seat": 3, "chips": 1}
    written = codec.encode_event(
        {"at_ms": 5, "type": "passed", "round": 1, "turn": 2, "seat": 3, "chips": 1}
    )
    assert written.startswith("[108,") and codec.decode_event(written)["chips"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {"pass": 1},
        {"pass": "yes"},
        {"pass": "true"},
        {"play": "7D", "last_card": "true"},
        {"play": "7D", "last_card": 0},
        {"play": "7D", "last_card": "off"},
    ],
)
def test_a_move_takes_true_and_false_only_as_json_booleans(
    tables: TableClient, redis_client: redis.Redis, body: dict[str, Any]
) -> None:
    t = tables.create(4, "sevens-last-card", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    before = snapshot(redis_client, t)
    r = tables.client.put(f"{t.url}/rounds/1/turns/1", json=body, headers=bearer(t.seats[2]))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid-request"), r.get_json()
    assert r.get_json()["errors"][0]["pointer"] in ("/pass", "/last_card")
    assert snapshot(redis_client, t) == before


@pytest.mark.parametrize(
    "options",
    [{"voluntary_pass": 1}, {"last_card": "true"}, {"turn_the_corner": "yes"}, {"chips": 1}],
)
def test_an_option_takes_true_and_false_only_as_json_booleans(
    client: Any, options: dict[str, Any]
) -> None:
    # docs/rules/sevens.md: "Types are strict: a true/false option given a
    # number ... is refused."
    variant = "classic" if "chips" in options else "sevens"
    r = client.post(
        "/v1/tables", json={"variant": variant, "players": ["A", "B", "C", "D"], "options": options}
    )
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"][0]["pointer"] == "/options/" + next(iter(options))


# --- the oracle: whole matches, every answer checked against the true hands -----------

OPAQUE_HERE = OPAQUE | {"rules", "opening"}  # not cards in play


def cards_in(value: Any) -> set[str]:
    """Every card code in a JSON value but the table's rules and opening card."""
    return helpers.cards_in(value, OPAQUE_HERE)


def true_table(r: redis.Redis, t: Table) -> SevensTable:
    table = decode(r.hget(table_key(t.table_id), "s"))
    assert isinstance(table, SevensTable)
    return table


def hidden_from(table: SevensTable, seat: int | None) -> set[str]:
    """Cards in another seat's hand that were never played this round (with
    two decks a played card's twin may still be hidden: its code is public)."""
    rnd = table.round
    if rnd is None:
        return set()
    played = {c for row in rnd.layout for c in row_cards(row)}
    others = {c for s, h in enumerate(rnd.hands) if s != seat for c in h}
    return others - played - (set(rnd.hands[seat]) if seat is not None else set())


def shuffled_hidden(table: SevensTable, keep: int | None, rng: random.Random) -> SevensTable:
    """The same table with the cards of every seat but ``keep`` dealt anew
    among those seats (each keeps its count): what nobody else may tell apart."""
    rnd = table.round
    assert rnd is not None
    seats = [s for s in range(table.seats) if s != keep]
    pool = [c for s in seats for c in rnd.hands[s]]
    rng.shuffle(pool)
    hands = list(rnd.hands)
    for s in seats:
        hands[s], pool = tuple(sorted(pool[: len(hands[s])])), pool[len(hands[s]) :]
    return replace(table, round=replace(rnd, hands=tuple(hands)))


class Watcher:
    """Reads everything as everyone after each move and checks it."""

    def __init__(self, tables: TableClient, r: redis.Redis, t: Table, rng: random.Random) -> None:
        self.tables, self.r, self.t, self.rng = tables, r, t, rng
        self.c = tables.client
        self.seen_events = 0
        self.checks = 0

    def check(self, answers: list[tuple[int | None, Any, set[str]]]) -> None:
        """``answers``: (the caller's seat or None, the JSON answer, the cards it named)."""
        table = true_table(self.r, self.t)
        for seat, body, named in answers:
            leaked = cards_in(body) & hidden_from(table, seat) - named
            assert not leaked, (seat, leaked, body)
            self.checks += 1
        public = [
            self.c.get(self.t.url).get_json(),
            self.c.get(f"{self.t.url}/events?after={self.seen_events}&limit=1000").get_json(),
        ]
        if table.round is not None:
            public.append(self.c.get(f"{self.t.url}/rounds/{table.round.number}").get_json())
        self.seen_events = public[1]["last_event"]
        for body in public:
            leaked = cards_in(body) & hidden_from(table, None)
            assert not leaked, (leaked, body)
            self.checks += 1
        for event in public[1]["events"]:
            if event["type"] == "passed":
                assert set(event) == {"seq", "at_ms", "type", "round", "turn", "seat", "chips"}
        view = public[0]
        if table.round is not None:
            rnd = table.round
            assert [s["cards"] for s in view["seats"]] == [len(h) for h in rnd.hands]
            assert view["round"]["layout"] == [row_json(row) for row in rnd.layout]
            # Non-interference: the public view, and each seat's, is the same
            # whatever the cards it cannot see.
            now = 0
            assert public_view(shuffled_hidden(table, None, self.rng), now) == public_view(
                table, now
            )
            for s in range(table.seats):
                mine = self.c.get(f"{self.t.url}/seats/{s}", headers=bearer(self.t.seats[s]))
                assert mine.status_code == 200
                assert mine.get_json()["hand"] == sorted_like(rnd.hands[s], mine.get_json()["hand"])
                leaked = cards_in(mine.get_json()) & hidden_from(table, s)
                assert not leaked, (s, leaked)
                other = shuffled_hidden(table, s, self.rng)
                assert seat_view(other, s, now) == seat_view(table, s, now)
                self.checks += 1


def sorted_like(hand: tuple[str, ...], shown: list[str]) -> list[str]:
    assert sorted(hand) == sorted(shown)
    return shown


def refused_moves(table: SevensTable, rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    """Moves the rules refuse now, by the seat on turn and by the others."""
    rnd = table.round
    assert rnd is not None and rnd.on_turn is not None
    me = rnd.on_turn
    o = table.options
    moves: list[tuple[int, dict[str, Any]]] = []
    others = [c for s, h in enumerate(rnd.hands) if s != me for c in h if c not in rnd.hands[me]]
    if others:
        moves.append((me, {"play": rng.choice(others)}))  # play-invalid: not in the hand
    stuck = [c for c in rnd.hands[me] if not playable(c, rnd.layout, o.decks, o.turn_the_corner)]
    if stuck:
        moves.append((me, {"play": rng.choice(stuck)}))  # not-playable
    if not o.voluntary_pass or rnd.turn == 1:
        moves.append((me, {"pass": True}))  # must-play / must-open when it holds one
    other = (me + 1 + rng.randrange(table.seats - 1)) % table.seats
    moves.append((other, {"play": rng.choice(rnd.hands[other])}))  # not-your-turn
    return moves


def play_watched_match(
    tables: TableClient, r: redis.Redis, variant: str, players: int, seed: int, **options: Any
) -> int:
    rng = random.Random(seed)
    t = tables.create(players, variant, first_dealer=rng.randrange(players), **options)
    w = Watcher(tables, r, t, rng)
    while tables.public(t)["match"]["status"] == "in-progress":
        dealt = tables.deal(t)
        assert dealt.status_code == 201, dealt.get_json()
        w.check([(None, dealt.get_json(), set())])
        round_no = dealt.get_json()["round"]
        while True:
            table = true_table(r, t)
            rnd = table.round
            assert rnd is not None
            if rnd.on_turn is None:
                break
            before = snapshot(r, t)
            answers: list[tuple[int | None, Any, set[str]]] = []
            for s, body in refused_moves(table, rng):
                a = turn(tables, t, round_no, rnd.turn, s, **body)
                if a.status_code == 200:  # a pass that was allowed after all
                    assert body == {"pass": True}
                    answers.append((s, a.get_json(), set()))
                    break
                assert a.status_code in (409, 422), a.get_json()
                # A refusal may name the card sent, and the seven its row starts with.
                named = cards_in(body)
                answers.append((s, a.get_json(), named | {"7" + c[-1] for c in named}))
            else:
                assert snapshot(r, t) == before
                me = tables.client.get(
                    f"{t.url}/seats/{rnd.on_turn}", headers=bearer(t.seats[rnd.on_turn])
                ).get_json()
                moves: list[dict[str, Any]] = [{"play": c} for c in me["playable"]]
                if me["may_pass"]:
                    moves.append({"pass": True})
                move = rng.choice(moves)
                if "play" in move and me["must_announce"] and rng.random() < 0.5:
                    move["last_card"] = True
                a = turn(tables, t, round_no, rnd.turn, rnd.on_turn, **move)
                assert a.status_code == 200, (move, a.get_json())
                answers.append((rnd.on_turn, a.get_json(), set()))
            w.check(answers)
    return w.checks


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("sevens", 4, {}),
        ("sevens-voluntary", 3, {"last_card": True, "points": "winner-scores"}),
        ("sevens-corner", 5, {"points": "losers-score"}),
        ("sevens-any-seven", 8, {}),
        ("fan-tan-two-decks", 6, {"last_card": True, "voluntary_pass": True}),
    ],
)
def test_the_oracle_finds_no_hidden_card_in_any_answer(
    tables: TableClient,
    redis_client: redis.Redis,
    variant: str,
    players: int,
    options: dict[str, Any],
) -> None:
    checks = play_watched_match(
        tables, redis_client, variant, players, seed=players, match={"deals": 2}, **options
    )
    assert checks > 200


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"play": "7D", "pass": False}, "/pass"),
        ({"pass": False}, "/pass"),
        ({"pass": True, "play": "7D"}, ""),
        ({}, ""),
        ({"pass": True, "last_card": True}, "/last_card"),
    ],
)
def test_a_turn_is_exactly_one_play_or_one_pass(
    tables: TableClient, redis_client: redis.Redis, body: dict[str, Any], pointer: str
) -> None:
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    before = snapshot(redis_client, t)
    r = tables.client.put(f"{t.url}/rounds/1/turns/1", json=body, headers=bearer(t.seats[2]))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid-request"), r.get_json()
    assert [e["pointer"] for e in r.get_json()["errors"]] == [pointer]
    assert snapshot(redis_client, t) == before


def test_the_spec_says_a_turn_is_exactly_one_play_or_one_pass(client: Any) -> None:
    import jsonschema

    spec = client.get("/openapi.json").get_json()
    # The whole spec, so that the Turn's ``$ref``s to its members resolve.
    turn_schema = {**spec, "$ref": "#/components/schemas/Turn"}
    valid = [{"play": "7D"}, {"play": "7D", "last_card": True}, {"pass": True}]
    invalid = [{}, {"pass": False}, {"play": "7D", "pass": True}, {"play": "7D", "pass": False}]
    for body in valid:
        jsonschema.Draft7Validator(turn_schema).validate(body)
    for body in invalid:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft7Validator(turn_schema).validate(body)


def test_finishing_mid_round_returns_the_chips_paid_in_it(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    rng = random.Random(7)
    t = tables.create(4, "sevens", first_dealer=0, match={"open": True}, pass_chips=3)

    def play_until(stop: Any) -> None:
        while True:
            table = true_table(redis_client, t)
            rnd = table.round
            assert rnd is not None
            if rnd.on_turn is None or stop(rnd):
                return
            me = tables.client.get(
                f"{t.url}/seats/{rnd.on_turn}", headers=bearer(t.seats[rnd.on_turn])
            ).get_json()
            move = {"play": rng.choice(me["playable"])} if me["playable"] else {"pass": True}
            assert turn(tables, t, rnd.number, rnd.turn, rnd.on_turn, **move).status_code == 200

    assert tables.deal(t).status_code == 201
    play_until(lambda rnd: False)
    # Deals are random: a round may end before 6 chips are paid; then the
    # next one is played, until one is cut short with a pot of 6 or more.
    scored = 1
    while True:
        before = [s["chips"] for s in tables.public(t)["seats"]]
        assert tables.deal(t).status_code == 201
        play_until(lambda rnd: sum(rnd.paid) >= 6)
        if true_table(redis_client, t).round.on_turn is not None:  # type: ignore[union-attr]
            break
        scored += 1
    assert tables.public(t)["round"]["pot"] >= 6
    r = tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert r.status_code == 200
    view = r.get_json()
    # Chips only change hands: the scored rounds' sum is 0 (RULES.md 3.5).
    assert sum(before) == 0 and [s["chips"] for s in view["seats"]] == before
    assert view["round"]["pot"] == 0 and view["match"]["status"] == "finished"
    # The abandoned round is listed, not scored.
    listed = tables.client.get(f"{t.url}/rounds").get_json()["rounds"]
    assert [r["abandoned"] for r in listed] == [False] * scored + [True]
    assert view["rounds_played"] == scored + 1 and view["last_result"] == listed[-1]
    assert listed[-1]["chips"] == [0, 0, 0, 0] and listed[-1]["pot"] == 0
    again = tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert (again.status_code, again.get_json()["code"]) == (409, "match-over")


@pytest.mark.parametrize("suit", ["♦", "♦\ufe0f", "d", " D "])
def test_a_suit_is_read_as_in_a_card_code(tables: TableClient, client: Any, suit: str) -> None:
    # docs/rules/sevens.md: the referee accepts suit symbols and any case.
    r = client.post(
        "/v1/checks/sevens/play",
        json={
            "variant": "sevens",
            "hand": ["9♦"],
            "layout": [{"suit": suit, "low": "7♦", "high": "8♦"}],
            "card": "9d",
        },
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["playable"] is True
    t = tables.create(4, "sevens", first_dealer=0, opening="dealer-choice")
    dealt = tables.client.post(
        f"{t.url}/rounds", json={"hands": DEAL, "opening_suit": suit}, headers=bearer(t.host)
    )
    assert dealt.status_code == 201, dealt.get_json()
    assert dealt.get_json()["table"]["round"]["opening_suit"] == "D"


@pytest.mark.parametrize("suit", ["X", "DD", "♦♦", "Д"])
def test_a_layout_row_of_no_suit_says_what_a_suit_is(client: Any, suit: str) -> None:
    r = client.post(
        "/v1/checks/sevens/play",
        json={
            "variant": "sevens",
            "hand": ["9D"],
            "layout": [{"suit": suit, "low": "7D", "high": "8D"}],
            "card": "9D",
        },
    )
    assert (r.status_code, r.get_json()["code"]) == (422, "play-invalid")
    assert "S, H, D, C" in r.get_json()["errors"][0]["detail"]


def test_every_sevens_operation_refuses_every_wrong_token_and_changes_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "sevens", first_dealer=0)
    other = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    assert tables.deal(other, DEAL).status_code == 201
    before = snapshot(redis_client, t)
    operations: list[tuple[str, str, str, dict[str, Any]]] = [
        ("PUT", f"{t.url}/rounds/1/turns/1", "seat2", {"json": {"play": "7D"}}),
        ("GET", f"{t.url}/seats/2", "seat2", {}),
        ("POST", f"{t.url}/rounds", "host", {"json": {}}),
        ("POST", f"{t.url}/finish", "host", {}),
        ("DELETE", t.url, "host", {}),
    ]
    for method, url, who, kwargs in operations:
        attempts: list[tuple[dict[str, str], int, str]] = [
            ({}, 401, "token-missing"),
            ({"Authorization": "Basic " + t.host}, 401, "token-malformed"),
            ({"Authorization": "Bearer " + "a" * 300}, 401, "token-malformed"),
            (bearer(other.host), 401, "token-unknown"),
            (bearer(other.seats[2]), 401, "token-unknown"),
            (bearer("x" * 43), 401, "token-unknown"),
        ]
        if who == "host":
            attempts += [(bearer(s), 403, "host-only") for s in t.seats]
        else:
            attempts.append((bearer(t.host), 403, "seat-only"))
            if method == "GET":
                attempts += [(bearer(t.seats[s]), 403, "wrong-seat") for s in (0, 1, 3)]
        for headers, status, code in attempts:
            for key in (None, "attack-sevens-key-0001"):
                h = {**headers, **({"Idempotency-Key": key} if key and method != "GET" else {})}
                r = tables.client.open(url, method=method, headers=h, **kwargs)
                assert (r.status_code, r.get_json()["code"]) == (status, code), (url, headers)
                assert cards_in(r.get_json()) == set()
    # Another seat's turn with its own token: refused by the rules, no card shown.
    for s in (0, 1, 3):
        r = turn(tables, t, 1, 1, s, play=DEAL[s][0])
        assert (r.status_code, r.get_json()["code"]) == (409, "not-your-turn")
        assert cards_in(r.get_json()) == set()
    assert snapshot(redis_client, t) == before
    # The same Idempotency-Key sent by seat 2 then by seat 3 is two keys: seat 3
    # never gets seat 2's answer (its hand) replayed.
    key = {"Idempotency-Key": "attack-sevens-shared-key"}
    url = f"{t.url}/rounds/1/turns/1"
    mine = tables.client.put(url, json={"play": "7D"}, headers={**bearer(t.seats[2]), **key})
    assert mine.status_code == 200
    theirs = tables.client.put(url, json={"play": "7D"}, headers={**bearer(t.seats[3]), **key})
    assert theirs.status_code == 409 and "Idempotent-Replayed" not in theirs.headers
    assert not cards_in(theirs.get_json()) & set(DEAL[2])


RACERS = [
    (3, {"play": "6D"}),
    (3, {"pass": True}),  # voluntary: the same seat, another move
    (3, {"play": "6D"}),
    (0, {"pass": True}),
    (1, {"play": "7H"}),
]


def race_turn_two(served: Any, redis_client: redis.Redis) -> None:
    """Seat 3's turn 2, sent by RACERS at once; exactly one move is made."""
    import threading

    from ..test_gunicorn import send

    body = {"variant": "sevens-voluntary", "players": ["a", "b", "c", "d"], "first_dealer": 0}
    status, _, created = send(served, "POST", "/v1/tables", body)
    assert status == 201
    base = f"/v1/tables/{created['table_id']}"
    tokens = [s["token"] for s in created["seat_tokens"]]
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert send(served, "POST", f"{base}/rounds", {"hands": DEAL}, **host)[0] == 201
    first = send(
        served, "PUT", f"{base}/rounds/1/turns/1", {"play": "7D"},
        Authorization=f"Bearer {tokens[2]}",
    )  # fmt: skip
    assert first[0] == 200
    barrier = threading.Barrier(len(RACERS))
    answers: list[tuple[int, dict[str, Any], int, Any]] = []

    def race(seat: int, move: dict[str, Any]) -> None:
        barrier.wait()
        got = send(
            served, "PUT", f"{base}/rounds/1/turns/2", move,
            Authorization=f"Bearer {tokens[seat]}",
        )  # fmt: skip
        answers.append((seat, move, got[0], got[2]))

    threads = [threading.Thread(target=race, args=r) for r in RACERS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = [(s, m) for s, m, status, _ in answers if status == 200]
    assert won and {s for s, _ in won} == {3}, answers
    assert len({repr(m) for _, m in won}) == 1, answers  # one move, repeated at most
    for _, _, status, answer in answers:
        assert status in (200, 409), answer
    events = send(served, "GET", f"{base}/events")[2]["events"]
    assert [e["turn"] for e in events if e.get("turn") == 2] == [2], events
    table = decode(redis_client.hget(table_key(created["table_id"]), "s"))
    assert len(table.round.moves) == 2


def test_seats_racing_one_turn_on_two_workers_make_exactly_one_move(
    served: Any, redis_client: redis.Redis
) -> None:
    for _ in range(8):
        race_turn_two(served, redis_client)


def test_a_repeat_of_an_older_turn_answers_exactly_as_the_first_time(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    first = turn(tables, t, 1, 1, 2, play="7D")
    assert first.status_code == 200
    assert turn(tables, t, 1, 2, 3, play="6D").status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200
    assert turn(tables, t, 1, 4, 1, play="7S").status_code == 200
    assert turn(tables, t, 1, 5, 2, play="6S").status_code == 200  # seat 2's hand changes again
    before = snapshot(redis_client, t)
    again = turn(tables, t, 1, 1, 2, play="7D")
    assert again.status_code == 200
    assert again.get_json() == first.get_json()
    passed = turn(tables, t, 1, 3, 0, **{"pass": True})
    assert passed.get_json()["turn"] == 3 and passed.get_json()["pot"] == 1
    assert snapshot(redis_client, t) == before
    # After the host ends the match, a repeat still answers as it did then.
    assert tables.client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200
    late = turn(tables, t, 1, 1, 2, play="7D")
    assert late.status_code == 200 and late.get_json() == first.get_json()


def test_an_abandoned_round_shows_its_result(tables: TableClient) -> None:
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    assert turn(tables, t, 1, 1, 2, play="7D").status_code == 200
    assert turn(tables, t, 1, 2, 3, play="6D").status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200
    view = tables.client.post(f"{t.url}/finish", headers=bearer(t.host)).get_json()
    assert view["match"]["status"] == "abandoned"
    result = tables.client.get(f"{t.url}/rounds/1").get_json()["result"]
    assert result is not None, "the round the host abandoned has no result to show"
    assert result["abandoned"] is True and result["winner"] is None
    assert result["cards_left"] == [13, 13, 12, 12] and result["chips"] == [0, 0, 0, 0]
    assert view["last_result"] == result and view["rounds_played"] == 1
    assert tables.client.get(f"{t.url}/rounds").get_json()["rounds"] == [result]
    assert [s["chips"] for s in view["seats"]] == [0, 0, 0, 0]


def play_round_out(tables: TableClient, r: redis.Redis, t: Table, rng: random.Random) -> Any:
    """Deal and play a round to its end with random legal moves; its last answer."""
    assert tables.deal(t).status_code == 201
    while True:
        rnd = true_table(r, t).round
        assert rnd is not None and rnd.on_turn is not None
        me = tables.client.get(
            f"{t.url}/seats/{rnd.on_turn}", headers=bearer(t.seats[rnd.on_turn])
        ).get_json()
        move = {"play": rng.choice(me["playable"])} if me["playable"] else {"pass": True}
        answer = turn(tables, t, rnd.number, rnd.turn, rnd.on_turn, **move)
        assert answer.status_code == 200
        if answer.get_json()["round_status"] == "over":
            return answer.get_json()


@pytest.mark.parametrize("points", ["none", "winner-scores"])
def test_the_hands_left_at_the_end_of_a_round_stay_hidden(
    tables: TableClient, redis_client: redis.Redis, points: str
) -> None:
    # Per-seat penalty values with the counts and the layout name the cards
    # left in about one losing hand in five (a seat left with one card worth
    # 4 when 4C is the only 4 not on the table). A table that does not score
    # them per seat shows none; winner-scores shows only their sum, the
    # winner's points.
    t = tables.create(4, "sevens", first_dealer=0, points=points, match={"open": True})
    answer = play_round_out(tables, redis_client, t, random.Random(3))
    result = answer["result"]
    assert result["penalties"] is None
    last = tables.public(t)["last_event"]
    won = next(e for e in tables.events(t, last - 3) if e["type"] == "round-won")
    assert won["penalties"] is None
    view = tables.public(t)
    assert view["last_result"]["penalties"] is None
    table = true_table(redis_client, t)
    left = sum(penalty(h) for h in table.round.hands)
    expected = [left if s == result["winner"] else 0 for s in range(4)]
    assert result["points"] == (expected if points == "winner-scores" else [0, 0, 0, 0])


def test_losers_score_shows_each_seats_penalty_as_its_points(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "sevens-penalty", first_dealer=0, match={"open": True})
    result = play_round_out(tables, redis_client, t, random.Random(4))["result"]
    table = true_table(redis_client, t)
    assert result["penalties"] == [penalty(h) for h in table.round.hands] == result["points"]


def test_a_turn_of_a_round_not_dealt_yet_says_so(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "sevens", first_dealer=0, match={"open": True})
    r = turn(tables, t, 1, 1, 2, play="7D")
    assert (r.status_code, r.get_json()["code"]) == (409, "no-round-in-play")
    play_round_out(tables, redis_client, t, random.Random(5))
    before = snapshot(redis_client, t)
    r = turn(tables, t, 2, 1, 2, play="7D")
    assert (r.status_code, r.get_json()["code"]) == (409, "stale-round")
    assert "not been dealt" in r.get_json()["detail"], r.get_json()
    assert r.get_json()["current_round"] == 1 and r.get_json()["round_status"] == "over"
    assert snapshot(redis_client, t) == before
    assert tables.deal(t).status_code == 201
    before = snapshot(redis_client, t)
    r = turn(tables, t, 1, 99, 2, play="7D")
    assert "round 1 is over" in r.get_json()["detail"].lower(), r.get_json()
    r = turn(tables, t, 3, 1, 2, play="7D")
    assert "round 2 is being played" in r.get_json()["detail"], r.get_json()
    assert snapshot(redis_client, t) == before
