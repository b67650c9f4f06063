"""Automatic players (RULES.md 5.3, 5.4): who the table waits for, the
``random`` and ``basic`` players (``basic`` is also what a turn clock plays
for a seat out of time, and what ``referee simulate`` plays), a move made
for a seat through the engine's transitions, and a round's record for
replay. A bot reads only its own hand and the public table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Shuffler, Transition, Turn
from ..cards import RANK_INDEX, STANDARD_DECK
from ..errors import RuleViolation
from . import engine
from .layout import SEVEN
from .state import RoundStatus, Table
from .views import may_pass, playable_now

_DECK_ORDER = {card: i for i, card in enumerate(STANDARD_DECK)}
"""The fixed order of :func:`default_move`'s ties: spades 2..A, hearts, diamonds, clubs."""


def _move(table: Table, seat: int, card: str) -> dict[str, Any]:
    rnd = table.round
    assert rnd is not None
    announce = table.options.last_card and len(rnd.hands[seat]) == 2
    return {"action": "play", "card": card, "last_card": announce}


def _beyond(hand: tuple[str, ...], card: str) -> int:
    """How many of the hand's cards of the card's suit lie further out from
    the 7 than ``card`` (the cards it unblocks for its holder); for a 7, every
    other card of its suit in the hand."""
    rank = RANK_INDEX[card[0]]
    others = [RANK_INDEX[c[0]] for c in hand if c[1] == card[1] and c != card]
    if rank == SEVEN:
        return len(others)
    if rank > SEVEN:
        return sum(r > rank for r in others)
    return sum(r < rank for r in others)


def bot(table: Table, seat: int, rng: Shuffler | None) -> dict[str, Any]:
    """A legal move for the seat on turn, after the seed's tips: play Aces
    and 2s early (nothing lies beyond them); prefer the card that unblocks
    most of the seat's own cards; hold a 7, and a card beyond which the seat
    holds nothing, while they block others; with voluntary passes left,
    pass rather than give up such a blocker. Announces the last card when
    due. ``rng`` breaks ties (``None``: the lowest in the fixed order)."""
    cards = playable_now(table, seat)
    if not cards:
        return {"action": "pass"}
    rnd = table.round
    assert rnd is not None
    hand = rnd.hands[seat]

    def score(card: str) -> int:
        rank = RANK_INDEX[card[0]]
        beyond = _beyond(hand, card)
        if rank in (0, 12):  # a 2 or an Ace: an end, easy to be stuck with
            return 100
        if rank == SEVEN:
            # A 7 opens a whole row for everyone: worth it only for a long run.
            return 10 * beyond - 25
        return 10 * beyond if beyond else -10

    scores = {c: score(c) for c in cards}
    best = max(scores.values())
    if best < 0 and may_pass(table, seat) and len(hand) > 2:
        return {"action": "pass"}  # every play gives a blocker away
    top = sorted((c for c in cards if scores[c] == best), key=_DECK_ORDER.__getitem__)
    if rng is not None:
        rng.shuffle(top)
    return _move(table, seat, top[0])


def turn_of(table: Table) -> Turn | None:
    """The seat on turn in the round in play (``"r2t14"``: round 2, turn 14)."""
    rnd = table.round
    if rnd is None or rnd.status is not RoundStatus.PLAYING or rnd.on_turn is None:
        return None
    return Turn(f"r{rnd.number}t{rnd.turn}", (rnd.on_turn,))


def bot_move(table: Table, seat: int, kind: str, rng: Shuffler | None) -> dict[str, Any]:
    """The move of the automatic player ``kind`` for the seat on turn:
    ``random`` is uniform over the legal moves (each playable card, and the
    pass when allowed); ``basic`` is :func:`bot` with ties to the fixed
    order (so that it is the default move). Raises ``ValueError`` when
    ``seat`` is not on turn."""
    rnd = table.round
    if rnd is None or rnd.on_turn != seat or rnd.status is not RoundStatus.PLAYING:
        raise ValueError(f"seat {seat} is not on turn")
    if kind != "random":
        return bot(table, seat, None)  # deterministic: the default move too
    moves: list[dict[str, Any]] = [_move(table, seat, c) for c in playable_now(table, seat)]
    if may_pass(table, seat):
        moves.append({"action": "pass"})
    assert rng is not None
    rng.shuffle(moves)
    return moves[0]


def default_move(table: Table, seat: int) -> dict[str, Any]:
    """What a turn clock plays for ``seat`` (on turn) when its time runs
    out (RULES.md 5.3): ``basic``'s move, ties to the lowest card in the
    fixed order spades 2..A, hearts, diamonds, clubs. Raises ``ValueError``
    when ``seat`` is not on turn."""
    return bot_move(table, seat, "basic", None)


def recorded_move(table: Table, seat: int, move: dict[str, Any]) -> dict[str, Any]:
    """``move`` (a :func:`bot_move` answer) for ``seat`` as a round's record
    holds it (:func:`replay_move`'s form, as the turn endpoint records it)."""
    rnd = table.round
    if rnd is None:
        raise ValueError("no round in play")
    at = {"seat": seat, "round": rnd.number, "turn": rnd.turn}
    if move["action"] == "pass":
        return {**at, "move": "pass"}
    return {**at, "move": "play", "card": move["card"], "last_card": move["last_card"]}


def move_step(move: Mapping[str, Any]) -> str:
    """The step of a recorded move (``Game.move_step``): ``"r1t7"``, round 1, turn 7."""
    return f"r{move['round']}t{move['turn']}"


def late_move(table: Table, move: Mapping[str, Any]) -> RuleViolation:
    """A seat's own move for a turn played for it at its deadline
    (``Game.late_move``, RULES.md 5.3): ``stale-turn``, with the numbers."""
    return RuleViolation(
        "stale-turn",
        f"Turn {move['turn']} of round {move['round']} was played for seat {move['seat']} "
        "when its time ran out (its default move): its own move for it comes too late.",
        extra=engine.numbers(table),
    )


def replay_move(table: Table, move: Mapping[str, Any], now_ms: int) -> Transition:
    """One recorded move (``Game.replay_move``): ``{"move": "play", "seat",
    "round", "turn", "card", "last_card"}`` or ``{"move": "pass", "seat",
    "round", "turn"}``, through the transitions of the turn endpoint
    (:func:`.engine.play`, :func:`.engine.pass_turn`)."""
    kind = move["move"]
    if kind == "play":
        return engine.play(
            table,
            move["round"],
            move["turn"],
            move["seat"],
            move["card"],
            move["last_card"],
            now_ms,
        )
    if kind == "pass":
        return engine.pass_turn(table, move["round"], move["turn"], move["seat"], now_ms)
    raise LookupError(f"Sevens has no move {kind!r}")


def round_record(table: Table, round_no: int) -> dict[str, Any] | None:
    """The record of the current (or last) round, ``None`` for any other
    number: ``{"round", "dealer", "opener", "opening_suit", "status",
    "moves": [{"turn", "seat", "action", "card", "last_card"}]}``. The
    hands stay hidden (a verifiable deal will add them)."""
    rnd = table.round
    if rnd is None or rnd.number != round_no:
        return None
    moves = []
    for i, move in enumerate(rnd.moves):
        passed = move in ("P", "V")
        moves.append(
            {
                "turn": i + 1,
                "seat": rnd.seat_of(i + 1),
                "action": "pass" if passed else "play",
                "card": None if passed else move[:2],
                "last_card": move.endswith("!"),
            }
        )
    return {
        "round": rnd.number,
        "dealer": rnd.dealer,
        "opener": rnd.opener,
        "opening_suit": rnd.opening_suit,
        "status": rnd.status.value if rnd.status is RoundStatus.PLAYING else "over",
        "moves": moves,
    }
