"""Cards, decks (RULES.md 1, 2.3) and option sets (2.2, 2.9)."""

from __future__ import annotations

import pytest

from service.games.cards import CardError, parse_card, sort_cards, trimmed_deck
from service.games.errors import RuleViolation
from service.games.ship.options import PRESETS, deck_for, resolve_options


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("TH", "TH"),
        ("10H", "TH"),
        ("10h", "TH"),
        ("A♥", "AH"),
        ("a♠", "AS"),
        ("qc", "QC"),
        (" 4s ", "4S"),
        ("K♦", "KD"),
        ("2♣", "2C"),
    ],
)
def test_card_notation_is_canonicalised(text: str, code: str) -> None:
    assert parse_card(text) == code


@pytest.mark.parametrize("text", ["", "1H", "HT", "AX", "10", "AHH", "♥A", "11H"])
def test_non_cards_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(CardError, match="card"):
        parse_card(text)


def test_cards_sort_by_suit_then_rank_high_first() -> None:
    assert sort_cards(["2C", "AH", "TS", "KH", "3D"]) == ("TS", "AH", "KH", "3D", "2C")


def test_five_seat_trimmed_deck_is_ranks_6_to_ace_less_the_six_of_clubs() -> None:
    deck = trimmed_deck(35)
    expected = {r + s for r in "6789TJQKA" for s in "SHDC"} - {"6C"}
    assert len(deck) == 35
    assert set(deck) == expected


@pytest.mark.parametrize(
    ("seats", "removed_low"),
    [
        (4, {r + s for r in "234567" for s in "SHDC"}),
        (6, {r + s for r in "23" for s in "SHDC"} | {"4C", "4D"}),
        (7, {"2C", "2D", "2H"}),
    ],
)
def test_trimmed_decks_of_rules_2_3(seats: int, removed_low: set[str]) -> None:
    deck = deck_for(resolve_options("classic", {}, seats), seats)
    full = {r + s for r in "23456789TJQKA" for s in "SHDC"}
    assert set(deck) == full - removed_low
    assert len(deck) == 7 * seats


def test_deck_low_rank_2_gives_ranks_2_to_8_for_four_players() -> None:
    options = resolve_options("classic", {"deck_low_rank": "2"}, 4)
    assert set(deck_for(options, 4)) == {r + s for r in "2345678" for s in "SHDC"}


def test_skat32_is_seven_to_ace() -> None:
    options = resolve_options("classic", {"deck": "skat32", "hand_size": 8, "win_count": 8}, 4)
    assert set(deck_for(options, 4)) == {r + s for r in "789TJQKA" for s in "SHDC"}


def test_presets_have_the_rules_table_values() -> None:
    assert set(PRESETS) == {
        "classic",
        "circle",
        "mein-schiff",
        "pass-two",
        "pass-right",
        "alternate",
        "my-star-shines",
        "whehee",
        "foster",
        "ochse",
        "matrimony",
    }
    circle = PRESETS["circle"].options
    assert (
        circle.deck,
        circle.claim_window_ms,
        circle.simultaneous_wins,
        circle.match.to_json(),
    ) == ("full", 1500, "shared", {"deals": 5})
    assert PRESETS["pass-two"].options.pass_count == 2
    assert PRESETS["alternate"].options.direction == "alternate"
    assert PRESETS["my-star-shines"].options.call == "My star shines!"
    whehee = PRESETS["whehee"]
    assert (whehee.min_seats, whehee.max_seats, whehee.options.hand_size, whehee.options.deck) == (
        3,
        10,
        3,
        "full",
    )
    foster = PRESETS["foster"]
    assert (foster.min_seats, foster.max_seats) == (3, 10)
    assert foster.options.to_json() | {"call": None} == {
        "hand_size": 3,
        "win_count": 3,
        "deck": "full",
        "deck_low_rank": None,
        "passing": "swap",
        "pass_count": 1,
        "direction": "left",
        "declaration": "manual",
        "claim_window_ms": 0,
        "simultaneous_wins": "highest-sum",
        "max_exchanges": None,
        "match": {"open": True},
        "call": None,
        "swap_circuits": 2,
        "fastest_win_bonus": False,
        "chips": False,
    }
    ochse = PRESETS["ochse"]
    assert (ochse.min_seats, ochse.max_seats) == (4, 4)
    assert (
        ochse.options.deck,
        ochse.options.hand_size,
        ochse.options.passing,
        ochse.options.chips,
        ochse.options.match.kind,
        ochse.options.claim_window_ms,
        ochse.options.call,
    ) == ("skat32", 8, "chain", True, "open", 0, "Ochse, leg dich!")
    matrimony = PRESETS["matrimony"].options
    assert (matrimony.deck, matrimony.hand_size, matrimony.win_count, matrimony.passing) == (
        "full",
        13,
        13,
        "chain",
    )


def _problems(preset: str, overrides: dict[str, object], seats: int) -> dict[str, str]:
    with pytest.raises(RuleViolation) as caught:
        resolve_options(preset, overrides, seats)
    assert caught.value.code == "options-invalid"
    return {e.pointer: e.detail for e in caught.value.errors}


def test_hand_size_times_players_over_the_deck_is_refused() -> None:
    problems = _problems("classic", {"hand_size": 8, "win_count": 8}, 7)
    assert problems == {"/options/hand_size": "7 hands of 8 need 56 cards; a deck has 52"}


def test_deck_low_rank_needs_a_multiple_of_four() -> None:
    problems = _problems("classic", {"deck_low_rank": "2"}, 5)
    expected = "deck_low_rank needs hand_size*players to be a multiple of 4, not 35"
    assert problems == {"/options/deck_low_rank": expected}


def test_deck_low_rank_only_with_trimmed() -> None:
    assert "/options/deck_low_rank" in _problems("circle", {"deck_low_rank": "2"}, 4)


def test_deck_low_rank_window_must_fit_below_the_ace() -> None:
    problems = _problems("classic", {"deck_low_rank": "9"}, 4)
    assert "go past the Ace" in problems["/options/deck_low_rank"]


def test_win_count_above_hand_size_and_players_out_of_range_are_all_listed() -> None:
    problems = _problems("classic", {"win_count": 8}, 3)
    assert set(problems) == {"/options/win_count", "/players"}
    assert problems["/players"] == "classic is for 4 to 7 players, not 3"


def test_unknown_variant_and_unknown_option() -> None:
    with pytest.raises(RuleViolation) as caught:
        resolve_options("snap", {}, 4)
    assert caught.value.code == "unknown-variant"
    assert _problems("classic", {"jokers": True}, 4) == {
        "/options/jokers": "unknown option 'jokers'"
    }


def test_claim_window_simply_does_not_apply_under_automatic() -> None:
    options = resolve_options("circle", {"declaration": "automatic"}, 4)
    assert options.claim_window_ms == 1500 and options.declaration == "automatic"


def test_skat32_must_be_dealt_whole() -> None:
    problems = _problems("classic", {"deck": "skat32"}, 4)
    assert problems == {"/options/hand_size": "skat32 deals all 32 cards: 4 hands of 7 deal 28"}


@pytest.mark.parametrize("text", ["2ſ", "Kſ", "１０H", "ＡH"])
def test_look_alike_letters_are_not_cards(text: str) -> None:
    with pytest.raises(CardError):
        parse_card(text)


def test_emoji_variation_selector_after_a_suit_symbol_is_ignored() -> None:
    assert parse_card("T♥\ufe0f") == "TH"


@pytest.mark.parametrize("spelling", ["2", "10", "t", "T"])
def test_deck_low_rank_accepts_any_rank_spelling(spelling: str) -> None:
    overrides = {"deck_low_rank": spelling, "hand_size": 4, "win_count": 4}  # 16 cards, 4 ranks
    options = resolve_options("classic", overrides, 4)
    assert options.deck_low_rank == ("2" if spelling == "2" else "T")


def test_fastest_win_bonus_needs_deals() -> None:
    assert _problems("classic", {"fastest_win_bonus": True}, 4) == {
        "/options/fastest_win_bonus": 'fastest_win_bonus needs a match of {"deals": n}'
    }
    options = resolve_options("classic", {"fastest_win_bonus": True, "match": {"deals": 3}}, 4)
    assert options.fastest_win_bonus is True


def test_chain_and_swap_pass_one_card_to_the_left() -> None:
    problems = _problems("ochse", {"pass_count": 2, "direction": "alternate"}, 4)
    assert problems == {
        "/options/pass_count": "chain passing moves one card at a time",
        "/options/direction": "chain passing always goes left (clockwise)",
    }
    assert _problems("classic", {"passing": "swap", "pass_count": 2}, 4) == {
        "/options/pass_count": "swap passing moves one card at a time",
        "/options/simultaneous_wins": (
            "swap passing ends in Foster's showdown, which is settled by highest-sum"
        ),
    }


def test_swap_circuits_only_with_swap_and_defaults_to_fosters_two() -> None:
    assert _problems("classic", {"swap_circuits": 3}, 4) == {
        "/options/swap_circuits": "swap_circuits applies only to swap passing"
    }
    assert _problems("foster", {"swap_circuits": 0}, 4) == {
        "/options/swap_circuits": "swap_circuits must be 1..100"
    }
    swap = resolve_options("whehee", {"passing": "swap", "simultaneous_wins": "highest-sum"}, 5)
    assert swap.swap_circuits == 2
    assert resolve_options("foster", {"swap_circuits": 5}, 3).swap_circuits == 5


def test_swap_has_no_claim_window() -> None:
    assert _problems("foster", {"claim_window_ms": 500}, 4) == {
        "/options/claim_window_ms": (
            "swap passing has no claim window: a declaration shows every hand at once"
        )
    }


def test_ochse_is_for_four_and_deals_the_skat_deck_whole() -> None:
    assert _problems("ochse", {}, 5) == {
        "/players": "ochse is for 4 to 4 players, not 5",
    }


def test_highest_sum_is_an_override_for_any_preset() -> None:
    options = resolve_options("classic", {"simultaneous_wins": "highest-sum"}, 5)
    assert options.simultaneous_wins == "highest-sum"
