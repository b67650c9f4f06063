"""Frozen states of a table, a round and an exchange.

An exchange is modelled as "the seats that must choose, their choices, and how
it resolves" (RULES.md 2.5), so that chain and swap passing fit beside the
simultaneous mode. Cards are canonical codes (see :mod:`.cards`); every tuple
of cards is kept in canonical order so that no pick order is ever stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from ..match import MatchStatus as MatchStatus  # re-exported: part of the state
from .options import Options

Cards = tuple[str, ...]
R = TypeVar("R")


def evolve(record: R, **changes: Any) -> R:
    """``dataclasses.replace`` for these frozen, slotted records, without
    running ``__init__`` again: the hot path of every pass and exchange, where
    ``replace`` costs a third of the time. Unknown field names raise
    ``TypeError``, as with ``replace``."""
    kind = type(record)
    slots: tuple[str, ...] = kind.__slots__  # type: ignore[attr-defined]
    unknown = changes.keys() - set(slots)
    if unknown:
        raise TypeError(f"{kind.__name__} has no field {sorted(unknown)[0]!r}")
    new = object.__new__(kind)
    for name in slots:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(record, name))
    return new


class RoundStatus(StrEnum):
    """Where a round stands."""

    PASSING = "passing"
    """Exchanges go on; claims are taken (RULES.md 2.5, 2.6)."""
    CLAIM_WINDOW = "claim-window"
    """A valid claim ended the passing; other winning hands may still claim
    until ``window_closes_at_ms`` (RULES.md 2.7, manual with a window)."""
    OVER = "over"
    """Settled: ``result`` says who won, or that the round was void."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One exchange of a round.

    ``choosers`` are the seats that must choose before it resolves; ``choices``
    is indexed by seat (``None`` = not chosen yet, or not a chooser);
    ``resolution`` names how it resolves (RULES.md 2.5): ``"rotate"`` gives
    every seat's cards to its neighbour in ``Round.direction``
    (simultaneous); ``"chain"`` gives the one chooser's card to its left
    neighbour; ``"swap"`` trades the two choosers' cards.
    """

    number: int
    choosers: tuple[int, ...]
    choices: tuple[Cards | None, ...]
    resolution: str = "rotate"

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Choosers that have not chosen yet."""
        return tuple(s for s in self.choosers if self.choices[s] is None)


@dataclass(frozen=True, slots=True)
class Claim:
    """A valid declaration: the seat, when it arrived (ms since the epoch), and
    the winning hand it showed."""

    seat: int
    at_ms: int
    hand: Cards


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended.

    ``winners`` is empty for a void round. ``hands`` holds the hands that were
    shown (every valid claim, or every automatic winner), as ``(seat, cards)``.
    ``settled_by`` is ``"sole"`` (one winner), ``"void"``, ``"abandoned"``, or the
    ``simultaneous_wins`` rule that decided between several winning hands, with
    ``"shared"`` also for a full ``highest-card`` tie (RULES.md 2.7), or
    ``"showdown"`` / ``"showdown-two-cards"`` for Foster's showdown (2.9), which
    shows every hand. ``chips`` is each seat's chip change in this round
    (RULES.md 2.8 ``chips``; empty when the table plays without chips).
    ``set_aside`` is what a ``full`` deck's deal left out, shown once the
    round is over (RULES.md 2.11; empty for the other decks).
    """

    round: int
    dealer: int
    exchanges: int
    winners: tuple[int, ...]
    hands: tuple[tuple[int, Cards], ...]
    settled_by: str
    chips: tuple[int, ...] = ()
    set_aside: Cards = ()


@dataclass(frozen=True, slots=True)
class Round:
    """One deal and its play.

    ``hands`` is indexed by seat. ``set_aside`` holds the cards of a ``full``
    deck that nobody was dealt; they take no part and are shown only in the
    round's result, once it is over (RULES.md 2.11).
    ``exchange`` is the current exchange; it is kept (with its cancelled
    choices cleared) once the round has stopped passing.

    The state does not grow with the round: of the resolved exchanges it keeps
    their count (``exchanges_resolved``), the last one's choices
    (``last_passes``, indexed like ``hands``; empty before the first) and,
    per seat, the cards it last gave (``given``) and last received
    (``received``; ``None``: not yet). Every resolved exchange's choices go
    to the table's history instead (``Transition.archive``, see
    :func:`.passing.archived`). ``legacy_passes`` holds the resolved
    exchanges' choices of a round stored before that history (fmt 1 and 2
    kept them all in the state); empty for a round dealt since.
    """

    number: int
    dealer: int
    direction: str
    hands: tuple[Cards, ...]
    set_aside: Cards
    exchange: Exchange
    status: RoundStatus
    claims: tuple[Claim, ...] = ()
    window_closes_at_ms: int | None = None
    result: RoundResult | None = None
    exchanges_resolved: int = 0
    last_passes: tuple[Cards | None, ...] = ()
    given: tuple[Cards | None, ...] = ()
    received: tuple[Cards | None, ...] = ()
    legacy_passes: tuple[tuple[Cards | None, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Table:
    """A whole match at one table.

    ``names`` are the players in seat order (clockwise). ``draw`` holds the
    first-dealer draw, one tuple of cards per drawing pass (``None`` for seats
    that did not draw again), or is empty when the caller named the dealer.
    ``wins`` are the round wins per seat. ``round`` is the current round, or
    the last one once it is over, or ``None`` before the first deal.
    ``chips`` is each seat's chip tally (RULES.md 2.8; all 0 without chips).
    ``fastest_win`` holds the seats given the fastest-win point when a
    ``deals`` match with ``fastest_win_bonus`` ends.

    The state keeps no list of results, so that it does not grow with the
    match: ``played`` counts the finished rounds (won or void), ``last`` is
    the newest one's result, ``fewest`` the fewest exchanges a round was won
    in (``None`` before a win) and ``fewest_by`` the seats that won a round
    in that many (what the fastest-win point needs, RULES.md 2.8). Every
    finished round's result goes to the table's list of rounds (see
    :func:`.codec.rounds_of`). ``legacy`` holds the results of a table
    stored before that list (fmt 1 to 3 kept them all in the state), listed
    from there until the table is written again; empty otherwise.
    """

    variant: str
    options: Options
    names: tuple[str, ...]
    first_dealer: int
    draw: tuple[tuple[str | None, ...], ...]
    wins: tuple[int, ...]
    played: int
    last: RoundResult | None
    round: Round | None
    match_status: MatchStatus
    match_winners: tuple[int, ...] = ()
    chips: tuple[int, ...] = ()
    fastest_win: tuple[int, ...] = ()
    fewest: int | None = None
    fewest_by: tuple[int, ...] = ()
    legacy: tuple[RoundResult, ...] = ()

    @property
    def seats(self) -> int:
        """Number of seats."""
        return len(self.names)

    @property
    def points(self) -> tuple[int, ...]:
        """Round wins plus the fastest-win point, per seat (RULES.md 2.8)."""
        return tuple(w + (s in self.fastest_win) for s, w in enumerate(self.wins))

    @property
    def next_dealer(self) -> int:
        """The dealer of the next round: one seat left per round (RULES.md 1)."""
        return (self.first_dealer + self.played) % self.seats
