"""How every move is made, whatever the game (HTTP only): load the table,
run the game's transition, commit it atomically (exactly once with an
``Idempotency-Key``), count it, and answer. Each game's move endpoints and the
table endpoints use these; no rule lives here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import marshmallow as ma
from flask import Response

from .. import clock, metrics
from ..edge import auth, idempotency, prefetch, presence
from ..edge.common import check_table_id, no_table, referee, schema_of
from ..edge.problems import Problem
from ..games import game_of
from ..games.base import Game, Transition
from ..games.errors import RuleViolation
from ..storage.store import NO_CONTROL, AlreadyRecorded, Control, Loaded, TableNotFound
from . import clocks, seating

Answer = tuple[dict[str, Any], int, dict[str, str]]


def missing(protected: bool) -> Problem:
    # A call that needs a token cannot check one without its table (auth.require_token).
    return auth.unknown_token() if protected else no_table()


def load(table_id: str, protected: bool = False) -> Loaded:
    """The table; 404 if missing, or for a ``protected`` call 401 first."""
    if protected:
        auth.require_token()
    try:
        check_table_id(table_id)
        return referee().store.load(table_id, prefetch.take(table_id))
    except (TableNotFound, Problem):
        raise missing(protected) from None


def mover(loaded: Loaded) -> int | None:
    """The seat whose token made this request (``None``: the host's token,
    or none): what the store needs to know that an away seat is back."""
    try:
        who = auth.caller(loaded.auth)
    except Problem:
        return None
    return who if isinstance(who, int) else None


def not_a_bot(move: Callable[[Loaded], Transition]) -> Callable[[Loaded], Transition]:
    """``move``, refused 409 ``seat-is-bot`` when the request's token is a
    seat's that the host handed to a bot (RULES.md 5.4; nothing written)."""

    def guarded(loaded: Loaded) -> Transition:
        control = loaded.control or NO_CONTROL
        if control.bots:
            who = mover(loaded)
            if who is not None and who in control.bots:
                raise Problem(
                    409,
                    "seat-is-bot",
                    f"A bot plays seat {who} now: the host can take the seat back.",
                )
        return move(loaded)

    return guarded


def not_late(move: Callable[[Loaded], Transition]) -> Callable[[Loaded], Transition]:
    """``move``, refused as its game says (``Game.late_move``: 409, the
    game's stale code) when it is a seat's own move for a step whose
    default move was made for that seat (the store's ``Control.defaulted``),
    even the same move: the seat stays away (RULES.md 5.3; nothing written)."""

    def guarded(loaded: Loaded) -> Transition:
        change = move(loaded)
        control = loaded.control or NO_CONTROL
        journal = getattr(change, "journal", None)
        record = None if journal is None else journal.move
        if not control.defaulted or record is None:
            return change
        game = game_of(loaded.table)
        who = mover(loaded)
        if (
            game.move_step is not None
            and game.late_move is not None
            and who is not None
            and record.get("seat") == who
            and (who, game.move_step(record)) in control.defaulted
        ):
            raise game.late_move(loaded.table, record)
        return change

    return guarded


def guarded(move: Callable[[Loaded], Transition]) -> Callable[[Loaded], Transition]:
    """``move`` with the refusals every seat's move may meet before its
    game's own: a seat a bot plays (:func:`not_a_bot`), a move made too
    late (:func:`not_late`)."""
    return not_a_bot(not_late(move))


def count_refused(table_id: str, refused: RuleViolation) -> None:
    """Count what a refused move still wrote (a logged claim, and the events
    that were due before it, stored with it)."""
    if refused.record:
        metrics.current().committed(table_id, None, refused.record)


def apply_move(
    table_id: str, move: Callable[[Loaded], Transition], protected: bool = True
) -> tuple[Transition, Loaded]:
    """Commit ``move`` (a ``protected`` move needs a token: every move but
    a join); returns its transition and the state it ran on (with the Redis clock)."""
    if protected:
        auth.require_token()
    try:
        check_table_id(table_id)
        loaded, transition = referee().store.apply(
            table_id, guarded(move), prefetched=prefetch.take(table_id), mover=mover
        )
    except TableNotFound:
        raise missing(protected) from None
    except Problem as problem:
        if problem.code == "table-not-found":
            raise missing(protected) from None
        raise
    except RuleViolation as refused:
        count_refused(table_id, refused)
        raise
    metrics.current().committed(
        table_id, transition.table.variant, (*loaded.chosen, *transition.events)
    )
    return transition, loaded


def replay_unless_gone(table_id: str, replay: Response, gone: Problem) -> Response:
    """A recorded answer, unless its table has since gone (deleted, expired):
    then the answer is as the table is now, ``gone``, not the dead table's."""
    if referee().store.exists(table_id):
        return replay
    raise gone


def commit_move(
    table_id: str,
    move: Callable[[Loaded], Transition],
    respond: Callable[[Transition, Loaded], Answer],
    schema: type[ma.Schema],
    protected: bool = True,
    sealed: bool = False,
) -> Answer | Response:
    """Commit ``move`` and answer ``respond(transition, the state it ran on)``.

    With an ``Idempotency-Key``, exactly once: the answer (``respond``'s body
    serialised by ``schema``, or the rules' refusal) is recorded in the same
    Lua call that commits the move; a repeat replays it (see ``idempotency``).
    A move that is not ``protected`` (a join) needs no token: a missing
    table is then 404. A ``sealed`` answer (it holds a token or a code) is
    recorded encrypted with the Idempotency-Key, as a creation's is.
    """
    key = idempotency.request_key()
    if key is None:
        transition, loaded = apply_move(table_id, move, protected)
        return respond(transition, loaded)
    if protected:
        auth.require_token()
    try:
        check_table_id(table_id)
    except Problem:
        raise missing(protected) from None
    pending = idempotency.begin_on_table(table_id, key, key if sealed else None, protected)
    if isinstance(pending, Response):
        return replay_unless_gone(table_id, pending, missing(protected))

    def make(loaded: Loaded, result: Any) -> bytes:
        if isinstance(result, RuleViolation):
            return pending.refusal_record(result)
        body, status, headers = respond(result, loaded)
        return pending.success_record(schema_of(schema).dump(body), status, headers)

    record = pending.as_record(make)
    try:
        loaded, transition = referee().store.apply(
            table_id, guarded(move), record, prefetch.take(table_id), mover=mover
        )
    except AlreadyRecorded as done:
        return idempotency.answer_held(done.record, pending.fingerprint, pending.seal)
    except RuleViolation as refused:
        count_refused(table_id, refused)
        # A refusal that wrote (a logged claim) was recorded in that commit;
        # one that wrote nothing is recorded here (its answer, not the table).
        if not refused.record:
            held = pending.record_refusal(refused)
            if held is not None:
                return held
        raise
    except TableNotFound:
        pending.release()
        raise missing(protected) from None
    except BaseException:
        pending.release()
        raise
    metrics.current().committed(
        table_id, transition.table.variant, (*loaded.chosen, *transition.events)
    )
    if (
        transition.table is loaded.table
        and not transition.events
        and getattr(transition, "auth", None) is None
        and not getattr(getattr(transition, "journal", None), "writes", bool)()
    ):
        # A repeat that wrote nothing: the commit did not record it.
        held = pending.record(make(loaded, transition))
        if held is not None:
            return held
    return respond(transition, loaded)


def public(
    table_id: str,
    table: Any,
    now_ms: int,
    last_event: int,
    seen: dict[Any, Any] | None = None,
    next_deal: dict[str, Any] | None = None,
    control: Control | None = None,
    move_chain: dict[str, Any] | None = None,
    auth_record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The public view of a table of any game (its game's ``public_view``)
    with its id, its game, ``last_event``, the seq of the last event
    written, each seat's ``open`` and ``connected`` (by the presence hash
    ``seen`` as read at ``now_ms``, RULES.md 5.5), ``next_deal``, the next
    deal's commitment (RULES.md 5.2; ``None`` when not known here),
    ``move_chain``, the head of the round's chain of moves
    (:attr:`.Loaded.move_chain`), with ``control``, each seat's clock
    and bot (:mod:`.clocks`, RULES.md 5.3, 5.4), and each seat's
    ``reissued`` (its token reissued in the round in play, by the auth
    record ``auth_record``: RULES.md 5.1)."""
    game = game_of(table)
    view = {
        "table_id": table_id,
        "game": game.name,
        **game.public_view(table, now_ms),
        "last_event": last_event,
        "next_deal": next_deal,
        "move_chain": move_chain,
    }
    view = clocks.with_clocks(seating.with_open_seats(view), table, control or NO_CONTROL)
    marked = seating.reissued_seats(auth_record or {}, view)
    for one in view.get("seats") or ():
        one["reissued"] = one["seat"] in marked
    return presence.with_connected(view, presence.seats_connected(table_id, seen, now_ms))


def public_of(loaded: Loaded) -> dict[str, Any]:
    """The public view of the table as ``loaded`` read it (:func:`public`)."""
    return public(
        loaded.table_id,
        loaded.table,
        loaded.now_ms,
        loaded.event_count,
        loaded.presence,
        loaded.deal,
        loaded.control,
        loaded.move_chain,
        loaded.auth,
    )


def seat(loaded: Loaded, seat_no: int) -> dict[str, Any]:
    """A seat's private view of a table of any game (its game's
    ``seat_view``) with its game, ``last_event`` and its own clock (``away``
    and ``until_ms``, RULES.md 5.3): what ``GET …/seats/{seat}`` answers and
    what a seat's stream sends."""
    game = game_of(loaded.table)
    seen, shown = _shared_by_seats(loaded)
    control = loaded.control or NO_CONTROL
    return {
        "game": game.name,
        **game.seat_view(loaded.table, seat_no, loaded.now_ms),
        **clocks.own_clock(shown, control, seat_no),
        "last_event": loaded.event_count,
        "connected": sorted(presence.with_own_seat(loaded.table_id, seen)),
    }


_last_read: tuple[Loaded, frozenset[int], dict[int, int]] | None = None


def _shared_by_seats(loaded: Loaded) -> tuple[frozenset[int], dict[int, int]]:
    """What every seat's view of one read has in common: the seats its
    presence hash says are connected (less the request's own) and the
    deadlines anyone may see. A stream renders every seat's view of one
    read in turn (:mod:`service.streams.follow`): worked out once for the
    last read seen (a read is never changed; the tuple is replaced whole,
    so a concurrent caller sees either read's), they were a twentieth of a
    Sevens worker's CPU with a stream on each of 7 seats (issue 44)."""
    global _last_read
    last = _last_read
    if last is not None and last[0] is loaded:
        return last[1], last[2]
    seen = presence.seats_seen(loaded.presence, loaded.now_ms)
    shown = clock.shown(loaded.table, loaded.control or NO_CONTROL)
    _last_read = (loaded, seen, shown)
    return seen, shown


def require_game(table: Any, game: Game, what: str) -> None:
    """Refuse (404 ``move-not-in-game``) a move of ``game`` on a table of another game."""
    other = game_of(table)
    if other is not game:
        raise RuleViolation(
            "move-not-in-game",
            f"This table plays {other.title} ({table.variant}); {what} are moves of {game.title}.",
        )


def after(loaded: Loaded, transition: Transition) -> dict[str, Any]:
    """The public view once ``transition`` is committed on ``loaded``."""
    last_event = loaded.event_count + len(transition.events)
    journal = getattr(transition, "journal", None)
    deal = json.loads(journal.public) if journal is not None and journal.public else loaded.deal
    control = loaded.control or NO_CONTROL
    bots = getattr(transition, "bots", None)
    if bots is not None:
        control = replace(control, bots=bots)
    record = getattr(transition, "auth", None)
    return public(
        loaded.table_id,
        transition.table,
        loaded.now_ms,
        last_event,
        loaded.presence,
        deal,
        control,
        loaded.move_chain,
        loaded.auth if record is None else record,
    )
