"""Frozen states of a May I? table and round (the project's rule book, 4).

A hand is a sorted tuple of codes (a multiset; ``JK`` a joker). The stock
and the discard pile are tuples whose top is the last element.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..match import MatchStatus as MatchStatus  # re-exported: part of the state
from .melds import Meld
from .options import Options

Cards = tuple[str, ...]


class Step(StrEnum):
    """What the round waits for."""

    DRAW = "draw"
    """The seat on turn takes the top discard or declines it."""
    MAY_I = "may-i"
    """The declined discard is offered (a May I? window is open)."""
    STOCK = "stock"
    """The seat on turn draws the top of the stock."""
    PLAY = "play"
    """The seat on turn lays down, lays off, and discards."""
    FINAL = "final"
    """After a seat went out (``lay-off-round``, ``play-out``): the seat on
    turn lays off what it can, then says it is done."""
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Offer:
    """A May I? offer of the top discard: number ``n`` in the round, its
    ``card``, its window ``[opened_ms, until_ms)``, the ``asker`` (``None``
    until someone asks), each seat's answer (``""``, ``"allow"``,
    ``"deny"``), the seats in the order they answered (``order``) and the
    seat on turn that declined the card (``on_turn``): the last two let a
    repeated request or answer be answered as the first time.

    While the offer is open, ``marks`` holds each answer as the store keeps
    it in the answers' simultaneous step (:func:`~.engine.step_of`: ``"a"``
    or ``"d"``, the answer's clock in ms, ``#`` and its place in the order,
    e.g. ``"d1764547200123#2"``; ``""`` for a seat that has not answered),
    or ``()`` when nobody has; a closed offer keeps none."""

    n: int
    card: str
    opened_ms: int
    until_ms: int
    asker: int | None
    answers: tuple[str, ...]
    order: tuple[int, ...] = ()
    on_turn: int = -1
    marks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended: ``out`` the seat that went out (``None``: the stock
    ran dry, or the host abandoned it), the cards left and their value per
    seat, and the points each scored (+20 out, minus the value else)."""

    round: int
    dealer: int
    out: int | None
    cards_left: tuple[int, ...]
    penalties: tuple[int, ...]
    points: tuple[int, ...]
    abandoned: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    """One deal and its play.

    ``taken`` counts the numbered moves made (the next is ``taken + 1``).
    ``pile_by`` says who discarded each card of the pile (-1 for the first
    discard). ``secret`` (256 bits from the CSPRNG, drawn at the deal,
    never shown) orders the reshuffles of an empty stock (4.9,
    :mod:`..drbg`). ``final`` lists the seats still to lay off
    after a seat went out.

    What a repeated move, request or answer needs to be answered exactly
    as the first time is kept for the last move only: ``last_move`` (the
    move as ``"seat:action:argument"``, ``""`` before the first),
    ``last_note`` (what it left, :func:`~.engine.snapshot`) and ``closed``
    (the offers that closed since it, in order). Each older move goes with
    its offers to the table's history (:func:`~.codec.archived`, the
    newest ``HISTORY_KEPT`` of the round), so that the state does not grow
    with the round. ``legacy`` holds such texts of a round stored before
    the history (written to it by the next move)."""

    number: int
    dealer: int
    hands: tuple[Cards, ...]
    stock: Cards
    pile: Cards
    pile_by: tuple[int, ...]
    melds: tuple[Meld, ...]
    down: tuple[bool, ...]
    on_turn: int
    step: Step
    taken: int
    offer: Offer | None
    offers: int
    secret: bytes
    reshuffles: int
    out: int | None
    final: tuple[int, ...]
    submitted: bool
    result: RoundResult | None = None
    closed: tuple[Offer, ...] = ()
    last_move: str = ""
    last_note: str = ""
    legacy: tuple[str, ...] = ()

    @property
    def move(self) -> int:
        """The number of the next move."""
        return self.taken + 1

    @property
    def playing(self) -> bool:
        return self.step is not Step.OVER


@dataclass(frozen=True, slots=True)
class Table:
    """A whole match: names in seat order, the first dealer (and the draw
    for it), match totals, the current (or last) round; ``played`` counts
    the scored rounds (the next one's contract and the match's end follow
    from it, RULES.md 4.1) and ``last`` is the newest one's result. The
    state keeps no list of results (they go to the table's list of rounds,
    see :func:`.codec.rounds_of`); ``legacy`` holds those of a table stored
    before (fmt 1 kept them in the state), listed from there until the
    table is written again."""

    variant: str
    options: Options
    names: tuple[str, ...]
    first_dealer: int
    draw: tuple[tuple[str | None, ...], ...]
    points: tuple[int, ...]
    played: int
    last: RoundResult | None
    round: Round | None
    match_status: MatchStatus
    match_winners: tuple[int, ...] = ()
    legacy: tuple[RoundResult, ...] = ()

    @property
    def seats(self) -> int:
        return len(self.names)

    @property
    def next_dealer(self) -> int:
        return (self.first_dealer + self.played) % self.seats
