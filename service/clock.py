"""Every seat's deadline (RULES.md 5.3, 5.4), for any game: pure, no Flask,
no Redis. The API shows them, the worker (:mod:`service.worker`) keeps them.

A deadline belongs to one step (the game's :class:`~service.games.base.Turn`
key) and starts when the commit that opened that step was written
(``Control.opened``): a seat that is a bot moves ``bot_delay_ms`` after it
(or after the bot was handed the seat, if later),
an away seat after ``away_timeout_ms``, any other after
``turn_timeout_ms`` (none without that option). Seats that may move without
being due (a claim, a May I? request) have a deadline only as bots.
"""

from __future__ import annotations

from typing import Any

from .games import game_of

CLOCK_OPTIONS = ("turn_timeout_ms", "away_timeout_ms", "bot_delay_ms", "unattended_moves")
"""The clock options every game takes (kept beside the game's state)."""

DEFAULTS: dict[str, int | None] = {
    "turn_timeout_ms": None,
    "away_timeout_ms": 2000,
    "bot_delay_ms": 600,
    "unattended_moves": 1000,
}


def options_of(clock: dict[str, Any]) -> dict[str, int | None]:
    """The clock options with their defaults."""
    return {k: clock.get(k, v) for k, v in DEFAULTS.items()}


def paused(control: Any) -> bool:
    """Whether the referee has made ``unattended_moves`` moves for seats
    in a row (bots' and default moves) with no move or act of a person
    since: then no away person gets a default move any more (the table waits
    for that person, who resumes it by moving), and on a table of bots only
    no bot moves either. A person's act of play resumes it (a seat's own
    move, the host's deal, a join), never the host's seat changes (a seat
    handed to a bot or taken back: RULES.md 5.4). This bounds what a table
    nobody attends costs (a round of deterministic bots may never end)."""
    limit = options_of(control.clock)["unattended_moves"]
    return limit is not None and control.unattended >= limit


def deadlines(table: Any, control: Any) -> tuple[str | None, dict[int, int]]:
    """The key of the step ``table`` waits on and each seat's deadline in
    it (ms since the epoch, by Redis's clock), for the seats that have one.
    ``control`` is the store's ``Control`` (bots, away, clock, opened). A
    step whose opening commit is not known yet (the clock alone opened it,
    or a release without clocks wrote it) has no deadline until the worker
    writes it: the key is returned with no deadlines."""
    turn = game_of(table).turn_of(table)
    if turn is None:
        return None, {}
    opened = control.opened
    if opened is None or opened[0] != turn.key:
        return turn.key, {}
    start = opened[1]
    clock = options_of(control.clock)
    found: dict[int, int] = {}
    stopped = paused(control)
    empty = open_seats(table)
    people = any(seat not in control.bots and seat not in empty for seat in range(table.seats))
    for seat in (*turn.seats, *turn.optional):
        bot = control.bots.get(seat)
        if stopped and (bot is None or not people):
            continue  # paused: see paused()
        if bot is not None:
            # A bot handed the seat during the step moves that long after the
            # handover: a deadline of its own, which no job was sent for yet.
            since = max(start, int(bot.get("at") or 0))
            found.setdefault(seat, since + int(clock["bot_delay_ms"] or 0))
        elif seat not in turn.seats:
            continue
        elif seat in empty and clock["turn_timeout_ms"] is None:
            # An open seat in a dealt round (its bot taken back: nobody may
            # join it until the round ends) is played by default moves,
            # clock or none (RULES.md 5.1).
            found[seat] = start + int(clock["away_timeout_ms"] or 0)
        elif clock["turn_timeout_ms"] is None:
            continue
        elif seat in control.away:
            found[seat] = start + int(clock["away_timeout_ms"] or 0)
        else:
            found[seat] = start + int(clock["turn_timeout_ms"])
    return turn.key, found


def open_seats(table: Any) -> frozenset[int]:
    """The seats nobody holds (named ``""`` in the state, RULES.md 5.1)."""
    names = getattr(table, "names", ())
    return frozenset(seat for seat, name in enumerate(names) if name == "")


def shown(table: Any, control: Any) -> dict[int, int]:
    """The deadlines anyone may see: those of the seats the step waits on
    (``turn.seats``). A seat that may move without being due
    (``turn.optional``: a claim window's seats whose hand wins, a May I?
    request) has a deadline only as a bot, and showing it would tell which
    bots may act: in My Ship Sails, whose hidden hand wins (RULES.md 5.4)."""
    turn = game_of(table).turn_of(table)
    if turn is None:
        return {}
    _, found = deadlines(table, control)
    return {seat: at for seat, at in found.items() if seat in turn.seats}


def pending(table: Any, control: Any) -> bool:
    """Whether the worker has to open the step's clock (a step with seats
    that would have a deadline, whose opening commit is unknown)."""
    turn = game_of(table).turn_of(table)
    if turn is None:
        return False
    if control.opened is not None and control.opened[0] == turn.key:
        return False
    clock = options_of(control.clock)
    bots = any(s in control.bots for s in (*turn.seats, *turn.optional))
    empty = bool(open_seats(table) & set(turn.seats))
    return bots or empty or (clock["turn_timeout_ms"] is not None and bool(turn.seats))


def next_instant(table: Any, control: Any) -> int | None:
    """When the worker must next look at ``table`` (ms since the epoch, by
    Redis's clock): its first deadline (:func:`deadlines`) or the instant
    something of it falls due by the clock alone (a window's close: the
    game's ``due_at``), whichever comes first; ``None`` for neither. A
    commit announces it (the store's clock note) so that the worker knows
    of the table without reading every commit."""
    _, found = deadlines(table, control)
    due = game_of(table).due_at(table)
    instants = [*found.values(), *(() if due is None else (due,))]
    return min(instants) if instants else None
