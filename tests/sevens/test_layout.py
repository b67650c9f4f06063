"""The layout (the rule book 3.3): playable cards, rows, the corner, two decks,
and the stateless check_play."""

from __future__ import annotations

import pytest

from service.games.errors import RuleViolation
from service.games.sevens import check_play
from service.games.sevens.layout import place, playable, playable_cards, row_json
from service.games.sevens.state import Row

DIAMONDS_7_TO_A = Row("D", 5, 8)  # 7D..AD
ALL_DIAMONDS = [r + "D" for r in "23456789TJQKA"]


def test_rows_start_with_seven_and_grow_one_rank_at_a_time() -> None:
    layout = (Row("S", 4, 3),)  # 6S..8S
    assert row_json(layout[0]) == {"suit": "S", "low": "6S", "high": "8S"}
    hand = ["5S", "9S", "4S", "TS", "7H", "8H", "7D", "2C"]
    assert playable_cards(hand, layout, 1, False) == ["5S", "9S", "7H", "7D"]


def test_diamonds_seven_to_ace_without_the_corner() -> None:
    layout = (DIAMONDS_7_TO_A,)
    assert [c for c in ALL_DIAMONDS if playable(c, layout, 1, False)] == ["6D"]


def test_diamonds_seven_to_ace_turning_the_corner() -> None:
    layout = (DIAMONDS_7_TO_A,)
    assert [c for c in ALL_DIAMONDS if playable(c, layout, 1, True)] == ["2D", "6D"]
    # 2D goes above the Ace: the row now runs 7D..2D round the corner.
    after = place("2D", layout, 1, True)
    assert after == (Row("D", 5, 9),)
    assert row_json(after[0]) == {"suit": "D", "low": "7D", "high": "2D"}
    assert [c for c in ALL_DIAMONDS if playable(c, after, 1, True)] == ["3D", "6D"]


def test_a_full_row_takes_nothing_more_round_the_corner() -> None:
    twelve = (Row("H", 5, 12),)  # 7H..AH..5H: only 6H is missing, it fits both ends
    assert [r + "H" for r in "23456789TJQKA" if playable(r + "H", twelve, 1, True)] == ["6H"]
    full = place("6H", twelve, 1, True)
    assert full == (Row("H", 5, 13),)
    assert not any(playable(r + "H", full, 1, True) for r in "23456789TJQKA")


def test_two_decks_two_rows_per_suit() -> None:
    one = place("7S", (), 2, False)
    # The second 7S starts the second spades row; a third seven has no row.
    two = place("7S", one, 2, False)
    assert two == (Row("S", 5, 1), Row("S", 5, 1))
    assert not playable("7S", two, 2, False)
    # 8S fits both rows: it goes on the first.
    assert place("8S", two, 2, False) == (Row("S", 5, 2), Row("S", 5, 1))
    # Rows stay in canonical order: by suit S H D C, then first started.
    mixed = place("7S", place("7C", place("7H", (), 2, False), 2, False), 2, False)
    assert [r.suit for r in mixed] == ["S", "H", "C"]


def test_check_play_answers_with_the_reason() -> None:
    layout = [{"suit": "S", "low": "6S", "high": "8S"}]
    answer = check_play("sevens", {}, ["9S", "2C", "5S"], layout, "9S")
    assert answer == {
        "playable": True,
        "reason": "9S may be played.",
        "playable_cards": ["9S", "5S"],
    }
    refused = check_play("sevens", {}, ["TS", "2C"], layout, "TS")
    assert refused == {
        "playable": False,
        "reason": "TS does not fit: spades run 6S..8S.",
        "playable_cards": [],
    }
    corner = [{"suit": "D", "low": "7D", "high": "AD"}]
    assert check_play("sevens-corner", {}, ["2D", "6D"], corner, "2D")["playable"] is True
    assert check_play("sevens", {}, ["2D", "6D"], corner, "2D")["playable"] is False
    # Two decks: a second 7S starts the second spades row; 5S is in the hand twice.
    two = check_play("sevens", {"decks": 2}, ["7S", "8H", "5S", "5S"], layout, "7S")
    assert two == {"playable": True, "reason": "7S may be played.", "playable_cards": ["7S", "5S"]}


def test_check_play_refuses_a_malformed_position() -> None:
    with pytest.raises(RuleViolation) as caught:
        check_play(
            "sevens",
            {},
            ["7S", "ZZ", "6S"],
            [{"suit": "S", "low": "6S", "high": "8S"}, {"suit": "H", "low": "8H", "high": "9H"}],
            "QC",
        )
    assert caught.value.code == "play-invalid"
    assert [e.pointer for e in caught.value.errors] == [
        "/layout/1",
        "/hand/0",
        "/hand/1",
        "/hand/2",
        "/card",
    ]


def test_a_two_below_a_row_that_reaches_the_ace_goes_at_the_bottom() -> None:
    """Without the corner, 2S under 3S..AS completes the row as 2S..AS; it is
    not put above the Ace (a bug the HTTP match test found: the view showed 2S..2S)."""
    row = Row("S", 1, 12)  # 3S..AS
    (full,) = place("2S", (row,), 1, False)
    assert (full.low, full.size) == (0, 13)
    assert row_json(full) == {"suit": "S", "low": "2S", "high": "AS"}
    (corner,) = place("2S", (row,), 1, True)
    assert row_json(corner) == {"suit": "S", "low": "2S", "high": "AS"}
