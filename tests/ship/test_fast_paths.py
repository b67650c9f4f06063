"""The engine's fast paths give exactly what the general code gives: the
rotation of a simultaneous exchange, the usual pass's check, the copies of
frozen records and the shared opened exchanges (RULES.md 2.5)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.cards import STANDARD_DECK, parse_card_set, sort_cards
from service.games.errors import FieldError, RuleViolation
from service.games.ship import engine, passing
from service.games.ship.options import Options, resolve_options
from service.games.ship.state import Cards, Exchange, Round, RoundStatus


def general_parse(options: Options, hand: Cards, cards: list[Any]) -> object:
    """``parse_pass`` without its fast path (the code before it), as a value:
    the sorted pass, or the refusal's errors."""
    chosen, problems = parse_card_set(cards, "/cards", hand, "this hand")
    if len(cards) != options.pass_count:
        noun = "card" if options.pass_count == 1 else "cards"
        problems.append(
            FieldError(
                "/cards", f"{len(cards)} named; each seat passes {options.pass_count} {noun}"
            )
        )
    return ("refused", problems) if problems else sort_cards(chosen)


@settings(max_examples=200, deadline=None)
@given(
    seats=st.integers(2, 8),
    hand_size=st.integers(1, 6),
    direction=st.sampled_from(["left", "right"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_rotation_is_the_general_transfer(
    seats: int, hand_size: int, direction: str, seed: int
) -> None:
    rng = random.Random(seed)
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    hands = tuple(sort_cards(deck[s * hand_size : (s + 1) * hand_size]) for s in range(seats))
    count = rng.randint(1, hand_size)
    choices = tuple(sort_cards(rng.sample(h, count)) for h in hands)
    exchange = Exchange(1, tuple(range(seats)), choices, "rotate")
    general = passing.apply_transfers(hands, passing.transfers("rotate", choices, direction))
    assert passing.resolve(exchange, hands, direction) == general
    # The last given and received cards too (every seat gives and receives).
    moves = passing.transfers("rotate", choices, direction)
    before = (None,) * seats
    assert passing.resolve_all(exchange, hands, direction, before, before) == (
        general,
        *passing.last_moves(moves, before, before),
    )


def test_a_rotation_gives_each_seat_its_neighbours_cards() -> None:
    hands = (("AS", "KS"), ("AH", "KH"), ("AD", "KD"))
    choices = (("KS",), ("AH",), ("KD",))
    exchange = Exchange(1, (0, 1, 2), choices, "rotate")
    # Left: seat s gives to seat s+1 (RULES.md 1), so seat 0 gets seat 2's card.
    assert passing.resolve(exchange, hands, "left") == (
        ("AS", "KD"),
        ("KS", "KH"),
        ("AH", "AD"),
    )
    assert passing.resolve(exchange, hands, "right") == (
        ("AS", "AH"),
        ("KH", "KD"),
        ("KS", "AD"),
    )


HAND = ("AS", "QS", "TH", "9H", "4D", "KC", "2C")


@pytest.mark.parametrize(
    "cards",
    [
        ["TH", "AS", "2C"],  # the usual pass: canonical codes, any order
        ["10h", "A♠", "2C"],  # other notations: the full parse
        ["TH", "TH", "2C"],  # the same card twice
        ["TH", "AS"],  # too few
        ["TH", "AS", "2C", "KC"],  # too many
        ["TH", "AS", "3C"],  # not in the hand
        ["TH", "AS", "XX"],  # no card
        ["TH", "AS", 7],  # not a string
        [" TH", "AS", "2C"],  # blanks around a code
    ],
)
def test_the_usual_pass_is_checked_as_any_other(cards: list[Any]) -> None:
    options = resolve_options("classic", {}, 7)
    expected = general_parse(options, HAND, cards)
    try:
        got: object = passing.parse_pass(options, HAND, cards)
    except RuleViolation as refused:
        got = ("refused", refused.errors)
    assert got == expected


def test_an_evolved_copy_equals_replace() -> None:
    exchange = Exchange(3, (0, 1, 2), (None, ("AS",), None), "rotate")
    rnd = Round(2, 1, "left", (("AS",), ("KH",), ("2C",)), (), exchange, RoundStatus.PASSING)
    opened = passing.open_exchange(resolve_options("classic", {}, 4), 4, 3, 1)
    hands = (("KH",), ("2C",), ("AS",))
    passes = (("AS",), ("KH",), ("2C",))
    given = (("AS",), ("KH",), ("2C",))
    received = (("2C",), ("AS",), ("KH",))
    copied = engine._round_resolved(rnd, hands, 3, passes, given, received, opened)
    assert copied == replace(
        rnd,
        hands=hands,
        exchanges_resolved=3,
        last_passes=passes,
        given=given,
        received=received,
        exchange=opened,
    )
    assert rnd.exchange is exchange  # the original is untouched
    with pytest.raises(TypeError, match="no field 'colour'"):
        engine._evolver(Round, "colour")


def test_opened_exchanges_are_shared_and_equal_to_new_ones() -> None:
    options = resolve_options("classic", {}, 5)
    first = passing.open_exchange(options, 3, 5, 2)
    assert first is passing.open_exchange(options, 3, 5, 2)
    assert first == Exchange(3, (0, 1, 2, 3, 4), (None,) * 5, "rotate")
