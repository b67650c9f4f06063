"""Melds and contracts (RULES.md 4.2, 4.3), card values (4.1)."""

from __future__ import annotations

import pytest

from service.games.may_i import check_lay_down, check_lay_off
from service.games.may_i.melds import MeldError, classify, hand_value


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
