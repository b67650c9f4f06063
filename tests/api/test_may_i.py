"""May I? over HTTP (RULES.md 4): numbered moves, refusals that change
nothing, May I? requests and answers (with a real window and a race between
two processes), what each caller may see, the checks, and a whole match."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from service import create_app
from service.edge.common import referee
from service.games.may_i import engine
from service.games.may_i.options import deck_for
from service.games.may_i.players import bot
from service.games.may_i.state import Table as MayITable

from ..conftest import RedisProcess, settings_for
from ..helpers import Table, TableClient, bearer
from ..may_i.common import full_deal
from ..may_i.test_properties import card_strings

HAND1 = ["5H", "5S", "5C", "9D", "TD", "JD", "QD", "KD", "3C", "8H"]


def new(tables: TableClient, **options: Any) -> Table:
    t = tables.create(4, "may-i", first_dealer=0, **options)
    deal = full_deal("may-i", 4, {1: HAND1, 0: ["KH", "KC", "5D"]}, discard="2C")
    r = tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
    assert r.status_code == 201, r.get_json()
    return t


def move(tables: TableClient, t: Table, seat: int, number: int, **body: Any) -> Any:
    return tables.client.put(
        f"{t.url}/rounds/1/moves/{number}", json=body, headers=bearer(t.seats[seat])
    )


def ask(client: Any, t: Table, seat: int, offer: int) -> Any:
    return client.post(
        f"{t.url}/rounds/1/may-i", json={"offer": offer}, headers=bearer(t.seats[seat])
    )


def answer(client: Any, t: Table, seat: int, offer: int, allow: bool) -> Any:
    return client.put(
        f"{t.url}/rounds/1/may-i/{offer}/answers/{seat}",
        json={"allow": allow},
        headers=bearer(t.seats[seat]),
    )


def seat_view(tables: TableClient, t: Table, s: int) -> dict[str, Any]:
    r = tables.client.get(f"{t.url}/seats/{s}", headers=bearer(t.seats[s]))
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_a_turn_over_http(tables: TableClient) -> None:
    t = new(tables)
    view = tables.public(t)
    assert view["game"] == "may-i"
    rnd = view["round"]
    assert (rnd["step"], rnd["on_turn"], rnd["move"], rnd["discard_top"]) == ("draw", 1, 1, "2C")
    assert rnd["stock_size"] == 63 and rnd["contract"] == "2 sets"
    assert [s["cards"] for s in view["seats"]] == [10, 10, 10, 10]
    assert "hand" not in str(view)
    assert seat_view(tables, t, 1)["may"] == ["take_discard", "decline"]

    r = move(tables, t, 1, 1, discard="3C")
    assert r.status_code == 409 and r.get_json()["code"] == "must-draw-first"
    r = move(tables, t, 1, 1, take_discard=True, draw=True)
    assert r.status_code == 422
    r = move(tables, t, 2, 1, take_discard=True)
    assert r.status_code == 409 and r.get_json()["code"] == "not-your-turn"
    r = move(tables, t, 1, 1, take_discard=True)
    assert r.status_code == 200, r.get_json()
    assert "2C" in r.get_json()["hand"] and r.get_json()["step"] == "play"
    assert move(tables, t, 1, 1, take_discard=True).get_json() == r.get_json()  # a repeat
    r = move(tables, t, 1, 2, draw=True)
    assert r.status_code == 409 and r.get_json()["code"] == "already-drawn"
    r = move(tables, t, 1, 2, lay_off={"card": "5H", "meld": 1})
    assert r.status_code == 422 and r.get_json()["code"] == "not-laid-down"
    r = move(tables, t, 1, 2, lay_down=[["5H", "5S"], ["9D", "TD", "JD", "QD"]])
    assert r.status_code == 422 and r.get_json()["code"] == "contract-invalid"
    assert "meld 1" in r.get_json()["detail"]
    # Round 2's contract is not round 1's.
    r = move(tables, t, 1, 2, lay_down=[["5H", "5S", "5C"], ["QD", "JD", "TD", "9D"]])
    assert r.status_code == 422 and "2 sets" in r.get_json()["detail"]
    before = tables.public(t)
    r = move(tables, t, 1, 2, discard="AS")
    assert r.status_code == 422 and r.get_json()["code"] == "move-invalid"
    after = tables.public(t)
    assert before["round"] == after["round"]


def test_a_discard_that_fits_is_422_over_http(tables: TableClient) -> None:
    t = tables.create(3, "may-i", first_dealer=0)
    hand = ["5H", "5S", "5C", "KD", "KS", "KC", "5D", "2S", "3S", "8H"]
    deal = full_deal("may-i", 3, {1: hand}, discard="2C")
    assert tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host)).status_code
    assert move(tables, t, 1, 1, take_discard=True).status_code == 200
    r = move(tables, t, 1, 2, lay_down=[["5H", "5S", "5C"], ["KD", "KS", "KC"]])
    assert r.status_code == 200, r.get_json()
    melds = tables.public(t)["round"]["melds"]
    assert [m["id"] for m in melds] == [1, 2] and melds[0]["cards"] == ["5H", "5S", "5C"]
    view = seat_view(tables, t, 1)
    assert view["lay_offs"] == {"5D": [1]} and "5D" not in view["discardable"]
    r = move(tables, t, 1, 3, discard="5D")
    assert r.status_code == 422 and r.get_json()["code"] == "discard-fits"
    assert "meld 1" in r.get_json()["detail"]
    r = move(tables, t, 1, 3, lay_off={"card": "5D", "meld": 1})
    assert r.status_code == 200 and r.get_json()["argument"]["card"] == "5D"
    assert move(tables, t, 1, 4, discard="8H").status_code == 200


def test_may_i_over_http(tables: TableClient) -> None:
    t = new(tables)
    r = ask(tables.client, t, 3, 1)
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-not-open"
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    offer = tables.public(t)["round"]["may_i"]
    assert offer["card"] == "2C" and offer["asker"] is None
    assert seat_view(tables, t, 3)["may"] == ["ask"]
    r = move(tables, t, 1, 2, draw=True)
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-open"
    assert ask(tables.client, t, 1, 1).status_code == 422  # the seat on turn
    r = ask(tables.client, t, 3, 1)
    assert r.status_code == 200 and r.get_json()["current_offer"]["asker"] == 3
    r = ask(tables.client, t, 0, 1)
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-taken"
    r = tables.client.put(
        f"{t.url}/rounds/1/may-i/1/answers/2", json={"allow": False}, headers=bearer(t.seats[0])
    )
    assert r.status_code == 403
    assert answer(tables.client, t, 2, 1, False).status_code == 200
    r = answer(tables.client, t, 0, 1, True)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["open"] is False
    # Seat 2 denied first in order from seat 1: it takes 2C and one stock card.
    view = tables.public(t)
    assert [s["cards"] for s in view["seats"]] == [10, 10, 12, 10]
    assert "2C" in seat_view(tables, t, 2)["hand"]
    rnd = view["round"]
    assert rnd["on_turn"] == 1 and rnd["step"] == "stock" and rnd["may_i"] is None
    r = move(tables, t, 1, 2, draw=True)
    assert r.status_code == 200 and len(r.get_json()["hand"]) == 11
    events = tables.events(t)
    kinds = [e["type"] for e in events]
    assert "may-i-given" in kinds and "stock-drawn" in kinds
    given = next(e for e in events if e["type"] == "may-i-given")
    assert (given["seat"], given["card"], given["stock_cards"], given["asker"]) == (2, "2C", 1, 3)
    public = {"2C"}
    for e in events:
        assert set(card_strings(e)) <= public | {"JK"}, e


def test_the_window_closes_on_time(tables: TableClient) -> None:
    t = new(tables, may_i_window_ms=1_000)
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    until = tables.public(t)["round"]["may_i"]["until_ms"]
    assert ask(tables.client, t, 3, 1).status_code == 200
    time.sleep(1.2)
    # Nobody answered: the view shows the card given, as all allowed.
    view = tables.public(t)
    assert [s["cards"] for s in view["seats"]] == [10, 10, 10, 12]
    assert view["round"]["step"] == "stock"
    r = answer(tables.client, t, 0, 1, False)
    assert r.status_code == 409 and r.get_json()["code"] == "may-i-closed"
    assert [s["cards"] for s in tables.public(t)["seats"]] == [10, 10, 10, 12]
    assert r.get_json()["current_round"] == 1
    assert until > 0


def test_two_seats_asking_at_once_only_the_first_counts(
    tables: TableClient, redis_server: RedisProcess
) -> None:
    apps = [create_app(settings_for(redis_server.url)) for _ in range(2)]
    t = new(TableClient(apps[0].test_client()), may_i_window_ms=30_000)
    client0 = apps[0].test_client()
    assert move(TableClient(client0), t, 1, 1, decline=True).status_code == 200
    barrier = threading.Barrier(2)
    answers: dict[int, Any] = {}

    def asker(seat: int, app: Any) -> None:
        client = app.test_client()
        barrier.wait()
        answers[seat] = ask(client, t, seat, 1)

    threads = [threading.Thread(target=asker, args=(s, a)) for s, a in ((2, apps[0]), (3, apps[1]))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    codes = sorted(r.status_code for r in answers.values())
    assert codes == [200, 409]
    winner = next(s for s, r in answers.items() if r.status_code == 200)
    loser = next(s for s, r in answers.items() if r.status_code == 409)
    assert answers[loser].get_json()["code"] == "may-i-taken"
    assert TableClient(client0).public(t)["round"]["may_i"]["asker"] == winner


def test_the_checks(client: Any) -> None:
    r = client.post(
        "/v1/checks/may-i/lay-down",
        json={"round": 2, "melds": [["5H", "5S", "5C"], ["QD", "JD", "TD", "9D"]]},
    )
    assert r.status_code == 200 and r.get_json()["valid"] is True
    assert r.get_json()["melds"][1]["cards"] == ["9D", "TD", "JD", "QD"]
    r = client.post(
        "/v1/checks/may-i/lay-down",
        json={"round": 2, "melds": [["5H", "5S"], ["9D", "TD", "JD", "QD"]]},
    )
    assert r.get_json()["valid"] is False and "set of 2" in r.get_json()["reason"]
    r = client.post(
        "/v1/checks/may-i/lay-off", json={"meld": ["9D", "JK", "JD", "QD"], "card": "KD"}
    )
    assert r.get_json() == {"fits": True, "reason": "KD fits.", "end": "high"}
    r = client.post(
        "/v1/checks/may-i/discard",
        json={"hand": ["5D", "KC"], "melds": [["5H", "5S", "5C"]], "card": "5D"},
    )
    assert r.get_json()["allowed"] is False and r.get_json()["fits"] == [1]
    r = client.post(
        "/v1/checks/deal",
        json={
            "variant": "may-i",
            "players": 3,
            "hands": [["2S"] * 10] * 3,
            "stock": ["3S"],
            "discard": "4S",
        },
    )
    assert r.status_code == 200 and r.get_json()["valid"] is False


def test_a_move_of_another_game_is_404(tables: TableClient) -> None:
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t).status_code == 201
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"draw": True}, headers=bearer(t.seats[1])
    )
    assert r.status_code == 404 and r.get_json()["code"] == "move-not-in-game"


def _state(app: Any, t: Table) -> MayITable:
    with app.app_context():
        table = referee().store.load(t.table_id).table
    assert isinstance(table, MayITable)
    return table


def test_a_whole_match_over_http(app: Any, tables: TableClient) -> None:
    t = tables.create(3, "may-i-jokers", first_dealer=0, may_i_window_ms=0)
    # Seeded deals (submitted), so that the bots' match is the same every run.
    rng = random.Random(21)
    for number in range(1, 6):
        table = _state(app, t)
        hands, stock, discard = engine.shuffle_and_deal(
            3, table.next_dealer, deck_for(table.options), rng
        )
        deal = {"hands": [list(h) for h in hands], "stock": stock[::-1], "discard": discard}
        r = tables.client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
        assert r.status_code == 201, r.get_json()
        for _ in range(1000):
            table = _state(app, t)
            rnd = table.round
            assert rnd is not None
            if not rnd.playing:
                break
            choice = bot(table, rnd.on_turn, rng)
            argument = True if choice["argument"] is None else choice["argument"]
            r = tables.client.put(
                f"{t.url}/rounds/{number}/moves/{rnd.move}",
                json={choice["action"]: argument},
                headers=bearer(t.seats[rnd.on_turn]),
            )
            assert r.status_code == 200, r.get_json()
        else:
            pytest.fail(f"round {number} did not end")
        view = tables.public(t)
        for card in card_strings(view):
            assert card in {c for m in view["round"]["melds"] for c in m["cards"]} | {
                view["round"]["discard_top"]
            }
    view = tables.public(t)
    assert view["match"]["status"] == "won" and view["rounds_played"] == 5
    listed = tables.client.get(f"{t.url}/rounds").get_json()["rounds"]
    assert [r["round"] for r in listed] == [1, 2, 3, 4, 5] and listed[-1] == view["last_result"]
    totals = [sum(r["points"][s] for r in listed) for s in range(3)]
    assert [s["points"] for s in view["seats"]] == totals
    best = max(totals)
    assert view["match"]["winners"] == [s for s in range(3) if totals[s] == best]


def test_a_seat_sees_only_its_own_hand(tables: TableClient) -> None:
    t = new(tables)
    own = seat_view(tables, t, 1)
    assert sorted(own["hand"]) == sorted(HAND1)
    r = tables.client.get(f"{t.url}/seats/1", headers=bearer(t.seats[2]))
    assert r.status_code == 403
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    assert ask(tables.client, t, 3, 1).status_code == 200
    assert answer(tables.client, t, 0, 1, True).status_code == 200
    assert answer(tables.client, t, 2, 1, True).status_code == 200
    # Seat 3 got 2C and a stock card: only its own view shows the stock card.
    assert len(seat_view(tables, t, 3)["hand"]) == 12
    seen = card_strings(tables.public(t)) + card_strings(tables.events(t))
    assert set(seen) == {"2C"}


def test_an_ask_with_an_idempotency_key_is_answered_once(tables: TableClient) -> None:
    t = new(tables)
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    headers = {**bearer(t.seats[3]), "Idempotency-Key": "ask-3-offer-1-abcdef"}
    first = tables.client.post(f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=headers)
    again = tables.client.post(f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    asked = [e for e in tables.events(t) if e["type"] == "may-i-asked"]
    assert len(asked) == 1
