"""Winning hands, simultaneous winners, Foster's showdown and Ochse's chips
(RULES.md 2.6, 2.7, 2.8 and 2.9)."""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import RANK_INDEX, SUITS, sort_cards, suit_counts
from .options import Options

Cards = tuple[str, ...]

# RULES.md 2.7 highest-sum: Ace 11, K Q J 10 count 10, others their pip value.
CARD_VALUE = {r: (11 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "23456789TJQKA"}


def winning_suits(hand: Sequence[str], win_count: int) -> list[str]:
    """The suits of which ``hand`` holds at least ``win_count`` cards."""
    counts = suit_counts(hand)
    return [s for s in SUITS if counts[s] >= win_count]


def _suit_cards(hand: Sequence[str], suit: str) -> Cards:
    """Every card of ``suit`` in ``hand``, high to low."""
    return sort_cards(c for c in hand if c[1] == suit)


def highest_card_key(hand: Sequence[str], win_count: int) -> tuple[int, ...]:
    """Comparison key of a winning hand under ``highest-card``: the ranks of all
    the winning suit's cards from the highest down (the best suit if several
    win). Compared as tuples, the first difference wins, and when one suit runs
    out first with all equal so far, the longer suit wins (its next card is the
    difference)."""
    return max(
        tuple(RANK_INDEX[c[0]] for c in _suit_cards(hand, s))
        for s in winning_suits(hand, win_count)
    )


def highest_sum_key(hand: Sequence[str], win_count: int) -> int:
    """Comparison key under ``highest-sum``: the card values of all the winning
    suit's cards (the best suit if several win)."""
    return max(
        sum(CARD_VALUE[c[0]] for c in _suit_cards(hand, s)) for s in winning_suits(hand, win_count)
    )


def nearest_dealers_left(seats_in_tie: Sequence[int], dealer: int, seats: int) -> int:
    """The seat of a tie that sits first clockwise from the dealer (RULES.md 2.7)."""
    return min(seats_in_tie, key=lambda s: (s - dealer - 1) % seats)


def settle(
    options: Options, dealer: int, seats: int, winning: Sequence[tuple[int, Sequence[str]]]
) -> tuple[tuple[int, ...], str]:
    """Decide a round among winning hands ``(seat, hand)``.

    Returns the winners in seat order and how it was settled: ``"sole"`` for a
    single winning hand, else the ``simultaneous_wins`` rule, reported as
    ``"shared"`` when ``highest-card`` finds every rank equal (RULES.md 2.7).
    """
    if len(winning) == 1:
        return (winning[0][0],), "sole"
    rule = options.simultaneous_wins
    if rule == "shared":
        return tuple(sorted(s for s, _ in winning)), "shared"
    if rule == "highest-sum":
        sums = {s: highest_sum_key(h, options.win_count) for s, h in winning}
        top = max(sums.values())
        tied = [s for s, v in sums.items() if v == top]
        return (nearest_dealers_left(tied, dealer, seats),), "highest-sum"
    keys = {s: highest_card_key(h, options.win_count) for s, h in winning}
    best = max(keys.values())
    top_seats = tuple(sorted(s for s, k in keys.items() if k == best))
    return top_seats, ("highest-card" if len(top_seats) == 1 else "shared")


def best_pair_sum(hand: Sequence[str]) -> int | None:
    """The highest sum of two cards of one suit in ``hand`` (Foster's showdown
    when nobody declared, RULES.md 2.9), or ``None`` with no two of a suit."""
    sums = [
        sum(CARD_VALUE[c[0]] for c in sorted(cards, key=lambda c: -CARD_VALUE[c[0]])[:2])
        for s in SUITS
        if len(cards := [c for c in hand if c[1] == s]) >= 2
    ]
    return max(sums) if sums else None


def showdown(
    options: Options, dealer: int, hands: Sequence[Sequence[str]]
) -> tuple[tuple[int, ...], str]:
    """Foster's showdown over every hand (RULES.md 2.9), called by a valid
    declaration or when the circuits run out.

    While any seat holds ``win_count`` of a suit (always so after a
    declaration; seed 002: the two-card rule is for when nobody holds three),
    those seats compare the sum of that suit (Ace 11, court cards 10, others
    their pips); otherwise every seat compares its best two cards of one
    suit, and a seat with no two of a suit has no score. Ties go to the seat
    nearest the dealer's left. Returns ``((winner,), "showdown" |
    "showdown-two-cards")``, with no winner (a void round) when no seat scores.
    """
    seats = len(hands)
    scores = {
        s: highest_sum_key(h, options.win_count)
        for s, h in enumerate(hands)
        if winning_suits(h, options.win_count)
    }
    rule = "showdown"
    if not scores:
        scores = {s: v for s, h in enumerate(hands) if (v := best_pair_sum(h)) is not None}
        rule = "showdown-two-cards"
    if not scores:
        return (), rule
    top = max(scores.values())
    tied = [s for s, v in scores.items() if v == top]
    return (nearest_dealers_left(tied, dealer, seats),), rule


def chips_paid(
    options: Options, hands: Sequence[Sequence[str]], winners: Sequence[int]
) -> tuple[int, ...]:
    """Each seat's chip change for a won round (RULES.md 2.8 ``chips``): every
    other seat pays each winner one chip per card its longest suit lacks of
    ``win_count``, counted on the hand it holds now. Sums to zero."""
    owed = [
        0 if s in winners else max(0, options.win_count - max(suit_counts(h).values(), default=0))
        for s, h in enumerate(hands)
    ]
    total = sum(owed)
    return tuple(total if s in winners else -owed[s] * len(winners) for s in range(len(hands)))
