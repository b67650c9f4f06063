"""The layout: rows per suit, which cards are playable, where a card goes
(the project's rule book, 3.3).

A row starts with a 7 and grows one rank at a time, up to the Ace and down to
the 2; with ``turn_the_corner`` ranks are cyclic (above A comes 2, below 2
comes A) until the row holds all 13. With two decks a suit has two rows; a
card that fits both goes on the first (rows are kept in canonical order: by
suit S H D C, then the order they were started), and the cards playable
afterwards are the same either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..cards import RANK_INDEX, RANKS, SUIT_INDEX, SUIT_NAMES
from .state import Row

SEVEN = RANK_INDEX["7"]


def row_json(row: Row) -> dict[str, str]:
    """The public form of a row: ``{"suit": "S", "low": "6S", "high": "8S"}``."""
    return {
        "suit": row.suit,
        "low": RANKS[row.low] + row.suit,
        "high": RANKS[row.high] + row.suit,
    }


def describe_rows(rows: Iterable[Row]) -> str:
    """Words for rows of one suit: ``"spades run 6S..8S"``."""
    parts = [f"{RANKS[r.low]}{r.suit}..{RANKS[r.high]}{r.suit}" for r in rows]
    return " and ".join(parts)


def fits(row: Row, rank: int, corner: bool) -> bool:
    """Whether a card of rank index ``rank`` (of the row's suit) extends ``row``."""
    if corner:
        if row.size >= 13:
            return False
        return rank in ((row.high + 1) % 13, (row.low - 1) % 13)
    # Without the corner a row never wraps: 13 above the Ace and -1 below the
    # 2 match no rank.
    return rank in (row.high + 1, row.low - 1)


def playable(card: str, layout: Sequence[Row], decks: int, corner: bool) -> bool:
    """Whether ``card`` may be played on ``layout`` (3.3): a 7 whose suit has
    an unstarted row, or one rank above a row's top or below its bottom."""
    rank, suit = RANK_INDEX[card[0]], card[1]
    rows = [r for r in layout if r.suit == suit]
    if rank == SEVEN and len(rows) < decks:
        return True
    return any(fits(r, rank, corner) for r in rows)


def place(card: str, layout: Sequence[Row], decks: int, corner: bool) -> tuple[Row, ...]:
    """The layout with ``card`` (which must be playable) added: on the first
    row of its suit it fits, or as a new row; rows stay in canonical order."""
    rank, suit = RANK_INDEX[card[0]], card[1]
    rows = list(layout)
    for i, row in enumerate(rows):
        if row.suit == suit and fits(row, rank, corner):
            # Without the corner a 2 is never above an Ace. With it, the last
            # missing rank fits both ends: a 2 goes below, so that a full
            # row that never turned reads 2..A.
            above = (row.high + 1) % 13 if corner else row.high + 1
            if rank == above and not (rank == 0 and row.low == 1):
                rows[i] = Row(suit, row.low, row.size + 1)
            else:
                rows[i] = Row(suit, (row.low - 1) % 13, row.size + 1)
            return tuple(rows)
    if rank != SEVEN or sum(r.suit == suit for r in rows) >= decks:
        raise ValueError(f"{card} does not fit this layout")
    rows.append(Row(suit, SEVEN, 1))
    # A stable sort keeps rows of one suit in the order they were started.
    return tuple(sorted(rows, key=lambda r: SUIT_INDEX[r.suit]))


def playable_cards(
    hand: Iterable[str], layout: Sequence[Row], decks: int, corner: bool
) -> list[str]:
    """The distinct cards of ``hand`` that may be played now, in hand order."""
    seen: list[str] = []
    for card in hand:
        if card not in seen and playable(card, layout, decks, corner):
            seen.append(card)
    return seen


def row_cards(row: Row) -> list[str]:
    """Every card in a row, from its bottom up."""
    return [RANKS[(row.low + i) % 13] + row.suit for i in range(row.size)]


def not_playable_reason(card: str, layout: Sequence[Row], decks: int) -> str:
    """Why ``card`` does not fit (for a card :func:`playable` refused)."""
    suit = card[1]
    rows = [r for r in layout if r.suit == suit]
    name = SUIT_NAMES[suit]
    if not rows:
        return f"{card} does not fit: no {name} row is started; a {name} row starts with 7{suit}"
    text = f"{card} does not fit: {name} run {describe_rows(rows)}"
    if card[0] == "7" and len(rows) >= decks:
        text += f" (every {name} row is started)"
    return text
