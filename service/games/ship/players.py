"""Automatic players of My Ship Sails (RULES.md 5.3, 5.4): who the table
waits for, the ``random`` and ``basic`` players, and a move made for a seat
through the same transitions as the move endpoints. Pure: no clock of its
own, no random source of its own.

``basic`` follows seeds 000 and 002: it keeps the suit that holds most of
its cards (ties: the higher cards, then suit order S H D C) and passes the
lowest card of its shortest other suit (its own suit only when nothing
else is left, so the last off-suit card stays its pass while one card is
missing); under ``manual`` it claims as soon as its hand wins. A bot reads
only its own hand and the public table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Shuffler, Transition, Turn
from ..cards import RANK_INDEX, SUIT_INDEX, parse_card, sort_cards, suit_counts
from ..errors import RuleViolation
from . import engine
from .settlement import winning_suits
from .state import RoundStatus, Table


def turn_of(table: Table) -> Turn | None:
    """The exchange the table waits on (its choosers that have not chosen;
    under ``manual`` the seats whose hand wins may claim instead), or an
    open claim window (nobody due, RULES.md 5.3; the winning hands that
    have not claimed may); ``None`` otherwise."""
    rnd = table.round
    if rnd is None or table.match_status.value != "in-progress":
        return None
    manual = table.options.declaration == "manual"
    win = table.options.win_count
    if rnd.status is RoundStatus.PASSING:
        claimers: tuple[int, ...] = ()
        if manual:
            claimers = tuple(s for s, h in enumerate(rnd.hands) if winning_suits(h, win))
        return Turn(engine.step_key(rnd), tuple(rnd.exchange.waiting_for), claimers)
    if rnd.status is RoundStatus.CLAIM_WINDOW:
        claimed = {c.seat for c in rnd.claims}
        winners = tuple(
            s for s, h in enumerate(rnd.hands) if s not in claimed and winning_suits(h, win)
        )
        return Turn(f"r{rnd.number}w", (), winners)
    return None


def kept_suit(hand: Sequence[str]) -> str:
    """The suit ``basic`` commits to: the one with most cards, ties to the
    higher cards, then suit order."""
    counts = suit_counts(hand)
    strength = Counter[str]()
    for card in hand:
        strength[card[1]] += RANK_INDEX[card[0]]
    return max(counts, key=lambda s: (counts[s], strength[s], -SUIT_INDEX[s]))


def choose_cards(hand: Sequence[str], count: int) -> list[str]:
    """``basic``'s pass: ``count`` cards from its shortest suits other than
    the one it keeps, lowest first."""
    keep = kept_suit(hand)
    counts = suit_counts(hand)
    others = sorted(
        (c for c in hand if c[1] != keep),
        key=lambda c: (counts[c[1]], SUIT_INDEX[c[1]], RANK_INDEX[c[0]]),
    )
    if len(others) < count:  # only the kept suit left: give its lowest
        others += sorted((c for c in hand if c[1] == keep), key=lambda c: RANK_INDEX[c[0]])
    return others[:count]


def _wins(table: Table, seat: int) -> bool:
    rnd = table.round
    assert rnd is not None
    return bool(winning_suits(rnd.hands[seat], table.options.win_count))


def bot_move(table: Table, seat: int, kind: str, rng: Shuffler) -> dict[str, Any]:
    """The move of the automatic player ``kind`` for ``seat`` in the table's
    :func:`turn_of`: ``{"action": "claim"}`` (under ``manual``, a winning
    hand: ``basic`` always, ``random`` too, as a claim is the one move that
    ends its round) or ``{"action": "pass", "cards": [...]}`` (``basic``:
    :func:`choose_cards`; ``random``: a uniform choice of the hand's cards).
    Raises ``ValueError`` when the seat has no move."""
    turn = turn_of(table)
    rnd = table.round
    if turn is None or rnd is None or (seat not in turn.seats and seat not in turn.optional):
        raise ValueError(f"seat {seat} has no move now")
    if seat in turn.optional and _wins(table, seat):
        return {"action": "claim"}
    hand = list(rnd.hands[seat])
    count = table.options.pass_count
    if kind == "random":
        rng.shuffle(hand)
        return {"action": "pass", "cards": sorted(hand[:count])}
    return {"action": "pass", "cards": choose_cards(hand, count)}


def default_move(table: Table, seat: int) -> dict[str, Any]:
    """What a turn clock plays for ``seat`` (RULES.md 5.3): ``basic``'s move."""
    return bot_move(table, seat, "basic", _NO_RNG)


def recorded_move(table: Table, seat: int, move: dict[str, Any]) -> dict[str, Any]:
    """``move`` (a :func:`bot_move` answer) for ``seat`` as a round's record
    holds it (:func:`replay_move`'s form, the pass's cards in canonical
    order, as the move endpoints record them)."""
    rnd = table.round
    if rnd is None:
        raise ValueError("no round in play")
    if move["action"] == "claim":
        return {"seat": seat, "move": "claim", "round": rnd.number}
    cards = list(sort_cards(parse_card(card) for card in move["cards"]))
    return {
        "seat": seat,
        "move": "pass",
        "round": rnd.number,
        "exchange": rnd.exchange.number,
        "cards": cards,
    }


def move_step(move: Mapping[str, Any]) -> str:
    """The step of a recorded move (``Game.move_step``): a pass's exchange,
    ``"r1x3"`` (round 1, exchange 3), or a claim's round, ``"r1c"``."""
    if move["move"] == "pass":
        return f"r{move['round']}x{move['exchange']}"
    return f"r{move['round']}c"


def late_move(table: Table, move: Mapping[str, Any]) -> RuleViolation:
    """A seat's own pass in an exchange whose pass was chosen for it at its
    deadline (``Game.late_move``, RULES.md 5.3): ``stale-exchange``, with the
    numbers, also while the exchange waits for other seats (the default
    pass is not replaced)."""
    return RuleViolation(
        "stale-exchange",
        f"Seat {move['seat']}'s pass in exchange {move.get('exchange')} of round "
        f"{move['round']} was chosen for it when its time ran out (its default move): its own "
        "pass for it comes too late.",
        extra=engine.numbers(table),
    )


def replay_move(table: Table, move: Mapping[str, Any], now_ms: int) -> Transition:
    """One recorded move (``Game.replay_move``): ``{"move": "pass", "seat",
    "round", "exchange", "cards"}`` or ``{"move": "claim", "seat", "round"}``,
    through the transitions of the move endpoints (:func:`.engine.choose_pass`,
    :func:`.engine.claim`)."""
    kind = move["move"]
    if kind == "pass":
        return engine.choose_pass(
            table, move["round"], move["exchange"], move["seat"], move["cards"], now_ms
        )
    if kind == "claim":
        return engine.claim(table, move["round"], move["seat"], now_ms)
    raise LookupError(f"My Ship Sails has no move {kind!r}")


class _NoRandom:
    """The random source of a deterministic player: it never draws."""

    def shuffle(self, x: list[Any], /) -> None:  # pragma: no cover - never called
        raise AssertionError("basic draws nothing")

    def getrandbits(self, k: int, /) -> int:  # pragma: no cover - never called
        raise AssertionError("basic draws nothing")


_NO_RNG = _NoRandom()
