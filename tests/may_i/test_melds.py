"""Melds and contracts (RULES.md 4.2, 4.3), card values (4.1)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.may_i import check_lay_down, check_lay_off
from service.games.may_i.engine import discard_allowed, discardable, discardable_given
from service.games.may_i.melds import (
    JOKER,
    Meld,
    MeldError,
    classify,
    fits,
    hand_value,
    lay_off_end,
)

RANK_CODES = "23456789TJQKA"
CARDS = [*(r + s for r in RANK_CODES for s in "SHDC"), JOKER]


def valid(round_no: int, *melds: str) -> bool:
    return bool(check_lay_down(round_no, [m.split() for m in melds])["valid"])


def test_round_2_a_set_and_a_run() -> None:
    assert valid(2, "5H 5S 5C", "9D TD JD QD")
    assert not valid(2, "5H 5S", "9D TD JD QD")
    assert "set of 2" in check_lay_down(2, [["5H", "5S"], ["9D", "TD", "JD", "QD"]])["reason"]


def test_round_3_two_runs_of_one_suit() -> None:
    assert valid(3, "2S 3S 4S 5S", "7S 8S 9S TS")
    assert valid(3, "2S 3S 4S 5S", "6S 7S 8S 9S")  # touching, still separate
    assert not valid(3, "2S 3S 4S 5S", "7S 8S 9S")  # a run of three


def test_round_1_two_sets_of_one_rank() -> None:
    assert valid(1, "5H 5S 5C", "5H 5D 5C")
    assert not valid(1, "5H 5S 5C")
    assert not valid(1, "5H 5S 5C", "9D TD JD QD")


def test_rounds_4_and_5() -> None:
    assert valid(4, "2H 2S 2C", "3H 3S 3C", "KH KD KS")
    assert valid(5, "2H 2S 2C", "3H 3S 3C", "9D TD JD QD")
    assert not valid(5, "2H 2S 2C", "9D TD JD QD")


def test_jokers() -> None:
    kind, cards, low, _ = classify(["9D", "JK", "JD", "QD"])
    assert kind == "run" and cards == ("9D", "JK", "JD", "QD") and low == 9  # JK is TD
    with pytest.raises(MeldError, match="more jokers"):
        classify(["JK", "JK", "5S"])
    assert classify(["JK", "5S", "5H"])[0] == "set"
    assert classify(["JK", "2S", "3S", "4S"])[2] == 1  # the joker is the Ace, low
    with pytest.raises(MeldError, match="more jokers"):
        classify(["JK", "JK", "JK", "5S", "6S"])


def test_order_and_the_ace() -> None:
    assert classify(["QD", "JD", "TD", "9D"])[1] == ("9D", "TD", "JD", "QD")
    with pytest.raises(MeldError, match="no run"):
        classify(["9D", "JD", "TD", "QD"])
    assert classify(["AS", "2S", "3S", "4S"])[2] == 1
    assert classify(["JS", "QS", "KS", "AS"])[2] == 11
    with pytest.raises(MeldError, match="no run"):
        classify(["QS", "KS", "AS", "2S"])
    with pytest.raises(MeldError, match="neither"):
        classify(["5S", "6H", "7S", "8S"])


def test_lay_off_checks() -> None:
    assert check_lay_off(["9D", "TD", "JD", "QD"], "KD", None) == {
        "fits": True,
        "reason": "KD fits.",
        "end": "high",
    }
    assert check_lay_off(["9D", "TD", "JD", "QD"], "8D", None)["end"] == "low"
    assert not check_lay_off(["9D", "TD", "JD", "QD"], "KS", None)["fits"]
    assert not check_lay_off(["9D", "TD", "JD", "QD"], "JK", None)["fits"]  # names its end
    assert check_lay_off(["9D", "TD", "JD", "QD"], "JK", "low")["end"] == "low"
    assert check_lay_off(["5H", "5S", "5C"], "5D", None)["fits"]
    assert check_lay_off(["5H", "JK", "5C"], "JK", None)["fits"]  # 2 jokers, 2 naturals
    assert not check_lay_off(["5H", "JK", "JK", "5C"], "JK", None)["fits"]  # 3 jokers, 2
    assert check_lay_off(["JS", "QS", "KS", "AS"], "TS", None)["fits"]
    assert not check_lay_off(["JS", "QS", "KS", "AS"], "2S", None)["fits"]
    assert check_lay_off(["2S", "3S", "4S", "5S"], "AS", None)["end"] == "low"


def test_card_values() -> None:
    assert hand_value(["AS", "9C", "JK"]) == 45
    assert hand_value(["2S", "TH", "KD", "AC"]) == 5 + 10 + 10 + 15


def test_a_run_never_holds_the_ace_at_both_ends() -> None:
    # RULES.md 4.2: the Ace is high or low, not both; A..K is as long as a run gets.
    low_ace = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
    assert check_lay_off(low_ace, "AD", None)["fits"] is False
    assert check_lay_off(low_ace, "JK", None)["fits"] is False  # both ends closed
    high_ace = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"]
    assert check_lay_off(high_ace, "AD", None)["fits"] is False
    assert check_lay_off(high_ace, "JK", "low")["fits"] is False
    assert check_lay_off(low_ace[:-1], "KD", None) == {
        "fits": True,
        "reason": "KD fits.",
        "end": "high",
    }
    assert check_lay_off(high_ace[1:], "2D", None)["end"] == "low"
    assert check_lay_off(low_ace[:-1], "JK", None)["end"] == "high"  # only the high end is open


RUN_RANKS = "A23456789TJQKA"


@st.composite
def melds(draw: st.DrawFn) -> Meld:
    """A meld as the table holds one: a set of one rank, or a run of one suit
    (the Ace low or high), some cards made jokers (never more than naturals)."""
    if draw(st.booleans()):
        rank = draw(st.sampled_from(RANK_CODES))
        cards = [rank + draw(st.sampled_from("SHDC")) for _ in range(draw(st.integers(3, 7)))]
    else:
        suit = draw(st.sampled_from("SHDC"))
        low = draw(st.integers(1, 11))
        size = draw(st.integers(4, min(13, 15 - low)))  # A..K or 2..A at most
        cards = [RUN_RANKS[low - 1 + i] + suit for i in range(size)]
    for i in draw(st.sets(st.integers(0, len(cards) - 1), max_size=len(cards) // 2)):
        cards[i] = JOKER
    kind, placed, low, rank = classify(cards)
    return Meld(1, 0, kind, placed, low, rank)


@given(melds())
@settings(max_examples=300, deadline=None)
def test_fits_says_what_lay_off_end_takes(meld: Meld) -> None:
    """``fits`` (no reasons, asked of every card of every hand) takes a
    card exactly where ``lay_off_end`` places it at some end (4.2)."""
    for card in CARDS:
        placed = []
        for end in ("low", "high") if meld.kind == "run" else (None,):
            with contextlib.suppress(MeldError):
                placed.append(lay_off_end(meld, card, end))
        assert fits(meld, card) == bool(placed), (meld, card, placed)


@given(st.lists(melds(), max_size=6), st.lists(st.sampled_from(CARDS), max_size=14))
@settings(max_examples=300, deadline=None)
def test_discardable_is_discard_allowed_of_each_card(table: list[Meld], hand: list[str]) -> None:
    """The bots' ``discardable`` and the seat views' ``discardable_given``
    (each card's fit found once) say what the move's own rule,
    ``discard_allowed``, says of each card (4.5.3: a card that fits a meld
    only when every card fits one)."""
    each = [c for c in sorted(set(hand)) if discard_allowed(hand, table, c)]
    assert discardable(hand, table) == each
    lay_offs = {c: [m.id for m in table if fits(m, c)] for c in set(hand)}  # a seat view's
    assert discardable_given(lay_offs) == each
