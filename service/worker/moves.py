"""What the worker commits (game-free): a seat's default or bot move for one
deadline, and the due events nobody has stored."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from .. import clock
from ..games import game_of
from ..games.base import Choice, Event
from ..games.errors import RuleViolation
from ..storage.store import NO_CONTROL, Journal, Loaded

SYSTEM_RANDOM = random.SystemRandom()


@dataclass(frozen=True, slots=True)
class WorkerChange:
    """A change the worker commits: what a transition has, plus
    ``timed_out`` (the seat its default move marks away), ``settle``
    (commit even with nothing of its own: the due events, the step's clock)
    and ``journal`` (the move for the round's record, RULES.md 5.2)."""

    table: Any
    events: tuple[Event, ...] = ()
    choice: Choice | None = None
    archive: tuple[str, ...] = ()
    archive_reset: bool = False
    timed_out: int | None = None
    settle: bool = False
    outcome: dict[str, Any] = field(default_factory=dict)
    journal: Journal | None = None
    shuffles: tuple[dict[str, Any], ...] = ()
    """The stocks the move rebuilt (``Transition.shuffles``), for the record."""
    unattended: str = ""
    """``"+"`` for a move the referee made for a seat (``service.clock.paused``
    counts them), ``""`` for what fell due (no one's move)."""


def settle(loaded: Loaded) -> WorkerChange:
    """Store what is due (the store adds it) and open the step's clock."""
    return WorkerChange(loaded.table, settle=True)


def timed_event(seat: int, key: str, action: str) -> Event:
    """``move-timed-out`` in public terms (the action, never a pass's cards):
    the seat is ``away`` from now on, until it moves itself."""
    return {"type": "move-timed-out", "seat": seat, "step": key, "action": action, "away": True}


def deadline_move(loaded: Loaded, key: str, seat: int) -> WorkerChange | int | None:
    """The move for ``seat``'s deadline in step ``key`` on ``loaded``: a
    change to commit, the deadline (ms) when it has not come yet, or
    ``None`` when it is not this seat's to make any more (the step is
    over, the seat moved, nobody is due). A seat's bot plays its own kind;
    a person out of time gets the ``basic`` player's move (RULES.md 5.3),
    and should the rules refuse it, a ``random`` one (a legal move, never a
    stalled table). The move that makes the referee's moves in a row reach
    ``unattended_moves`` says so with ``clock-paused`` (``clock.paused``)."""
    control = loaded.control or NO_CONTROL
    current, found = clock.deadlines(loaded.table, control)
    at = found.get(seat)
    if current != key or at is None:
        return None
    if loaded.now_ms < at:
        return at
    game = game_of(loaded.table)
    bot = control.bots.get(seat)
    if game.bot_move is None or game.recorded_move is None or game.replay_move is None:
        return None
    done, action = None, ""
    for kind in dict.fromkeys(("basic" if bot is None else bot["kind"], "random")):
        move = game.bot_move(loaded.table, seat, kind, SYSTEM_RANDOM)
        if move is None:
            return None  # nothing it would do (a May I? it does not ask)
        try:
            # The record it journals is the move it plays (RULES.md 5.2).
            record = game.recorded_move(loaded.table, seat, move)
            done = game.replay_move(loaded.table, record, loaded.now_ms)
        except RuleViolation:
            continue  # the rules refused it: a random legal move instead
        action = str(move["action"])
        break
    if done is None:
        return None
    events: tuple[Event, ...] = ()
    if bot is None:
        # A person out of time: its default move, announced, and away.
        events = (timed_event(seat, key, action),)
    limit = clock.options_of(control.clock)["unattended_moves"]
    tail: tuple[Event, ...] = ()
    if limit is not None and control.unattended + 1 == limit:
        tail = ({"type": "clock-paused", "moves": limit},)
    choice = done.choice
    if choice is not None:
        choice = replace(choice, events=(*events, *choice.events, *tail))
    return WorkerChange(
        done.table,
        (*events, *done.events, *tail),
        choice,
        done.archive,
        done.archive_reset,
        None if bot is not None else seat,
        journal=Journal(
            move={**record, "by": "default" if bot is None else "bot"}, round=record["round"]
        ),
        shuffles=done.shuffles,
        unattended="+",
    )
