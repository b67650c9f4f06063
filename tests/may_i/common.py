"""Helpers of the May I? tests: tables, submitted deals and set positions."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from service.games.base import Transition
from service.games.may_i import engine
from service.games.may_i.melds import Meld, classify, sort_hand
from service.games.may_i.options import deck_for, resolve_options
from service.games.may_i.state import Step, Table

T0 = 1_000_000


def new_table(variant: str = "may-i", seats: int = 4, dealer: int = 0, **overrides: Any) -> Table:
    names = [f"P{i}" for i in range(seats)]
    return engine.create_table(variant, overrides, names, dealer, random.Random(7)).table


def full_deal(
    variant: str,
    seats: int,
    fixed: dict[int, list[str]],
    discard: str = "2C",
    stock_top: list[str] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """A whole submitted deal: seat ``s`` holds ``fixed[s]`` (filled to 10),
    the first discard, the stock starting with ``stock_top``."""
    options = resolve_options(variant, overrides, seats)
    rest = list(deck_for(options))
    for card in [c for cards in fixed.values() for c in cards] + [discard, *(stock_top or [])]:
        rest.remove(card)
    hands = [list(fixed.get(s, [])) for s in range(seats)]
    # Fill with cards unlikely to make melds: spread the rest.
    for s in range(seats):
        while len(hands[s]) < 10:
            hands[s].append(rest.pop(0))
    return {"hands": hands, "discard": discard, "stock": [*(stock_top or []), *rest]}


def dealt(
    fixed: dict[int, list[str]] | None = None,
    variant: str = "may-i",
    seats: int = 4,
    dealer: int = 0,
    discard: str = "2C",
    stock_top: list[str] | None = None,
    **overrides: Any,
) -> Table:
    table = new_table(variant, seats, dealer, **overrides)
    deal = full_deal(variant, seats, fixed or {}, discard, stock_top, **overrides)
    return engine.start_round(table, random.Random(1), T0, deal).table


def position(
    table: Table,
    hands: dict[int, list[str]] | None = None,
    melds: list[tuple[int, list[str]]] | None = None,
    step: Step | None = None,
    on_turn: int | None = None,
    down: list[int] | None = None,
) -> Table:
    """The table with some hands, melds (owner, cards), step, seat on turn
    and seats laid down set (no card conservation: unit tests only)."""
    rnd = table.round
    assert rnd is not None
    new_hands = list(rnd.hands)
    for s, cards in (hands or {}).items():
        new_hands[s] = sort_hand(cards)
    made = []
    for i, (owner, cards) in enumerate(melds or []):
        kind, placed, low, rank = classify(cards)
        made.append(Meld(i + 1, owner, kind, placed, low, rank))
    downs = list(rnd.down)
    for s in down or []:
        downs[s] = True
    rnd = replace(
        rnd,
        hands=tuple(new_hands),
        melds=tuple(made) if melds is not None else rnd.melds,
        step=step or rnd.step,
        on_turn=rnd.on_turn if on_turn is None else on_turn,
        down=tuple(downs),
    )
    return replace(table, round=rnd)


def move(table: Table, seat: int, action: str, arg: Any = None, now: int = T0) -> Transition:
    rnd = table.round
    assert rnd is not None
    return engine.turn(table, rnd.number, rnd.move, seat, action, arg, now)


def all_cards(table: Table) -> Counter[str]:
    """Every card of the round wherever it is."""
    rnd = table.round
    assert rnd is not None
    cards: Counter[str] = Counter()
    for h in rnd.hands:
        cards.update(h)
    cards.update(rnd.stock)
    cards.update(rnd.pile)
    for m in rnd.melds:
        cards.update(m.cards)
    return cards


class History:
    """The table's history as the store keeps it (the newest ``kept`` texts
    of a transition's ``archive``, emptied by ``archive_reset``), and the
    reader the engine takes (:data:`~service.games.may_i.engine.Earlier`)."""

    def __init__(self, kept: int = 100) -> None:
        self.kept = kept
        self.texts: list[str] = []

    def apply(self, transition: Transition) -> Transition:
        if transition.archive_reset:
            self.texts = []
        self.texts = [*self.texts, *transition.archive][-self.kept :]
        return transition

    def read(self) -> list[str]:
        return list(self.texts)
