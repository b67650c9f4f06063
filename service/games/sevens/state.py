"""Frozen states of a Sevens table and round.

Cards are canonical codes (see :mod:`service.games.cards`). A hand is a
sorted tuple of codes in canonical order; with two decks it may hold a card
twice (a multiset). A round keeps its moves compactly (:data:`Move`), which
is also its record for replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..match import MatchStatus as MatchStatus  # re-exported: part of the state
from .options import Options

Cards = tuple[str, ...]

Move = str
"""One turn of a round, compactly: a card code (``"8S"``) for a play,
``"8S!"`` for a play announced as the second-to-last card, ``"8S*"`` for
that play unannounced (2 chips paid), ``"P"`` for a forced pass and ``"V"``
for a voluntary one. The seat of turn ``t`` is ``(opener + t - 1) % N``:
every turn moves one seat left, passing or playing."""


class RoundStatus(StrEnum):
    """Where a round stands."""

    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the layout: ``suit``, the rank index (0 = 2 .. 12 = Ace) of
    its lowest card ``low`` and its number of cards ``size``. The row holds
    ranks ``low, low+1, ... low+size-1``, taken modulo 13 when the row has
    turned the corner (``turn_the_corner``), so its top may be below its
    bottom."""

    suit: str
    low: int
    size: int

    @property
    def high(self) -> int:
        """The rank index of the row's top card."""
        return (self.low + self.size - 1) % 13


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended.

    ``winner`` is the seat that played its last card (``None`` for an
    abandoned round). ``cards_left`` and ``penalties`` are per seat (counts
    and card values of the cards left, never the cards), ``points`` the
    points each seat scored, ``chips`` each seat's chip change (the pot to
    the winner less what each paid; all 0 when abandoned: chips paid are
    returned). ``turns`` counts the round's moves."""

    round: int
    dealer: int
    opener: int
    winner: int | None
    pot: int
    turns: int
    cards_left: tuple[int, ...]
    penalties: tuple[int, ...]
    points: tuple[int, ...]
    chips: tuple[int, ...]

    @property
    def abandoned(self) -> bool:
        """True for a round the host ended before anyone went out."""
        return self.winner is None


@dataclass(frozen=True, slots=True)
class Round:
    """One deal and its play.

    ``hands`` is indexed by seat. ``opening_suit`` is the suit whose seven
    opens (``None`` with ``any-seven``); ``opener`` the seat of turn 1.
    ``moves`` holds every turn taken (see :data:`Move`); the next turn is
    ``len(moves) + 1``. ``paid`` is each seat's chips paid into the pot this
    round and ``voluntary`` its voluntary passes this round.
    """

    number: int
    dealer: int
    opening_suit: str | None
    opener: int
    hands: tuple[Cards, ...]
    layout: tuple[Row, ...]
    moves: tuple[Move, ...]
    paid: tuple[int, ...]
    voluntary: tuple[int, ...]
    submitted: bool
    status: RoundStatus = RoundStatus.PLAYING
    result: RoundResult | None = None

    @property
    def turn(self) -> int:
        """The number of the next turn (the current one while playing)."""
        return len(self.moves) + 1

    @property
    def pot(self) -> int:
        """Every chip paid this round (the winner takes it)."""
        return sum(self.paid)

    def seat_of(self, turn: int) -> int:
        """The seat that plays turn ``turn`` (turn 1 is the opener's)."""
        return (self.opener + turn - 1) % len(self.hands)

    @property
    def on_turn(self) -> int | None:
        """The seat on turn, ``None`` once the round is over."""
        return self.seat_of(self.turn) if self.status is RoundStatus.PLAYING else None


@dataclass(frozen=True, slots=True)
class Table:
    """A whole match at one table.

    ``names`` are the players in seat order (clockwise); ``draw`` the
    first-dealer draw (empty when the caller named the dealer). ``wins``,
    ``points`` and ``chips`` are per-seat match totals (chips: won less
    paid, summing to 0), exact however many rounds were played. ``played``
    counts the scored rounds and ``last`` is the newest one's result: the
    state keeps no list of results, so that it does not grow with the match
    (every finished round's result goes to the table's list of rounds, see
    :func:`.codec.rounds_of`). ``round`` is the current round, or the last
    one once over (an abandoned one included). ``legacy`` holds the results
    of a table stored before that list (fmt 1 kept them all in the state),
    listed from there until the table is written again; empty otherwise.
    """

    variant: str
    options: Options
    names: tuple[str, ...]
    first_dealer: int
    draw: tuple[tuple[str | None, ...], ...]
    wins: tuple[int, ...]
    points: tuple[int, ...]
    chips: tuple[int, ...]
    played: int
    last: RoundResult | None
    round: Round | None
    match_status: MatchStatus
    match_winners: tuple[int, ...] = ()
    legacy: tuple[RoundResult, ...] = ()

    @property
    def seats(self) -> int:
        """Number of seats."""
        return len(self.names)

    @property
    def next_dealer(self) -> int:
        """The dealer of the next round: one seat left per scored round."""
        return (self.first_dealer + self.played) % self.seats
