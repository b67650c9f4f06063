"""The discard pile a May I? round's record implies (RULES.md 4.7, 5.2): what
each rebuilt stock must have shuffled, derived from the deal and the
recorded moves alone, so that a checker never takes a rebuilt stock's
input from the proof it checks. Pure: no replay of the rules, no clock.

The pile, bottom first, starts as the deal's first discard; in the
record's order, a ``turn`` whose ``action`` is ``take_discard`` takes its
top card, one whose ``action`` is ``discard`` puts ``arg`` on top, an
``ask`` takes its top card (an asked-for card is always given, to the asker
or to a denier, and nothing else touches the pile while its offer is
open), and a ``reshuffle`` shuffles every card but the top one into the new
stock (its ``deck``: the pile less its top, bottom first). No other entry
touches the pile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class PileBroken(ValueError):
    """A record whose moves take a card from an empty discard pile (its
    words name the entry, from 1): no referee wrote it."""


def rebuilt_piles(discard: str, moves: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """The pile each ``reshuffle`` entry of ``moves`` (a record's entries,
    in order) must shuffle, in their order: the discard pile less its top,
    bottom first, as ``discard`` (the deal's first discard) and the moves
    before it leave it. Raises :class:`PileBroken` when a move takes the
    top of an empty pile."""
    pile = [discard]
    found: list[list[str]] = []
    for place, move in enumerate(moves, start=1):
        kind = move.get("move")
        takes = kind == "ask" or (kind == "turn" and move.get("action") == "take_discard")
        if takes:
            if not pile:
                raise PileBroken(f"move {place} ({kind}) takes the top of an empty discard pile")
            pile.pop()
        elif kind == "turn" and move.get("action") == "discard":
            pile.append(str(move.get("arg")))
        elif kind == "reshuffle":
            found.append(pile[:-1])
            pile = pile[-1:]
    return found


def reshuffle_piles(deal: Mapping[str, Any], moves: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """:func:`rebuilt_piles` of a record's ``deal`` (its ``discard``) and
    ``moves``: the game's ``reshuffle_piles``."""
    return rebuilt_piles(str(deal["discard"]), moves)
