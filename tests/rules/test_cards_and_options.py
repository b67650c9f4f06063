"""Cards, decks (RULES.md 1, 2.3) and option sets (2.2, 2.9)."""

from __future__ import annotations

import pytest

from service.rules.cards import CardError, parse_card, sort_cards, trimmed_deck
from service.rules.errors import RuleViolation
from service.rules.options import PRESETS, deck_for, resolve_options


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
