"""Automatic players: the bot, what a turn clock plays for a seat out of
time, and a round's record. A move is ``{"action": ..., "argument": ...}``
(the actions of :func:`~.engine.turn`, plus ``ask`` / ``answer``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..base import Shuffler
from .engine import can_place, discard_allowed
from .melds import CONTRACTS, JOKER, MeldError, card_value, check_contract, classify, fits
from .state import Step, Table

_VALUES = {r: i + 2 for i, r in enumerate("23456789TJQKA")}
_RANK_OF = {v: r for r, v in _VALUES.items()} | {1: "A"}


def _run_options(left: Counter[str]) -> list[list[str]]:
    """Runs of 4 the cards ``left`` can make, a joker filling a missing
    rank (no more jokers than natural cards), fewest jokers first."""
    found: list[tuple[int, list[str]]] = []
    for suit in "SHDC":
        for low in range(1, 12):
            cards = [_RANK_OF[v] + suit for v in range(low, low + 4)]
            missing = sum(left[c] < 1 for c in cards)
            if missing <= min(left[JOKER], 2):
                found.append((missing, [c if left[c] >= 1 else JOKER for c in cards]))
    found.sort(key=lambda x: x[0])
    return [cards for _, cards in found]


def _sets(left: Counter[str], wanted: int) -> list[list[str]] | None:
    """``wanted`` sets from ``left`` (a pair completed with a joker), or None."""
    sets: list[list[str]] = []
    jokers = left[JOKER]
    ranks = Counter(c[0] for c in left.elements() if c != JOKER)
    for rank, n in sorted(ranks.items(), key=lambda x: -x[1]):
        if len(sets) == wanted:
            break
        cards = [c for c in left.elements() if c != JOKER and c[0] == rank]
        if n >= 3:
            sets.append(cards)
        elif n == 2 and jokers:
            jokers -= 1
            sets.append([*cards, JOKER])
    return sets if len(sets) == wanted else None


def find_contract(round_no: int, hand: Sequence[str]) -> list[list[str]] | None:
    """A lay-down of round ``round_no``'s contract from ``hand``, or ``None``
    (a small search: runs first, fewest jokers first, then sets)."""
    want_sets, want_runs = CONTRACTS[round_no]

    def search(left: Counter[str], runs: list[list[str]]) -> list[list[str]] | None:
        if len(runs) == want_runs:
            sets = _sets(left, want_sets)
            return None if sets is None else [*runs, *sets]
        for run in _run_options(left)[:12]:
            rest = left.copy()
            rest.subtract(run)
            found = search(+rest, [*runs, run])
            if found is not None:
                return found
        return None

    melds = search(Counter(hand), [])
    if melds is None:
        return None
    try:
        check_contract(round_no, melds)
    except MeldError:
        return None
    return melds


def _lay_off_move(table: Table, seat: int) -> dict[str, Any] | None:
    rnd = table.round
    assert rnd is not None
    for card in rnd.hands[seat]:
        for meld in rnd.melds:
            if fits(meld, card):
                end = None
                if card == JOKER and meld.kind == "run":
                    end = "high" if meld.high < 14 else "low"
                return {
                    "action": "lay_off",
                    "argument": {"card": card, "meld": meld.id, "end": end},
                }
    return None


def _discard_move(table: Table, seat: int, keep: Sequence[str] = ()) -> dict[str, Any]:
    rnd = table.round
    assert rnd is not None
    hand = rnd.hands[seat]
    allowed = [c for c in hand if discard_allowed(hand, rnd.melds, c)]
    allowed.sort(key=lambda c: (_keep_score(hand, c, rnd.number), -card_value(c)))
    return {"action": "discard", "argument": allowed[0]}


def default_move(table: Table, seat: int) -> dict[str, Any]:
    """What a turn clock plays for the seat on turn: take the discard (or
    draw), lay off nothing, discard the highest card it may; in a lay-off
    turn after a seat went out, be done."""
    rnd = table.round
    if rnd is None or not rnd.playing or rnd.on_turn != seat or rnd.step is Step.MAY_I:
        raise ValueError(f"seat {seat} is not on turn")
    if rnd.step is Step.DRAW:
        return {"action": "take_discard" if rnd.pile else "draw", "argument": None}
    if rnd.step is Step.STOCK:
        return {"action": "draw", "argument": None}
    if rnd.step is Step.FINAL:
        return {"action": "done", "argument": None}
    return _discard_move(table, seat)


def _keep_score(hand: Sequence[str], card: str, round_no: int = 2) -> int:
    """How much ``card`` helps the hand toward the round's contract (pairs
    for sets, suit neighbours for runs)."""
    sets, runs = CONTRACTS[round_no]
    if card == JOKER:
        return 100
    same = sum(c[0] == card[0] for c in hand if c != JOKER) - 1
    near = sum(
        c != JOKER and c[1] == card[1] and 0 < abs(_VALUES[c[0]] - _VALUES[card[0]]) <= 2
        for c in hand
    )
    return (3 * same if sets else 0) + (2 * near if runs else 0)


def _useful(hand: Sequence[str], card: str, round_no: int = 2) -> bool:
    return _keep_score([*hand, card], card, round_no) >= 2


def bot(table: Table, seat: int, rng: Shuffler) -> dict[str, Any]:
    """A legal move for the seat on turn: take a discard that pairs or
    nearly runs with its hand, else decline it; lay down as soon as it can;
    lay off everything it can; discard its highest loose card."""
    rnd = table.round
    if rnd is None or not rnd.playing or rnd.on_turn != seat or rnd.step is Step.MAY_I:
        raise ValueError(f"seat {seat} is not on turn")
    hand = rnd.hands[seat]
    if rnd.step is Step.DRAW:
        if not rnd.pile:
            return {"action": "draw", "argument": None}
        top = rnd.pile[-1]
        if rnd.down[seat]:  # only what it can lay off at once
            take = any(fits(m, top) for m in rnd.melds)
        else:
            take = _useful(hand, top, rnd.number)
        return {"action": "take_discard" if take else "decline", "argument": None}
    if rnd.step is Step.STOCK:
        return {"action": "draw", "argument": None}
    if rnd.step is Step.FINAL:
        return _lay_off_move(table, seat) or {"action": "done", "argument": None}
    if not rnd.down[seat]:
        melds = find_contract(rnd.number, hand)
        if melds is not None:
            return {"action": "lay_down", "argument": melds}
    elif can_place(hand, rnd.melds):
        move = _lay_off_move(table, seat)
        if move is not None:
            return move
    return _discard_move(table, seat)


def wants(table: Table, seat: int) -> bool:
    """Whether the bot at ``seat`` would ask for the offered discard."""
    rnd = table.round
    if rnd is None or rnd.offer is None:
        return False
    if rnd.down[seat]:
        return False
    return _useful(rnd.hands[seat], rnd.offer.card, rnd.number)


def is_meld(cards: Sequence[str]) -> bool:
    try:
        classify(cards)
    except MeldError:
        return False
    return True
