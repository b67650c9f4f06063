"""The clock's part of a commit (RULES.md 5.3, 5.4): the away seats' change,
the bot seats, the referee's moves in a row, and the clock note that tells
the worker when to look at the table next.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .loading import NO_CONTROL, Change, Control, Loaded, TableLoads


def back_events(away: str) -> tuple[dict[str, Any], ...]:
    """The ``seat-back`` event (``seat``) of a commit whose away change
    (:meth:`TableStore._away_op`) is ``-seat``: an away seat moved itself and
    is back (RULES.md 5.3), said on the log and the streams after the move's
    own events; none for any other change."""
    if not away.startswith("-"):
        return ()
    return ({"type": "seat-back", "seat": away_seat(away)},)


def away_seat(away: str) -> int:
    """The seat of an away change (``"+3"``, ``"+3 r1t7"``, ``"-3"``)."""
    return int(away[1:].partition(" ")[0])


def unattended_of(change: Any, seat: int | None = None) -> str:
    """How a commit of ``change`` changes the moves the referee made for
    seats in a row (the table hash's ``u``, ``service.clock.paused``): as
    the change says (the worker's: ``"+"`` a bot's or a default move, ``""``
    what fell due; a deal, a join: ``"0"``), else ``"0"`` for a seat's own
    move (``seat``: its token's), ``""`` (kept) for anything else, such as
    the host's seat changes or a new join code (no act of play buys the bots
    more moves, RULES.md 5.4)."""
    said = getattr(change, "unattended", None)
    if said is not None:
        return str(said)
    return "0" if seat is not None else ""


class ClockNotes(TableLoads):
    """The clock's part of a commit: away seats, bots, clock notes."""

    def _resume_args(
        self, loaded: Loaded, change: Change, away: str, unattended: str, resumes: bool
    ) -> list[str]:
        """``choose.lua``'s last two arguments: the key of the step whose
        clock starts again at a choice that ``resumes`` a paused clock, and
        the clock note of its deadlines then (each ``""``: none)."""
        turn = self.codec.turn_of(loaded.table) if resumes else None
        if turn is None:
            return ["", ""]
        # The table with the choice made (the step still open when it does
        # not complete it), whose seats still due get the new deadlines.
        note = self._note_after(loaded, change.table, away, None, unattended, restart=True)
        return [str(turn.key), note]

    @staticmethod
    def _away_op(
        loaded: Loaded, change: Change, mover: Callable[[Loaded], int | None] | None
    ) -> str:
        """The away seats' change of ``change`` committed on ``loaded``
        (``commit.lua``'s ARGV[21]): ``+seat step`` for a seat that timed
        out (its default move's step, ``timed_out_step``, remembered in
        ``t``), ``-seat`` for an away seat that moved itself, ``""`` for none."""
        timed_out = getattr(change, "timed_out", None)
        if timed_out is not None:
            step = getattr(change, "timed_out_step", "")
            return f"+{timed_out} {step}" if step else f"+{timed_out}"
        seat = None if mover is None else mover(loaded)
        control = loaded.control or NO_CONTROL
        if seat is not None and seat in control.away:
            return f"-{seat}"
        return ""

    @staticmethod
    def _bots_arg(change: Change) -> str:
        """``commit.lua``'s ARGV[22] for ``change``: its ``bots`` as JSON, or keep."""
        bots = getattr(change, "bots", None)
        if bots is None:
            return ""
        return json.dumps({str(k): v for k, v in bots.items()}, separators=(",", ":"))

    def instant_after(self, loaded: Loaded, change: Change) -> int | None:
        """When the worker must next look at the table once ``change`` (not
        a seat's own move) is committed on ``loaded``: the instant of that
        commit's clock note, ``None`` for never (or a store without
        ``notes``)."""
        away = self._away_op(loaded, change, None)
        bots = getattr(change, "bots", None)
        return self._instant_after(loaded, change.table, away, bots, unattended_of(change))

    def _note_after(
        self,
        loaded: Loaded,
        table: Any,
        away: str = "",
        bots: dict[int, Any] | None = None,
        unattended: str = "",
        restart: bool = False,
    ) -> str:
        """The clock note of a commit of ``table`` on ``loaded`` (see
        :meth:`_instant_after`), ``""`` for none."""
        if not self.publish_notes:
            return ""
        at = self._instant_after(loaded, table, away, bots, unattended, restart)
        return "" if at is None else str(at)

    def _resumes(self, loaded: Loaded, unattended: str) -> bool:
        """Whether a commit on ``loaded`` whose change of the referee's moves
        in a row is ``unattended`` (``"0"``: a person's move or act) resumes
        a paused clock (``paused``): its step's clock starts again."""
        control = loaded.control or NO_CONTROL
        return unattended == "0" and self.paused is not None and self.paused(control)

    def _instant_after(
        self,
        loaded: Loaded,
        table: Any,
        away: str = "",
        bots: dict[int, Any] | None = None,
        unattended: str = "",
        restart: bool = False,
    ) -> int | None:
        """When the worker must next look at ``table`` committed on
        ``loaded`` with the away change ``away``, the bot seats ``bots``
        (``None``: kept) and the change ``unattended`` of the referee's
        moves in a row (:func:`unattended_of`), as ``commit.lua`` leaves
        the table's control (``opened`` moves with a new step, at this
        commit's clock, and with ``restart`` in the same step too): a commit
        that resumes a paused table says so."""
        if self.notes is None:
            return None
        before = loaded.control or NO_CONTROL
        seats = set(before.away)
        if away:
            seat = away_seat(away)
            if away.startswith("+"):
                seats.add(seat)
            else:
                seats.discard(seat)
        count = {"0": 0, "+": before.unattended + 1}.get(unattended, before.unattended)
        control = replace(
            before,
            bots=before.bots if bots is None else bots,
            away=frozenset(seats),
            unattended=count,
        )
        return self._instant(control, table, loaded.now_ms, restart)

    def _note(self, control: Control, table: Any, now_ms: int) -> str:
        """``commit.lua``'s clock note for ``table`` committed at ``now_ms``
        with ``control`` (see :meth:`_instant`), ``""`` for none."""
        at = self._instant(control, table, now_ms) if self.publish_notes else None
        return "" if at is None else str(at)

    def _instant(
        self, control: Control, table: Any, now_ms: int, restart: bool = False
    ) -> int | None:
        """When the worker must next look at ``table`` committed at
        ``now_ms`` with ``control`` (its ``opened`` as before the commit;
        with ``restart`` its step's clock starts at ``now_ms``), by
        ``notes``; ``None`` for never."""
        if self.notes is None:
            return None
        turn = self.codec.turn_of(table)
        opened = control.opened
        if turn is None:
            opened = None
        elif restart or opened is None or opened[0] != turn.key:
            opened = (str(turn.key), now_ms)
        return self.notes(table, replace(control, opened=opened))

    def _turn_arg(self, table: Any, resumes: Any = None) -> str:
        """``commit.lua``'s ARGV[20]: the key of the step ``table`` waits on
        (``"-"``: the state is kept, so is the step's clock); ``resumes``
        (the table as read) when the commit resumes a paused clock: the key
        with ``"!"`` before it, its clock starting again."""
        if table is None and resumes is None:
            return "-"
        turn = self.codec.turn_of(resumes if table is None else table)
        if turn is None:
            return "-" if table is None else ""
        return ("!" if resumes is not None else "") + str(turn.key)

    def _deadline(self, loaded: Loaded) -> str:
        """``choose.lua``'s deadline for a move computed on ``loaded``: when
        its table falls due by the clock (``""``: never)."""
        at = self.codec.due_at(loaded.table)
        return "" if at is None else str(at)
