"""Options, presets and their refusals (the rule book 3.2-3.6)."""

from __future__ import annotations

from typing import Any

import pytest

from service.games import GAMES, VARIANTS, game_of_variant
from service.games.errors import RuleViolation
from service.games.sevens import GAME
from service.games.sevens.options import PRESETS, Match, resolve_options


def refusal(variant: str, overrides: dict[str, Any], seats: int) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        resolve_options(variant, overrides, seats)
    return caught.value


def pointers(violation: RuleViolation) -> dict[str, str]:
    return {e.pointer: e.detail for e in violation.errors}


def test_presets_of_the_rule_book() -> None:
    assert list(PRESETS) == [
        "sevens",
        "parliament",
        "fan-tan",
        "dominoes",
        "sevens-any-seven",
        "sevens-corner",
        "sevens-voluntary",
        "sevens-last-card",
        "sevens-penalty",
        "fan-tan-two-decks",
    ]
    sevens = resolve_options("sevens", {}, 5)
    assert sevens.to_json() == {
        "decks": 1,
        "opening": "7D",
        "pass_chips": 1,
        "voluntary_pass": False,
        "voluntary_pass_limit": 3,
        "last_card": False,
        "turn_the_corner": False,
        "points": "none",
        "match": {"deals": 5},  # one deal per player
    }
    for alias in ("parliament", "fan-tan", "dominoes"):
        assert resolve_options(alias, {}, 5) == sevens
    penalty = resolve_options("sevens-penalty", {}, 4)
    assert (penalty.pass_chips, penalty.points, penalty.measure) == (0, "losers-score", "points")
    assert resolve_options("sevens-corner", {}, 4).turn_the_corner is True
    assert resolve_options("sevens-any-seven", {}, 4).opening == "any-seven"
    assert resolve_options("sevens-voluntary", {}, 4).voluntary_pass is True
    assert resolve_options("sevens-last-card", {}, 4).last_card is True
    two = PRESETS["fan-tan-two-decks"]
    assert (two.options.decks, two.min_seats, two.max_seats) == (2, 6, 10)
    assert {p.source for p in PRESETS.values()} == {"004"}


def test_registered_and_names_unique_across_games() -> None:
    assert GAMES["sevens"] is GAME
    assert game_of_variant("fan-tan") is GAME
    assert game_of_variant("classic") is GAMES["my-ship-sails"]
    assert len(VARIANTS) == sum(len(g.presets) for g in GAMES.values())
    assert GAME.presets["sevens"].options["match"] == {"deals": None}


def test_match_kinds() -> None:
    assert resolve_options("sevens", {"match": {"target_wins": 3}}, 4).match == Match(
        "target_wins", 3
    )
    assert resolve_options("sevens", {"match": {"open": True}}, 4).match == Match("open")
    assert resolve_options("sevens-penalty", {"match": {"target_points": 100}}, 4).match == Match(
        "target_points", 100
    )
    assert resolve_options("sevens", {"match": {"deals": None}}, 7).match == Match("deals", 7)


def test_unknown_variant() -> None:
    violation = refusal("hearts", {}, 4)
    assert violation.code == "unknown-variant"
    assert pointers(violation) == {"/variant": "unknown variant 'hearts'"}


def test_unknown_option_and_strict_types_are_all_listed() -> None:
    violation = refusal(
        "sevens",
        {
            "hand_size": 7,
            "last_card": 1,
            "pass_chips": True,
            "decks": "2",
            "voluntary_pass_limit": 101,
            "opening": "7S",
            "points": "all",
            "match": {"deals": 0},
        },
        4,
    )
    assert violation.code == "options-invalid"
    assert pointers(violation) == {
        "/options/hand_size": "unknown option 'hand_size' for Sevens",
        "/options/last_card": "last_card must be true or false",
        "/options/pass_chips": "pass_chips must be a whole number 0..100",
        "/options/decks": "decks must be a whole number 1..2",
        "/options/voluntary_pass_limit": "voluntary_pass_limit must be a whole number 0..100",
        "/options/opening": "opening must be one of 7D, 7C, any-seven, dealer-choice",
        "/options/points": "points must be one of none, winner-scores, losers-score",
        "/options/match/deals": "deals must be a whole number 1..1000",
    }


def test_inconsistent_options_each_with_its_reason() -> None:
    # Two decks are for 6 to 10 players: three are refused.
    assert pointers(refusal("sevens", {"decks": 2}, 3)) == {
        "/players": "Sevens with two decks is for 6 to 10 players, not 3"
    }
    assert pointers(refusal("fan-tan-two-decks", {}, 5)) == {
        "/players": "Sevens with two decks is for 6 to 10 players, not 5"
    }
    assert pointers(refusal("sevens", {}, 9)) == {
        "/players": "Sevens with one deck is for 3 to 8 players, not 9"
    }
    assert pointers(refusal("sevens", {}, 2))["/players"].endswith("not 2")
    assert pointers(refusal("sevens-corner", {"decks": 2}, 6)) == {
        "/options/turn_the_corner": "turn_the_corner cannot be played with two decks"
    }
    assert pointers(refusal("sevens-voluntary", {"voluntary_pass_limit": 0}, 4)) == {
        "/options/voluntary_pass_limit": "voluntary_pass needs a voluntary_pass_limit of at least 1"
    }
    assert pointers(refusal("sevens", {"match": {"target_points": 50}}, 4)) == {
        "/options/match": 'a {"target_points": n} match needs points other than none'
    }
    # Several at once: every reason is listed.
    both = refusal("sevens", {"decks": 2, "turn_the_corner": True}, 3)
    assert set(pointers(both)) == {"/players", "/options/turn_the_corner"}


def test_consistent_choices_that_are_allowed() -> None:
    # A limit without voluntary passes has no effect and is accepted.
    assert resolve_options("sevens", {"voluntary_pass_limit": 0}, 4).voluntary_pass_limit == 0
    assert resolve_options("sevens", {"decks": 2}, 6).decks == 2
    o = resolve_options("sevens", {"points": "losers-score", "match": {"target_points": 30}}, 4)
    assert o.match == Match("target_points", 30)
    # No chips and no points: standings go by round wins (measure points, all 0).
    assert resolve_options("sevens", {"pass_chips": 0}, 4).plays_chips is False
