"""Helpers of the Sevens tests: tables, submitted deals and set positions."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from service.games.base import Transition
from service.games.cards import STANDARD_DECK, sort_cards
from service.games.sevens import engine
from service.games.sevens.deal import hand_sizes
from service.games.sevens.options import resolve_options
from service.games.sevens.state import Row, Table

T0 = 1_000_000


def new_table(variant: str = "sevens", seats: int = 4, dealer: int = 0, **overrides: Any) -> Table:
    names = [f"P{i}" for i in range(seats)]
    return engine.create_table(variant, overrides, names, dealer, random.Random(7)).table


def full_deal(
    variant: str, seats: int, dealer: int, fixed: dict[int, list[str]], **overrides: Any
) -> list[list[str]]:
    """A whole deal in which seat ``s`` holds ``fixed[s]`` (plus other cards
    to fill its size); the rest of the deck(s) fills the other seats in deck
    order."""
    options = resolve_options(variant, overrides, seats)
    sizes = hand_sizes(options, seats, dealer)
    rest = list(STANDARD_DECK * options.decks)
    for cards in fixed.values():
        for card in cards:
            rest.remove(card)
    hands = [list(fixed.get(s, [])) for s in range(seats)]
    for s in range(seats):
        while len(hands[s]) < sizes[s]:
            hands[s].append(rest.pop(0))
    assert not rest
    return hands


def dealt(
    hands: list[list[str]],
    variant: str = "sevens",
    dealer: int = 0,
    opening_suit: str | None = None,
    **overrides: Any,
) -> Table:
    table = new_table(variant, len(hands), dealer, **overrides)
    deal: dict[str, Any] = {"hands": hands}
    if opening_suit is not None:
        deal["opening_suit"] = opening_suit
    return engine.start_round(table, random.Random(1), T0, deal).table


def position(
    hands: list[list[str]],
    layout: list[Row],
    on_turn: int,
    variant: str = "sevens",
    **overrides: Any,
) -> Table:
    """A round in play at turn 2 with these hands and this layout, ``on_turn``
    to move (turn 1 was the opener's 7D, the seat to its right)."""
    seats = len(hands)
    table = new_table(variant, seats, 0, **overrides)
    table = engine.start_round(table, random.Random(1), T0, {}).table
    assert table.round is not None
    rnd = replace(
        table.round,
        hands=tuple(sort_cards(h) for h in hands),
        layout=tuple(layout),
        opener=(on_turn - 1) % seats,
        moves=("7D",),
    )
    return replace(table, round=rnd)


def play(table: Table, card: str, last_card: bool = False) -> Transition:
    """The seat on turn plays ``card`` at the current numbers."""
    rnd = table.round
    assert rnd is not None and rnd.on_turn is not None
    return engine.play(table, rnd.number, rnd.turn, rnd.on_turn, card, last_card, T0)


def pass_(table: Table) -> Transition:
    """The seat on turn passes at the current numbers."""
    rnd = table.round
    assert rnd is not None and rnd.on_turn is not None
    return engine.pass_turn(table, rnd.number, rnd.turn, rnd.on_turn, T0)
