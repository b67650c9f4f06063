"""The bot, the default move, the round record, the views, check_deal and
the simulation."""

from __future__ import annotations

import random
from typing import Any

from service.games.cards import sort_cards
from service.games.sevens import GAME, check_deal, engine
from service.games.sevens.players import bot, default_move, round_record
from service.games.sevens.simulate import markdown
from service.games.sevens.state import RoundStatus, Row
from service.games.sevens.views import playable_now, public_view, seat_view

from .common import T0, full_deal, new_table, pass_, play, position


def test_bot_plays_aces_and_twos_first() -> None:
    table = position(
        [["AS", "9H", "8H", "KC"], ["2C"], ["3C"]], [Row("S", 5, 7), Row("H", 5, 1)], 0
    )
    assert bot(table, 0, random.Random(1)) == {"action": "play", "card": "AS", "last_card": False}


def test_bot_unblocks_its_own_run_and_keeps_a_lone_blocker() -> None:
    # 8H frees 9H and TH for this seat; 6S frees nothing it holds (it blocks others).
    table = position(
        [["6S", "8H", "9H", "TH", "KC"], ["2C"], ["3C"]], [Row("S", 5, 1), Row("H", 5, 1)], 0
    )
    assert bot(table, 0, random.Random(1))["card"] == "8H"


def test_bot_holds_a_seven_that_only_blocks_others() -> None:
    # 7C would open clubs for everyone and frees nothing it holds; 9S frees TS.
    table = position([["7C", "9S", "TS", "KH"], ["2C"], ["3C"]], [Row("S", 5, 2)], 0)
    assert bot(table, 0, random.Random(1))["card"] == "9S"


def test_bot_passes_voluntarily_rather_than_give_up_blockers() -> None:
    hands = [["6S", "7C", "KH", "QH"], ["2C"], ["3C"]]
    table = position(hands, [Row("S", 5, 1)], 0, "sevens-voluntary")
    assert bot(table, 0, random.Random(1)) == {"action": "pass"}
    forced = position(hands, [Row("S", 5, 1)], 0)
    assert bot(forced, 0, random.Random(1))["action"] == "play"


def test_bot_announces_its_last_card() -> None:
    table = position([["8D", "KC"], ["2C"], ["3C"]], [Row("D", 5, 1)], 0, "sevens-last-card")
    assert bot(table, 0, random.Random(1)) == {"action": "play", "card": "8D", "last_card": True}


def test_bot_beats_random_players() -> None:
    """The seat-0 bot wins clearly more than its fair share against players
    that choose uniformly among their legal moves."""
    rng = random.Random(11)
    table = engine.create_table("sevens", {"match": {"open": True}}, list("ABCD"), 0, rng).table
    wins = 0
    rounds = 200
    for _ in range(rounds):
        table = engine.start_round(table, rng, T0, {}).table
        while (rnd := table.round) is not None and rnd.status is RoundStatus.PLAYING:
            seat = rnd.on_turn
            assert seat is not None
            if seat == 0:
                move = bot(table, 0, rng)
                done = pass_(table) if move["action"] == "pass" else play(table, move["card"])
            else:
                cards = playable_now(table, seat)
                done = play(table, rng.choice(cards)) if cards else pass_(table)
            table = done.table
        assert table.round is not None and table.round.result is not None
        wins += table.round.result.winner == 0
    print(wins)
    assert wins / rounds > 0.35  # a fair share is 0.25


def test_default_move() -> None:
    stuck = position([["KC", "QC"], ["2C"], ["3C"]], [Row("D", 5, 1)], 0)
    assert default_move(stuck, 0) == {"action": "pass"}
    forced = position(
        [["8D", "6S", "6D", "KC"], ["2C"], ["3C"]], [Row("D", 5, 1), Row("S", 5, 1)], 0
    )
    # The lowest in the fixed order spades 2..A, hearts, diamonds, clubs.
    assert default_move(forced, 0) == {"action": "play", "card": "6S", "last_card": False}
    voluntary = position([["8D", "KC"], ["2C"], ["3C"]], [Row("D", 5, 1)], 0, "sevens-voluntary")
    # basic passes rather than give up a blocker only with more than two cards left.
    assert default_move(voluntary, 0) == {"action": "play", "card": "8D", "last_card": False}
    opening = engine.start_round(new_table(), random.Random(2), T0, {}).table
    assert opening.round is not None
    seat = opening.round.opener
    assert default_move(opening, seat) == {"action": "play", "card": "7D", "last_card": False}
    assert GAME.default_move is default_move


def test_round_record() -> None:
    table = position([["8D", "9D", "KC"], ["2C", "3C"], ["4C", "5C"]], [Row("D", 5, 1)], 0)
    table = pass_(play(table, "8D").table).table
    record = round_record(table, 1)
    assert record is not None
    assert record["moves"] == [
        {"turn": 1, "seat": 2, "action": "play", "card": "7D", "last_card": False},
        {"turn": 2, "seat": 0, "action": "play", "card": "8D", "last_card": False},
        {"turn": 3, "seat": 1, "action": "pass", "card": None, "last_card": False},
    ]
    assert round_record(table, 2) is None


def test_views() -> None:
    table = position([["8D", "9D", "KC"], ["2C", "3C"], ["4C", "5C"]], [Row("D", 5, 1)], 0)
    view = public_view(table, T0)
    assert view["awaiting"] == {"action": "play", "seats": [0], "until_ms": None}
    assert view["round"]["layout"] == [{"suit": "D", "low": "7D", "high": "7D"}]
    assert view["round"]["turn"] == 2 and view["round"]["on_turn"] == 0
    assert [s["cards"] for s in view["seats"]] == [3, 2, 2]
    assert view["seats"][0]["chips"] == 0
    mine = seat_view(table, 0, T0)
    assert mine["hand"] == ["9D", "8D", "KC"]  # canonical: suits S H D C, high to low
    assert (mine["playable"], mine["may_pass"], mine["on_turn"]) == (["8D"], False, True)
    other = seat_view(table, 1, T0)
    assert (other["playable"], other["may_pass"], other["on_turn"]) == ([], False, False)
    assert other["voluntary_passes_left"] is None
    penalty = position([["8D"], ["2C"], ["4C"]], [Row("D", 5, 1)], 0, "sevens-penalty")
    assert public_view(penalty, T0)["seats"][0]["chips"] is None
    fresh = new_table()
    assert public_view(fresh, T0)["awaiting"]["action"] == "deal"
    assert public_view(fresh, T0)["round"] is None


def test_check_deal() -> None:
    hands = full_deal("sevens", 5, 4, {})
    assert check_deal("sevens", {}, 5, {"hands": hands}) == {
        "valid": True,
        "problems": [],
        "hands": [list(sort_cards(h)) for h in hands],
    }
    bad = check_deal("sevens", {}, 5, {"hands": hands[:4], "opening_suit": "S"})
    assert bad["valid"] is False
    assert [p["pointer"] for p in bad["problems"]] == ["/opening_suit", "/hands"]
    # By default the dealer is the last seat: seats 0 and 1 hold 11 cards.
    assert [len(h) for h in hands] == [11, 11, 10, 10, 10]


def test_simulate() -> None:
    summary = GAME.simulation.run("sevens", 4, 30, 5, {})
    assert summary == GAME.simulation.run("sevens", 4, 30, 5, {})  # deterministic
    assert sum(summary.wins_by_position) == 30
    assert 51 <= summary.p50_turns <= summary.p90_turns <= summary.max_turns
    assert summary.passes_per_round == summary.pot_per_round  # one chip a pass
    text = markdown([summary])
    assert text.splitlines()[2].startswith("| sevens | 4 | 30 | ")
    data: dict[str, Any] = summary.to_json()
    assert data["voluntary_passes_per_round"] == 0.0
