"""Sevens over HTTP (RULES.md 3): numbered turns, refusals that change
nothing, what each caller may see, events, checks, idempotency, and whole
matches of every preset played with random legal moves."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.cards import STANDARD_DECK
from service.games.sevens.options import PRESETS

from ..helpers import Table, TableClient, bearer, cards_in, snapshot

# Dealer 0, four seats, 13 cards each. Seat 2 holds 7D and opens; seat 3 then
# holds 6D only; seat 0 holds no seven and nothing next to one; seat 1 holds 7S 7H 7C.
DEAL = [
    ["8S", "9S", "TS", "JS", "QS", "KS", "AS", "8C", "9C", "TC", "JC", "QC", "KC"],
    ["7S", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "5C", "6C", "7C", "AC"],
    ["7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2S", "3S", "4S", "5S", "6S"],
    ["2D", "3D", "4D", "5D", "6D", "2H", "3H", "4H", "5H", "6H", "2C", "3C", "4C"],
]


def turn(tables: TableClient, t: Table, round_no: int, turn_no: int, seat: int, **body: Any) -> Any:
    return tables.client.put(
        f"{t.url}/rounds/{round_no}/turns/{turn_no}", json=body, headers=bearer(t.seats[seat])
    )


def seat(tables: TableClient, t: Table, s: int) -> dict[str, Any]:
    r = tables.client.get(f"{t.url}/seats/{s}", headers=bearer(t.seats[s]))
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


@pytest.fixture()
def dealt(tables: TableClient) -> Table:
    t = tables.create(4, "sevens", first_dealer=0)
    r = tables.deal(t, DEAL)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["round"] == 1
    return t


def test_a_round_opens_with_7d_and_turns_go_left(tables: TableClient, dealt: Table) -> None:
    t = dealt
    view = tables.public(t)
    assert view["game"] == "sevens" and view["variant"] == "sevens"
    assert view["round"]["opener"] == 2 and view["round"]["on_turn"] == 2
    assert view["round"]["turn"] == 1 and view["round"]["layout"] == []
    assert view["awaiting"] == {"action": "play", "seats": [2], "until_ms": None}
    assert [s["cards"] for s in view["seats"]] == [13, 13, 13, 13]
    assert seat(tables, t, 2)["playable"] == ["7D"]
    assert seat(tables, t, 3)["playable"] == [] and seat(tables, t, 3)["on_turn"] is False

    r = turn(tables, t, 1, 1, 2, play="7D")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["card"], body["next_seat"], body["next_turn"], body["pot"]) == ("7D", 3, 2, 0)
    assert "7D" not in body["hand"] and len(body["hand"]) == 12
    assert seat(tables, t, 3)["playable"] == ["6D"]

    r = turn(tables, t, 1, 2, 3, **{"pass": True})
    assert r.status_code == 422
    problem = r.get_json()
    assert problem["code"] == "must-play" and problem["playable_count"] == 1
    assert "6D" not in cards_in(problem)  # how many, never which

    assert turn(tables, t, 1, 2, 3, play="6D").status_code == 200
    assert seat(tables, t, 0)["playable"] == [] and seat(tables, t, 0)["may_pass"] is True
    r = turn(tables, t, 1, 3, 0, **{"pass": True})
    assert r.status_code == 200
    assert (r.get_json()["chips_paid"], r.get_json()["pot"]) == (1, 1)
    assert seat(tables, t, 1)["playable"] == ["7S", "7H", "7C"]
    assert turn(tables, t, 1, 4, 1, play="7H").status_code == 200
    view = tables.public(t)
    assert view["round"]["layout"] == [
        {"suit": "H", "low": "7H", "high": "7H"},
        {"suit": "D", "low": "6D", "high": "7D"},
    ]
    assert view["round"]["pot"] == 1 and view["round"]["on_turn"] == 2
    # Seat 0 paid a chip into the pot: its tally counts it once the round is
    # scored; meanwhile the view says what it paid (a page shows 0 - 1 chips).
    assert [(s["chips"], s["paid"]) for s in view["seats"]] == [(0, 1), (0, 0), (0, 0), (0, 0)]
    types = [e["type"] for e in tables.events(t)]
    assert types == [
        "table-created",
        "round-dealt",
        "card-played",
        "card-played",
        "passed",
        "card-played",
    ]


def test_refused_turns_name_the_reason_and_leave_redis_as_it_was(
    tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    t = dealt
    before = snapshot(redis_client, t)
    r = turn(tables, t, 1, 1, 2, play="8D")
    assert (r.status_code, r.get_json()["code"]) == (422, "must-open")
    assert turn(tables, t, 1, 1, 2, play="7D").status_code == 200
    assert turn(tables, t, 1, 2, 3, play="6D").status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200
    before = snapshot(redis_client, t)
    refused = [
        (turn(tables, t, 1, 4, 1, play="KH"), 422, "not-playable"),
        (turn(tables, t, 1, 4, 1, play="2D"), 422, "play-invalid"),  # not in this hand
        (turn(tables, t, 1, 4, 1, play="7H", last_card=True), 422, "last-card-invalid"),
        (turn(tables, t, 1, 4, 2, play="8D"), 409, "not-your-turn"),
        (turn(tables, t, 1, 5, 1, play="7H"), 409, "stale-turn"),
        (turn(tables, t, 2, 4, 1, play="7H"), 409, "stale-round"),
        (turn(tables, t, 1, 4, 1), 422, "invalid-request"),
    ]
    for answer, status, code in refused:
        assert (answer.status_code, answer.get_json()["code"]) == (status, code), answer.get_json()
    assert "hearts" in refused[0][0].get_json()["detail"] or refused[0][0].get_json()["rows"] == []
    assert refused[3][0].get_json()["waiting_for"] == [1]
    assert snapshot(redis_client, t) == before


def test_a_repeated_turn_answers_alike_and_changes_nothing(
    tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    t = dealt
    first = turn(tables, t, 1, 1, 2, play="7D")
    before = snapshot(redis_client, t)
    again = turn(tables, t, 1, 1, 2, play="7D")
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert snapshot(redis_client, t) == before
    other = turn(tables, t, 1, 1, 2, play="8D")  # turn 1 was 7D: not a repeat
    assert other.status_code == 409 and other.get_json()["code"] == "stale-turn"


def test_an_idempotency_key_replays_the_turn(tables: TableClient, dealt: Table) -> None:
    t = dealt
    headers = {**bearer(t.seats[2]), "Idempotency-Key": "sevens-turn-one-0001"}
    first = tables.client.put(f"{t.url}/rounds/1/turns/1", json={"play": "7D"}, headers=headers)
    again = tables.client.put(f"{t.url}/rounds/1/turns/1", json={"play": "7D"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    changed = tables.client.put(f"{t.url}/rounds/1/turns/1", json={"play": "8D"}, headers=headers)
    assert changed.status_code == 422 and changed.get_json()["code"] == "idempotency-key-reused"


def test_who_may_make_a_turn(tables: TableClient, dealt: Table) -> None:
    t = dealt
    url = f"{t.url}/rounds/1/turns/1"
    assert tables.client.put(url, json={"play": "7D"}).status_code == 401
    assert tables.client.put(url, json={"play": "7D"}, headers=bearer(t.host)).status_code == 403
    assert tables.client.put(url, json={"play": "7D"}, headers=bearer("x" * 43)).status_code == 401
    r = tables.client.get(f"{t.url}/seats/2", headers=bearer(t.seats[3]))
    assert r.status_code == 403


def test_each_game_refuses_the_others_moves(tables: TableClient, dealt: Table) -> None:
    r = tables.pass_(dealt, 1, 1, 2, ["7D"])
    assert (r.status_code, r.get_json()["code"]) == (404, "move-not-in-game")
    assert "Sevens" in r.get_json()["detail"]
    ship = tables.create(4, "classic")
    assert tables.deal(ship).status_code == 201
    r = turn(tables, ship, 1, 1, 0, play="7D")
    assert (r.status_code, r.get_json()["code"]) == (404, "move-not-in-game")
    r = tables.client.post(
        "/v1/checks/claim", json={"variant": "sevens", "players": 4, "hand": ["7D"]}
    )
    assert (r.status_code, r.get_json()["code"]) == (422, "wrong-game")


def test_no_hidden_card_in_any_public_answer_or_event(tables: TableClient, dealt: Table) -> None:
    t = dealt
    for turn_no, (s, card) in enumerate([(2, "7D"), (3, "6D")], start=1):
        assert turn(tables, t, 1, turn_no, s, play=card).status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200
    public = (
        tables.client.get(t.url).get_data(as_text=True)
        + tables.client.get(f"{t.url}/events").get_data(as_text=True)
        + tables.client.get(f"{t.url}/rounds/1").get_data(as_text=True)
    )
    on_table = {"7D", "6D"}
    for card in STANDARD_DECK:
        assert (f'"{card}"' in public) == (card in on_table), card


def test_the_view_carries_an_etag(tables: TableClient, dealt: Table) -> None:
    r = tables.client.get(dealt.url)
    etag = r.headers["ETag"]
    assert tables.client.get(dealt.url, headers={"If-None-Match": etag}).status_code == 304
    assert turn(tables, dealt, 1, 1, 2, play="7D").status_code == 200
    assert tables.client.get(dealt.url, headers={"If-None-Match": etag}).status_code == 200


def test_stateless_checks(client: Any) -> None:
    r = client.post(
        "/v1/checks/sevens/play",
        json={
            "variant": "sevens-corner",
            "hand": ["6D", "2D", "9S"],
            "layout": [{"suit": "D", "low": "7D", "high": "AD"}],
            "card": "2D",
        },
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["playable"] is True
    assert r.get_json()["playable_cards"] == ["6D", "2D"]
    r = client.post(
        "/v1/checks/sevens/play",
        json={
            "variant": "sevens",
            "hand": ["6D", "2D"],
            "layout": [{"suit": "D", "low": "7D", "high": "AD"}],
            "card": "2D",
        },
    )
    assert r.get_json()["playable"] is False and r.get_json()["playable_cards"] == ["6D"]
    r = client.post("/v1/checks/deal", json={"variant": "sevens", "players": 4, "hands": DEAL})
    assert r.status_code == 200 and r.get_json()["valid"] is True
    short = [h[:-1] for h in DEAL]
    r = client.post("/v1/checks/deal", json={"variant": "sevens", "players": 4, "hands": short})
    assert r.get_json()["valid"] is False and len(r.get_json()["problems"]) >= 4


def test_options_are_refused_with_every_reason(client: Any) -> None:
    r = client.post(
        "/v1/tables",
        json={
            "variant": "fan-tan-two-decks",
            "players": ["A", "B", "C"],
            "options": {"turn_the_corner": True, "hand_size": 5},
        },
    )
    assert r.status_code == 422 and r.get_json()["code"] == "options-invalid"
    pointers = {e["pointer"] for e in r.get_json()["errors"]}
    assert {"/players", "/options/turn_the_corner", "/options/hand_size"} <= pointers


def test_variants_and_games_name_their_game(client: Any) -> None:
    variants = {v["name"]: v["game"] for v in client.get("/v1/variants").get_json()["variants"]}
    assert variants["classic"] == "my-ship-sails" and variants["fan-tan-two-decks"] == "sevens"
    assert {n for n, g in variants.items() if g == "sevens"} == set(PRESETS)
    games = client.get("/v1/games").get_json()["games"]
    assert [g["name"] for g in games] == ["my-ship-sails", "sevens", "may-i"]
    assert games[1]["rules"] == "/docs/rules/sevens"


# --- whole matches of every preset, random legal moves --------------------------------


def check_cards_conserved(tables: TableClient, t: Table, players: int, deck: Counter[str]) -> None:
    """Hands (as each seat sees its own) and the layout hold the deck(s) exactly."""
    view = tables.public(t)
    hands = {s: seat(tables, t, s)["hand"] for s in range(players)}
    on_table: Counter[str] = Counter()
    ranks = "23456789TJQKA"
    for row in view["round"]["layout"]:
        lo, hi = ranks.index(row["low"][0]), ranks.index(row["high"][0])
        size = (hi - lo) % 13 + 1  # a row that turned the corner has its top below its bottom
        on_table.update(ranks[(lo + i) % 13] + row["suit"] for i in range(size))
    assert sum((Counter(h) for h in hands.values()), Counter()) + on_table == deck
    assert [s["cards"] for s in view["seats"]] == [len(hands[s]) for s in range(players)]


def play_match(tables: TableClient, variant: str, players: int, rng: random.Random) -> None:
    """Play a whole match through HTTP and check RULES.md 3's invariants at every turn."""
    t = tables.create(players, variant, first_dealer=rng.randrange(players))
    decks = PRESETS[variant].options.decks
    deck = Counter(STANDARD_DECK * decks)
    while tables.public(t)["match"]["status"] == "in-progress":
        r = tables.deal(t)
        assert r.status_code == 201, r.get_json()
        round_no = r.get_json()["round"]
        pot = 0
        rnd = tables.public(t)["round"]
        on_turn, turn_no = rnd["on_turn"], rnd["turn"]
        while True:
            if turn_no % 16 == 1:  # every few turns: every card is in one place
                check_cards_conserved(tables, t, players, deck)
            me = seat(tables, t, on_turn)
            moves: list[dict[str, Any]] = [{"play": c} for c in me["playable"]]
            if me["may_pass"]:
                moves.append({"pass": True})
            move = rng.choice(moves)
            if "play" in move and me["must_announce"] and rng.random() < 0.8:
                move["last_card"] = True
            answer = turn(tables, t, round_no, turn_no, on_turn, **move)
            assert answer.status_code == 200, (move, answer.get_json())
            body = answer.get_json()
            pot += body["chips_paid"]
            assert body["pot"] == pot
            if body["round_status"] == "over":
                result = body["result"]
                assert result["winner"] == on_turn and result["pot"] == pot
                assert result["cards_left"][on_turn] == 0
                check_cards_conserved(tables, t, players, deck)
                break
            assert body["next_seat"] == (on_turn + 1) % players  # always to the left
            assert body["next_turn"] == turn_no + 1
            on_turn, turn_no = body["next_seat"], body["next_turn"]
    view = tables.public(t)
    listed = tables.client.get(f"{t.url}/rounds").get_json()["rounds"]
    assert view["rounds_played"] == len(listed) and view["last_result"] == listed[-1]
    chips = [s["chips"] for s in view["seats"]]
    if chips[0] is not None:
        assert sum(chips) == 0  # chips paid = chips won
        assert chips == [sum(r["chips"][s] for r in listed) for s in range(players)]
    results = listed
    assert len(results) == players  # one deal per player
    points = [sum(r["points"][s] for r in results) for s in range(players)]
    assert [s["points"] for s in view["seats"]] == points
    measure = "chips" if chips[0] is not None and PRESETS[variant].options.points == "none" else ""
    ranked = [s["seat"] for s in view["standings"]]
    if measure == "chips":
        keys = [(-chips[s], -view["seats"][s]["wins"]) for s in ranked]
    elif PRESETS[variant].options.points == "losers-score":
        keys = [(points[s], -view["seats"][s]["wins"]) for s in ranked]
    else:
        keys = [(-points[s], -view["seats"][s]["wins"]) for s in ranked]
    assert keys == sorted(keys)
    best = keys[0]
    assert view["match"]["status"] == "won"
    assert view["match"]["winners"] == sorted(
        s for s, k in zip(ranked, keys, strict=True) if k == best
    )
    last = tables.client.get(f"{t.url}/events?after={view['last_event'] - 1}").get_json()
    assert [e["type"] for e in last["events"]] == ["match-won"]


@pytest.mark.parametrize("variant", list(PRESETS))
@settings(
    max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 1))
def test_a_whole_match_of_every_preset(
    tables: TableClient, variant: str, seed: int, extra: int
) -> None:
    preset = PRESETS[variant]
    players = min(preset.min_seats + extra, preset.max_seats)
    play_match(tables, variant, players, random.Random(seed))


def test_refusals_link_the_rules_page_that_explains_them(tables: TableClient, dealt: Table) -> None:
    r = turn(tables, dealt, 1, 1, 2, play="8D")
    assert r.get_json()["rules"] == "/docs/rules/sevens#opening-and-turns"
    page = tables.client.get(r.get_json()["rules"].partition("#")[0])
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert '<h2 id="opening-and-turns">Opening and turns' in page.get_data(as_text=True)
    source = tables.client.get("/docs/rules/sevens.md")
    assert source.status_code == 200 and source.mimetype == "text/markdown"
    assert "## Opening and turns" in source.get_data(as_text=True)
    r = tables.pass_(dealt, 1, 1, 2, ["7D"])
    assert r.get_json()["rules"] == "/docs/rules/"  # not one game's refusal
    index = tables.client.get("/docs/rules/")
    assert index.status_code == 200 and 'href="/docs/rules/sevens"' in index.get_data(as_text=True)
    assert tables.client.get("/docs/rules/../README.md").status_code == 404
    assert tables.client.get("/docs/rules/chess.md").status_code == 404


def test_the_spec_links_the_rules_pages_not_the_rule_book(client: Any) -> None:
    spec = client.get("/openapi.json").get_data(as_text=True)
    assert "RULES.md" not in spec
    assert "(/docs/rules/sevens#the-layout)" in spec
    assert "(/docs/rules/my-ship-sails#the-deal)" in spec


def test_a_sevens_log_older_than_what_is_kept_is_410(redis_server: Any) -> None:
    from service import create_app

    from ..conftest import settings_for

    tables = TableClient(create_app(settings_for(redis_server.url, events_kept=3)).test_client())
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    for turn_no, (s, card) in enumerate([(2, "7D"), (3, "6D")], start=1):
        assert turn(tables, t, 1, turn_no, s, play=card).status_code == 200
    gone = tables.client.get(f"{t.url}/events?after=0")
    assert gone.status_code == 410 and gone.get_json()["code"] == "events-gone"
    assert (gone.get_json()["oldest_seq"], gone.get_json()["last_event"]) == (2, 4)
    page = tables.client.get(f"{t.url}/events?after=1").get_json()
    assert [e["type"] for e in page["events"]] == ["round-dealt", "card-played", "card-played"]
