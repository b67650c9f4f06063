"""What one request may hold in all: no more cards than the largest deck
that can be in play (issue 24: "requests that cost far more than a move").

Each list of cards is bounded by its schema (``maxItems``, what the game can
hold there); a request's lists together are bounded here, before any rule
runs, because JSON Schema cannot state a sum. Over it, the answer is the
rules' own for a position that cannot be: ``deal-invalid`` for a deal or an
exchange, ``move-invalid`` for May I?'s discard check, or ``valid: false``
for the deal check, with one problem naming the place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..games.errors import FieldError


def cards_in(value: Any) -> int:
    """The cards of a card (1), a list of cards, or a list of lists of cards."""
    if isinstance(value, str):
        return 1
    if isinstance(value, Sequence):
        return sum(
            len(v) if isinstance(v, Sequence) and not isinstance(v, str) else 1 for v in value
        )
    return 0


def over_one_deck(body: Mapping[str, Any], names: Sequence[str], most: int) -> FieldError | None:
    """A problem when the members ``names`` of ``body`` hold more than
    ``most`` cards together (at the first member's pointer), else None."""
    total = sum(cards_in(body.get(name)) for name in names)
    if total <= most:
        return None
    given = " and ".join(f"`{n}`" for n in names if n in body)
    return FieldError(
        f"/{names[0]}", f"{total} cards in {given} together; the largest deck holds {most}"
    )
