"""The engine: deal, opening, turns, passes, last card, the end of a round,
numbered turns and the match (the rule book 3.2-3.5)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from service.games.cards import STANDARD_DECK
from service.games.errors import RuleViolation
from service.games.sevens import engine
from service.games.sevens.scoring import penalty
from service.games.sevens.state import MatchStatus, RoundStatus, Row, Table
from service.games.sevens.views import public_view, seat_view

from .common import T0, dealt, full_deal, new_table, pass_, play, position


def refused(call: object, *args: object) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


def on_turn(table: Table) -> int | None:
    assert table.round is not None
    return table.round.on_turn


# --- the deal ------------------------------------------------------------------


def test_a_shuffled_deal_deals_every_card_from_the_dealers_left() -> None:
    table = new_table("sevens", 5, dealer=3)
    t = engine.start_round(table, random.Random(5), T0, {})
    assert t.outcome == {"round": 1, "dealer": 3}
    rnd = t.table.round
    assert rnd is not None
    # 52 over 5: the first two seats from the dealer's left (4, 0) hold 11.
    assert [len(h) for h in rnd.hands] == [11, 10, 10, 10, 11]
    assert Counter(c for h in rnd.hands for c in h) == Counter(STANDARD_DECK)
    holder = next(s for s, h in enumerate(rnd.hands) if "7D" in h)
    assert t.events == (
        {
            "type": "round-dealt",
            "round": 1,
            "dealer": 3,
            "submitted": False,
            "opening_suit": "D",
            "opener": holder,
        },
    )


def test_two_decks_six_players_deal_sizes_from_the_dealers_left() -> None:
    table = new_table("fan-tan-two-decks", 6, dealer=2)
    rnd = engine.start_round(table, random.Random(5), T0, {}).table.round
    assert rnd is not None
    # From the dealer's left: seats 3 and 4 hold 18, seats 5, 0, 1, 2 hold 17.
    assert [len(h) for h in rnd.hands] == [17, 17, 17, 18, 18, 17]
    assert Counter(c for h in rnd.hands for c in h) == Counter(STANDARD_DECK * 2)


def test_a_submitted_deal_with_every_problem_listed() -> None:
    hands = full_deal("sevens", 4, 0, {})
    hands[0][0] = "XX"
    hands[1][0] = hands[2][0]  # a card dealt twice, another left out
    hands[3] = hands[3][:-1]
    violation = refused(engine.start_round, new_table(), random.Random(1), T0, {"hands": hands})
    assert violation.code == "deal-invalid"
    found = {e.pointer: e.detail for e in violation.errors}
    assert set(found) == {"/hands/0/0", "/hands/3", "/hands/2/0", "/hands"}
    assert found["/hands/3"].startswith("12 cards; seat 3 is dealt 13")
    assert found["/hands/2/0"] == f"{hands[2][0]} is dealt more often than the deck holds it (once)"
    assert found["/hands"].startswith("every card is dealt; missing: ")


def test_opening_suit_only_with_dealer_choice() -> None:
    hands = full_deal("sevens", 4, 0, {})
    violation = refused(
        engine.start_round, new_table(), random.Random(1), T0, {"hands": hands, "opening_suit": "S"}
    )
    assert violation.code == "deal-invalid"
    assert [e.pointer for e in violation.errors] == ["/opening_suit"]


# --- the opening -------------------------------------------------------------------


def test_seven_of_diamonds_opens() -> None:
    table = dealt(full_deal("sevens", 4, 0, {2: ["7D", "8D"]}))
    assert on_turn(table) == 2
    wrong = refused(play, table, "8D")
    assert wrong.code == "must-open" and "7D" in wrong.detail
    assert refused(pass_, table).code == "must-open"
    t = play(table, "7D")
    assert on_turn(t.table) == 3  # clockwise from the opener's left
    assert t.outcome["next_seat"] == 3 and t.outcome["next_turn"] == 2


def test_seven_of_clubs_opens() -> None:
    table = dealt(full_deal("sevens", 4, 0, {1: ["7C", "7D"]}), opening="7C")
    assert on_turn(table) == 1
    violation = refused(play, table, "7D")
    assert violation.code == "must-open" and violation.extra == {"card": "7C"}
    opened = play(table, "7C").table.round
    assert opened is not None and opened.layout == (Row("C", 5, 1),)


def test_dealer_choice_opens_with_the_named_suit_or_diamonds() -> None:
    hands = full_deal("sevens", 4, 0, {3: ["7H"], 0: ["7D"]})
    hearts = dealt(hands, opening="dealer-choice", opening_suit="h")
    assert hearts.round is not None and hearts.round.opening_suit == "H"
    assert on_turn(hearts) == 3
    diamonds = dealt(hands, opening="dealer-choice")
    assert on_turn(diamonds) == 0
    bad = refused(
        engine.start_round,
        new_table(opening="dealer-choice"),
        random.Random(1),
        T0,
        {"hands": hands, "opening_suit": "7S"},
    )
    assert [e.pointer for e in bad.errors] == ["/opening_suit"]


def test_any_seven_first_seat_without_a_seven_passes_and_pays() -> None:
    # Dealer 0: seat 1 (the dealer's left) opens; it holds no 7.
    no_sevens = ["2S", "3S", "4S", "5S", "6S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "2H"]
    table = dealt(full_deal("sevens-any-seven", 4, 0, {1: no_sevens}), "sevens-any-seven")
    assert on_turn(table) == 1
    assert refused(play, table, "6S").code == "not-playable"
    t = pass_(table)
    assert t.events == ({"type": "passed", "round": 1, "turn": 1, "seat": 1, "chips": 1},)
    assert t.outcome["pot"] == 1 and t.outcome["chips_paid"] == 1
    assert on_turn(t.table) == 2
    # Any seven may open: seat 2 plays its first seven.
    seat2 = t.table.round.hands[2]  # type: ignore[union-attr]
    seven = next(c for c in seat2 if c[0] == "7")
    assert play(t.table, seven).events[0]["card"] == seven


def test_two_decks_the_first_holder_from_the_dealers_left_opens() -> None:
    hands = full_deal("fan-tan-two-decks", 6, 0, {4: ["7D"], 2: ["7D"]})
    table = dealt(hands, "fan-tan-two-decks")
    assert on_turn(table) == 2


# --- a turn ---------------------------------------------------------------------------


def test_a_pass_with_a_playable_card_is_refused_and_changes_nothing() -> None:
    table = position([["8D", "KC"], ["2S"], ["3S"]], [Row("D", 5, 1)], 0)
    violation = refused(pass_, table)
    assert violation.code == "must-play"
    assert violation.extra == {"playable_count": 1}
    assert "8D" not in violation.detail  # how many, never which
    assert table.round is not None and table.round.moves == ("7D",)


def test_voluntary_passes_pay_and_stop_at_the_limit() -> None:
    hands = [["8D", "KC"], ["2S", "3S"], ["4S", "5S"]]
    table = position(hands, [Row("D", 5, 1)], 0, "sevens-voluntary")
    for n in range(1, 4):
        t = pass_(table)
        assert "voluntary" not in t.events[0] and t.events[0]["chips"] == 1
        table = pass_(pass_(t.table).table).table  # seats 1 and 2 pass (no card fits)
        assert table.round is not None and table.round.voluntary == (n, 0, 0)
        assert seat_view(table, 0, T0)["voluntary_passes_left"] == 3 - n
    assert table.round.pot == 9
    violation = refused(pass_, table)
    assert violation.code == "voluntary-pass-limit"
    assert seat_view(table, 0, T0)["may_pass"] is False
    assert play(table, "8D").events[0]["card"] == "8D"


def test_a_card_not_held_and_a_card_that_does_not_fit() -> None:
    table = position([["9S", "KC"], ["2S"], ["3S"]], [Row("S", 4, 3)], 0)
    assert refused(play, table, "8H").code == "play-invalid"
    assert refused(play, table, "banana").code == "play-invalid"
    violation = refused(play, table, "KC")
    assert violation.code == "not-playable"
    assert (
        violation.detail == "KC does not fit: no clubs row is started; a clubs row starts with 7C."
    )
    assert violation.extra == {"suit": "C", "rows": []}
    spades = position([["TS", "KC"], ["2S"], ["3S"]], [Row("S", 4, 3)], 0)
    violation = refused(play, spades, "TS")
    assert violation.detail == "TS does not fit: spades run 6S..8S."
    assert violation.extra == {"suit": "S", "rows": [{"suit": "S", "low": "6S", "high": "8S"}]}


def test_two_decks_a_hand_with_two_equal_cards_plays_one() -> None:
    hands = full_deal("fan-tan-two-decks", 6, 0, {1: ["7D", "8S", "8S", "7S"]})
    table = dealt(hands, "fan-tan-two-decks")
    assert on_turn(table) == 1
    table = play(table, "7D").table
    assert table.round is not None
    table = replace(
        table, round=replace(table.round, opener=table.round.opener - 1)
    )  # seat 1 on turn again, for the test
    table = play(table, "7S").table
    table = replace(table, round=replace(table.round, opener=table.round.opener - 1))  # type: ignore[union-attr]
    t = play(table, "8S")
    rnd = t.table.round
    assert rnd is not None
    assert Counter(rnd.hands[1])["8S"] == 1
    assert [r for r in rnd.layout if r.suit == "S"] == [Row("S", 5, 2)]


# --- last card -------------------------------------------------------------------------


def test_last_card_missed_pays_two_chips() -> None:
    table = position([["8D", "9D"], ["2S", "3S"], ["4S"]], [Row("D", 5, 1)], 0, "sevens-last-card")
    assert seat_view(table, 0, T0)["must_announce"] is True
    t = play(table, "8D")
    assert t.events == (
        {"type": "card-played", "round": 1, "turn": 2, "seat": 0, "card": "8D", "last_card": False},
        {"type": "last-card-missed", "round": 1, "turn": 2, "seat": 0, "chips": 2},
    )
    assert t.outcome["chips_paid"] == 2 and t.outcome["pot"] == 2
    announced = play(table, "8D", last_card=True)
    assert announced.events == (
        {"type": "card-played", "round": 1, "turn": 2, "seat": 0, "card": "8D", "last_card": True},
    )
    assert announced.outcome["pot"] == 0


def test_last_card_announced_with_any_other_play_is_refused() -> None:
    three = position([["8D", "9D", "KC"], ["2S"], ["4S"]], [Row("D", 5, 1)], 0, "sevens-last-card")
    assert refused(play, three, "8D", True).code == "last-card-invalid"
    no_option = position([["8D", "9D"], ["2S"], ["4S"]], [Row("D", 5, 1)], 0)
    violation = refused(play, no_option, "8D", True)
    assert violation.code == "last-card-invalid"
    assert no_option.round is not None and no_option.round.moves == ("7D",)


# --- the end of a round --------------------------------------------------------------


def test_penalty_values() -> None:
    assert penalty(["AS", "KH", "5C"]) == 16
    assert penalty(["2D"]) == 2


@pytest.mark.parametrize(
    ("variant", "overrides", "points"),
    [
        ("sevens", {"points": "winner-scores"}, [18, 0, 0]),
        ("sevens-penalty", {}, [0, 16, 2]),
        ("sevens", {}, [0, 0, 0]),
    ],
)
def test_the_first_seat_out_wins_and_scores(
    variant: str, overrides: dict[str, str], points: list[int]
) -> None:
    table = position(
        [["8D"], ["AS", "KH", "5C"], ["2D"]], [Row("D", 5, 1)], 0, variant, **overrides
    )
    rnd = table.round
    assert rnd is not None
    table = replace(table, round=replace(rnd, paid=(0, 2, 1)))  # chips paid earlier
    t = play(table, "8D")
    assert t.events[1] == {
        "type": "round-won",
        "round": 1,
        "dealer": 0,
        "winner": 0,
        "pot": 3,  # the pot is every chip paid this round
        "cards_left": [0, 3, 1],
        "penalties": [0, 16, 2] if variant == "sevens-penalty" else None,
        "points": points,
    }
    assert t.outcome["round_status"] == "over" and t.outcome["next_seat"] is None
    assert t.table.points == tuple(points)
    assert t.table.chips == (3, -2, -1)
    assert t.table.wins == (1, 0, 0)
    # Hands stay hidden: neither the events nor the public view name AS KH 5C 2D.
    text = repr(t.events) + repr(public_view(t.table, T0))
    for card in ("AS", "KH", "5C", "2D"):
        assert f"'{card}'" not in text


# --- numbered turns ------------------------------------------------------------------


def test_a_repeat_answers_alike_and_changes_nothing() -> None:
    table = dealt(full_deal("sevens", 4, 0, {1: ["7D", "8D"]}))
    first = play(table, "7D")
    again = engine.play(first.table, 1, 1, 1, "7d", False, T0 + 5)
    assert again.table is first.table and again.events == ()
    assert again.outcome == first.outcome
    assert on_turn(first.table) == 2
    second = pass_or_play(first.table)
    # Still the same answer after later turns.
    assert engine.play(second.table, 1, 1, 1, "7D", False, T0).outcome == first.outcome
    # Not a repeat: another card at an old turn is stale.
    stale = refused(engine.play, second.table, 1, 1, 1, "8D", False, T0)
    assert stale.code == "stale-turn"
    assert stale.kind.value == "conflict"
    assert stale.extra["current_turn"] == 3 and stale.extra["on_turn"] == 3


def pass_or_play(table: Table) -> engine.Transition:
    """Whatever is legal for the seat on turn: its first playable card, else a pass."""
    from service.games.sevens.views import playable_now

    seat = on_turn(table)
    assert seat is not None
    cards = playable_now(table, seat)
    return play(table, cards[0]) if cards else pass_(table)


def test_numbering_errors() -> None:
    table = new_table()
    assert refused(engine.pass_turn, table, 1, 1, 0, T0).code == "no-round-in-play"
    assert refused(engine.pass_turn, table, 1, 1, 9, T0).code == "seat-not-found"
    table = dealt(full_deal("sevens", 4, 0, {1: ["7D"]}))
    assert refused(engine.pass_turn, table, 2, 1, 1, T0).code == "stale-round"
    assert refused(engine.pass_turn, table, 1, 2, 1, T0).code == "stale-turn"
    wrong = refused(engine.play, table, 1, 1, 0, "7D", False, T0)
    assert wrong.code == "not-your-turn" and wrong.extra["waiting_for"] == [1]


def test_round_over_and_match_over() -> None:
    table = position([["8D"], ["2S"], ["3S"]], [Row("D", 5, 1)], 0, match={"deals": 2})
    over = play(table, "8D").table
    assert refused(engine.pass_turn, over, 1, 3, 1, T0).code == "round-over"
    done = position([["8D"], ["2S"], ["3S"]], [Row("D", 5, 1)], 0, match={"deals": 1})
    ended = play(done, "8D")
    assert ended.events[-1] == {"type": "match-won", "status": "won", "winners": [0]}
    assert refused(engine.pass_turn, ended.table, 1, 3, 1, T0).code == "match-over"
    assert refused(engine.start_round, ended.table, random.Random(1), T0, {}).code == "match-over"
    assert refused(engine.finish, ended.table, T0).code == "match-over"


def test_round_in_play_and_the_dealer_moves_left() -> None:
    table = dealt(full_deal("sevens", 4, 0, {1: ["7D"]}))
    assert refused(engine.start_round, table, random.Random(1), T0, {}).code == "round-in-play"
    rng = random.Random(3)
    while table.round is not None and table.round.status is RoundStatus.PLAYING:
        table = pass_or_play(table).table
    nxt = engine.start_round(table, rng, T0, {})
    assert nxt.outcome == {"round": 2, "dealer": 1}


# --- the match ---------------------------------------------------------------------


def test_finish_abandons_a_round_and_returns_its_chips() -> None:
    table = position([["8D", "9D"], ["2S"], ["3S"]], [Row("D", 5, 1)], 1, match={"open": True})
    table = pass_(table).table  # seat 1 pays 1
    assert table.round is not None and table.round.pot == 1
    t = engine.finish(table, T0)
    assert t.events == (
        {"type": "round-abandoned", "round": 1},
        {"type": "match-finished", "status": "finished", "winners": [0, 1, 2]},
    )
    assert t.table.chips == (0, 0, 0) and t.table.played == 0 and t.table.last is None
    assert t.table.match_status is MatchStatus.FINISHED
    closed = engine.finish(position([["8D"], ["2S"], ["3S"]], [Row("D", 5, 1)], 0), T0)
    assert closed.events[-1] == {"type": "match-abandoned", "status": "abandoned", "winners": []}


def test_target_wins_and_standings() -> None:
    table = position([["8D"], ["2S"], ["3S"]], [Row("D", 5, 1)], 0, match={"target_wins": 1})
    table = replace(table, round=replace(table.round, paid=(0, 1, 4)))  # type: ignore[arg-type]
    t = play(table, "8D")
    assert t.table.match_winners == (0,)
    standings = public_view(t.table, T0)["standings"]
    assert [(s["seat"], s["chips"], s["rank"]) for s in standings] == [
        (0, 5, 1),
        (1, -1, 2),
        (2, -4, 3),
    ]


def test_target_points_losers_score_lowest_wins() -> None:
    table = position(
        [["8D"], ["AS", "KH", "5C"], ["2D"]],
        [Row("D", 5, 1)],
        0,
        "sevens-penalty",
        match={"target_points": 10},
    )
    t = play(table, "8D")
    assert t.table.points == (0, 16, 2)
    assert t.table.match_status is MatchStatus.WON
    assert t.table.match_winners == (0,)
    assert [s["seat"] for s in public_view(t.table, T0)["standings"]] == [0, 2, 1]
