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


def _runs(hand: Sequence[str]) -> list[list[str]]:
    """Runs of natural cards (4 or more, one suit, distinct ranks), each
    split in runs of 4..7 so that two runs may come from one suit."""
    found: list[list[str]] = []
    for suit in "SHDC":
        ranks = sorted({_VALUES[c[0]] for c in hand if c != JOKER and c[1] == suit})
        if 14 in ranks:
            ranks = [1, *ranks]
        segment: list[int] = []
        for v in [*ranks, 99]:
            if segment and v == segment[-1] + 1:
                segment.append(v)
                continue
            while len(segment) >= 4:
                size = len(segment) if len(segment) < 8 else 4
                part, segment = segment[:size], segment[size:]
                found.append(
                    [("A" if x in (1, 14) else "23456789TJQK"[x - 2]) + suit for x in part]
                )
            segment = [v]
    return found


def _sets(hand: Sequence[str], jokers: int) -> list[list[str]]:
    """Sets of 3 or more of a rank, the pairs completed with a joker while
    any is left."""
    counts = Counter(c[0] for c in hand if c != JOKER)
    found = []
    for rank, n in sorted(counts.items(), key=lambda x: -x[1]):
        cards = [c for c in hand if c != JOKER and c[0] == rank]
        if n >= 3:
            found.append(cards)
        elif n == 2 and jokers:
            jokers -= 1
            found.append([*cards, JOKER])
    return found


def find_contract(round_no: int, hand: Sequence[str]) -> list[list[str]] | None:
    """A lay-down of round ``round_no``'s contract from ``hand``, or ``None``
    (greedy: runs first, then sets from what is left)."""
    want_sets, want_runs = CONTRACTS[round_no]
    left = Counter(hand)
    melds: list[list[str]] = []
    for run in _runs(hand):
        if len(melds) == want_runs:
            break
        if all(left[c] >= 1 for c in run):
            left.subtract(run)
            melds.append(run)
    if len(melds) < want_runs:
        return None
    rest = list(left.elements())
    sets = _sets(rest, left[JOKER])[:want_sets]
    if len(sets) < want_sets:
        return None
    melds.extend(sets)
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
    pairs = Counter(c[0] for c in hand)
    allowed.sort(key=lambda c: (c == JOKER, pairs[c[0]] > 1, -card_value(c)))
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


def _useful(hand: Sequence[str], card: str) -> bool:
    if card == JOKER:
        return True
    same_rank = sum(c[0] == card[0] for c in hand if c != JOKER)
    near = sum(
        c != JOKER and c[1] == card[1] and abs(_VALUES[c[0]] - _VALUES[card[0]]) <= 2 for c in hand
    )
    return same_rank >= 1 or near >= 2


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
        take = _useful(hand, rnd.pile[-1])
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
    return _useful(rnd.hands[seat], rnd.offer.card)


def is_meld(cards: Sequence[str]) -> bool:
    try:
        classify(cards)
    except MeldError:
        return False
    return True
