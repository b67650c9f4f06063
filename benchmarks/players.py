"""The automatic players every part of the harness uses (no I/O here).

The same simple strategy as ``referee simulate`` (service/games/ship/simulate.py): keep
the longest suit, pass the lowest card of the shortest other suit, declare as
soon as the hand holds ``win_count`` cards of one suit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.games.ship.passing import source_seat
from service.games.ship.players import choose_cards
from service.games.ship.settlement import winning_suits

__all__ = ["after_exchange", "choose_cards", "table_body", "winners"]


def table_body(players: int, rounds: int = 5, **options: Any) -> dict[str, Any]:
    """The body of ``POST /v1/tables`` the harness plays: ``classic``, seat 0
    deals first, a ``rounds``-deal match, no claim window (the first valid
    claim wins), and at most 50 exchanges a round (two players keeping the
    same suit block each other forever; such a round ends void)."""
    return {
        "variant": "classic",
        "players": [f"P{i}" for i in range(players)],
        "first_dealer": 0,
        "options": {
            "match": {"deals": rounds},
            "max_exchanges": 50,
            "claim_window_ms": 0,
            **options,
        },
    }


def after_exchange(
    hands: Sequence[Sequence[str]], passed: Sequence[Sequence[str]], direction: str
) -> list[list[str]]:
    """Every seat's hand once a simultaneous exchange has resolved: each seat
    gives ``passed[seat]`` and receives its neighbour's (``direction``)."""
    seats = len(hands)
    new = []
    for seat, hand in enumerate(hands):
        given = set(passed[seat])
        kept = [c for c in hand if c not in given]
        new.append(kept + list(passed[source_seat(seat, direction, seats)]))
    return new


def winners(hands: Sequence[Sequence[str]], win_count: int) -> list[int]:
    """The seats whose hand wins now."""
    return [s for s, h in enumerate(hands) if winning_suits(h, win_count)]
